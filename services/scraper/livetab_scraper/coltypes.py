"""Typed columns: which columns hold integers, decimals, percentages, currency, dates or durations.

Detection reads the cell texts and never changes them. Numbers are read by `livetab.numbers`, the one
number reader every service shares, with the page language's conventions (`1,234.5` in English is
`1.234,5` in German and `1 234,5` in French or Russian), currency symbols and scale words; this module
adds what a number is not: dates and durations.

A column gets a type when at least `min_share` (default 0.8) of its non-empty, non-null values
have it; integers and decimals together make a decimal column, and plain numbers under a currency
printed on some rows only (as reports print it) a currency column. Everything else is `text`, and a
column with no values at all is `empty`.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from livetab import numbers
from livetab.render import unique_columns
from livetab.tables import Table

__all__ = [
    "COLUMN_TYPES",
    "NULL_MARKERS",
    "detect_column_types",
    "is_null",
    "value_type",
]

COLUMN_TYPES = ("integer", "decimal", "percentage", "currency", "date", "duration", "text", "empty")
NULL_MARKERS = frozenset({"", "—", "–", "-", "−", "‒", "―", "n/a", "N/A", "n.a.", "N.A.", "na", "NA", "?", "none",
                          "None", "null", "nil", "—*", "TBD", "TBA", "tbd", "tba", "..", "...", "…", "×", "∅",
                          # "no data" as the FreshTab languages write it (ru, de, es, fr/es, nl)
                          "н/д", "н. д.", "k. A.", "k.A.", "s/d", "n.d.", "n.v.t.",
                          # "not meaningful", as annual reports write it (lower case: "NM" is New Mexico)
                          "nm", "n.m."})

# A change column of an election table marks "unchanged" with a bar and a party that did not stand before
# with "new" instead of a number: neither counts for or against the column being numeric.
CHANGE_MARKERS = frozenset({"▬", "▬▬", "new", "New", "neu", "Neu", "nouveau", "nouvelle", "Nouveau", "nuevo", "nueva",
                            "Nuevo", "Nueva", "nieuw", "Nieuw", "ny", "Ny", "новая", "новый", "Новая", "Новый"})

ACCOUNTING_SOURCES = frozenset({"local_files", "local_csv"})
_HAS_DIGIT = re.compile(r"\d")
_DURATION = re.compile(
    r"^(?:\d{1,3}:)?\d{1,2}:\d{2}(?:[.,]\d+)?$"
    r"|^(?:\d+\s*(?:h|hr|hrs|hours?|min|mins|minutes?|m|s|sec|secs|seconds?|d|days?)\.?\s*){1,4}$",
    re.I,
)
_MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec "
    "januar februar märz april mai juni juli august september oktober november dezember "
    "janvier février mars avril mai juin juillet août septembre octobre novembre décembre "
    "enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre "
    "januari februari maart april mei juni juli augustus september oktober november december "
    "januari februari mars april maj juni juli augusti september oktober november december "
    "января февраля марта апреля мая июня июля августа сентября октября ноября декабря "
    "январь февраль март апрель май июнь июль август сентябрь октябрь ноябрь декабрь "
    "يناير فبراير مارس أبريل إبريل مايو يونيو يوليو أغسطس سبتمبر أكتوبر نوفمبر ديسمبر "
    "كانون شباط آذار نيسان أيار حزيران تموز آب أيلول تشرين"
).split()
_MONTH_RE = "|".join(sorted({re.escape(m) for m in _MONTHS}, key=len, reverse=True))
_DATE = re.compile(
    r"^\d{4}-\d{1,2}-\d{1,2}$"
    r"|^\d{1,2}[./]\d{1,2}[./]\d{2,4}$"
    rf"|^(?:\d{{1,2}}(?:st|nd|rd|th|er|\.)?\s+(?:de\s+)?)?(?:{_MONTH_RE})\.?(?:\s+(?:de\s+)?\d{{1,4}})?(?:,?\s+\d{{4}})?(?:\s*г\.?)?$"
    rf"|^(?:{_MONTH_RE})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?$",
    re.I,
)


def is_null(text: str) -> bool:
    return text.strip() in NULL_MARKERS


@lru_cache(maxsize=65536)
def value_type(text: str, language: str = "en", accounting: bool = False) -> str:
    """The type of one value: integer, decimal, percentage, currency, date, duration or text."""
    t = numbers.normalise_digits(text.strip())
    if not t:
        return "empty"
    if not _HAS_DIGIT.search(t):
        return "text"  # every other type states a number
    if _DURATION.match(t) and not t.isdigit():
        return "duration"
    if _DATE.match(t):
        return "date"
    reading = numbers.read_number(t, language, units=True, accounting=accounting)
    if reading is None:
        return "text"
    if reading.percent:
        return "percentage"
    if reading.currency:
        return "currency"
    return "decimal" if reading.decimals else "integer"


def detect_column_types(table: Table, *, min_share: float = 0.8) -> dict[str, str]:
    language = table.language or "en"
    # Files as companies publish them print losses in parentheses ("(872,454)"); on web pages a bracketed
    # number is a note or a grid slot, so only file tables are read in accounting mode.
    accounting = table.source.kind in ACCOUNTING_SOURCES
    out: dict[str, str] = {}
    for c, key in enumerate(unique_columns(table.columns)):  # the keys of Table.column_types
        counts: Counter[str] = Counter()
        for row in table.rows:
            v = row[c] if c < len(row) else ""
            if is_null(v) or v.strip() in CHANGE_MARKERS:
                continue
            counts[value_type(v, language, accounting)] += 1
        total = sum(counts.values())
        if not total:
            out[key] = "empty"
            continue
        if counts["decimal"] and counts["integer"]:
            counts["decimal"] += counts.pop("integer")
        if counts["currency"] and (counts["decimal"] or counts["integer"]):
            # Reports print the currency on the first and the total row only ("$1,452.4", "44.1", ...).
            counts["currency"] += counts.pop("decimal", 0) + counts.pop("integer", 0)
        kind, n = counts.most_common(1)[0]
        measured = sum(counts[k] for k in ("integer", "decimal", "percentage", "currency"))
        if n < min_share * total and measured >= min_share * total:
            kind, n = "decimal", measured  # amounts of mixed measures ("$1,910" over "4%"): numeric still
        out[key] = kind if n >= min_share * total else "text"
    return out
