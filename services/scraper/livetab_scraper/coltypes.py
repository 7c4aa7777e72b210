"""Typed columns: which columns hold integers, decimals, percentages, currency, dates or durations.

Detection reads the cell texts and never changes them. Numbers are read with the page language's
conventions (`1,234.5` in English is `1.234,5` in German and `1 234,5` in French or Russian);
`parse_number` is the parser, usable by any service.

A column gets a type when at least `min_share` (default 0.8) of its non-empty, non-null values
have it; integers and decimals together make a decimal column. Everything else is `text`, and a
column with no values at all is `empty`.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from livetab.tables import Table

__all__ = [
    "COLUMN_TYPES",
    "NULL_MARKERS",
    "column_keys",
    "detect_column_types",
    "is_null",
    "parse_number",
    "value_type",
]

COLUMN_TYPES = ("integer", "decimal", "percentage", "currency", "date", "duration", "text", "empty")
NULL_MARKERS = frozenset({"", "—", "–", "-", "−", "‒", "―", "n/a", "N/A", "n.a.", "N.A.", "na", "NA", "?", "none",
                          "None", "null", "nil", "—*", "TBD", "TBA", "tbd", "tba", "..", "...", "…", "×", "∅"})

# (decimal separator, thousands separators) per language.
_CONVENTIONS: dict[str, tuple[str, str]] = {
    "en": (".", ","), "ar": (".", ","), "zh": (".", ","), "ja": (".", ","), "ko": (".", ","), "he": (".", ","),
    "de": (",", ". '\u00a0\u202f"), "nl": (",", ". \u00a0"), "es": (",", ". \u00a0\u202f"),
    "it": (",", ". \u00a0"), "pt": (",", ". \u00a0"), "da": (",", ". \u00a0"), "id": (",", "."),
    "fr": (",", " \u00a0\u202f."), "ru": (",", " \u00a0\u202f"), "sv": (",", " \u00a0\u202f"),
    "pl": (",", " \u00a0\u202f"), "uk": (",", " \u00a0\u202f"), "cs": (",", " \u00a0\u202f"),
    "fi": (",", " \u00a0\u202f"), "no": (",", " \u00a0\u202f"), "nb": (",", " \u00a0\u202f"),
    "de-ch": (".", "'’ \u00a0"),
}
_ARABIC_DIGITS = str.maketrans("٠١٢٣٤٥٦٧٨٩۰۱۲۳۴۵۶۷۸۹", "01234567890123456789")
_MINUS = "-−–‒"
_HAS_DIGIT = re.compile(r"\d")
_CURRENCY = re.compile(
    r"^(?:US\$|A\$|C\$|NZ\$|HK\$|R\$|\$|€|£|¥|₹|₽|₩|₺|₪|₴|CHF|EUR|USD|GBP|JPY|SEK|NOK|DKK|RUB|SAR|AED|kr\.?|Rs\.?)\s*"
    r"|\s*(?:€|£|\$|₽|kr\.?|zł|руб\.?|SEK|EUR|USD|CHF|ريال|درهم|جنيه)$"
)
_SCALE = re.compile(r"\s*(million|billion|thousand|m|bn|k|Mio\.?|Mrd\.?|млн|млрд|مليون|مليار)$", re.I)
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


@lru_cache(maxsize=64)
def _number_re(language: str) -> re.Pattern[str]:
    lang = language.lower()
    dec, groups = _CONVENTIONS.get(lang, _CONVENTIONS.get(lang.split("-")[0], (".", ",")))
    g = "[" + re.escape(groups) + "]"
    d = re.escape(dec)
    return re.compile(rf"^[{_MINUS}+]?(?:\d{{1,3}}(?:{g}\d{{3}})+|\d+)(?:{d}\d+)?$|^[{_MINUS}+]?{d}\d+$")


def _decimal_sep(language: str) -> str:
    lang = language.lower()
    return _CONVENTIONS.get(lang, _CONVENTIONS.get(lang.split("-")[0], (".", ",")))[0]


def is_null(text: str) -> bool:
    return text.strip() in NULL_MARKERS


def _strip_number(text: str) -> str:
    t = text.strip()
    if t.isascii():
        return t
    return t.translate(_ARABIC_DIGITS).replace("٫", ".").replace("٬", ",")


def parse_number(text: str, language: str = "en") -> float | None:
    """The number a cell states, read with the language's separators; None if it is not a plain number.

    Accepts a sign (`-`, `−`, `+`), thousands separators, a decimal part, a trailing `%`, a currency
    symbol or code before or after, and a scale word (`million`, `Mio.`, `млн`, ...), which is
    applied. Arabic-Indic digits are read too.
    """
    t = _strip_number(text)
    if not t or len(t) > 64:
        return None
    t = _CURRENCY.sub("", t).strip()
    t = t.rstrip("%").strip()
    scale = 1.0
    m = _SCALE.search(t)
    if m and m.start() > 0:
        word = m.group(1).lower()
        scale = 1e9 if word in ("billion", "bn", "mrd", "mrd.", "млрд", "مليار") else (
            1e3 if word in ("thousand", "k") else 1e6)
        t = t[: m.start()].strip()
    if not _number_re(language).match(t):
        return None
    neg = t[0] in _MINUS
    if t[0] in _MINUS or t[0] == "+":
        t = t[1:]
    dec = _decimal_sep(language)
    if dec in t:
        whole, frac = t.rsplit(dec, 1)
    else:
        whole, frac = t, ""
    digits = "".join(ch for ch in whole if ch.isdigit())
    value = float(f"{digits or '0'}.{frac or '0'}") * scale
    return -value if neg else value


@lru_cache(maxsize=65536)
def value_type(text: str, language: str = "en") -> str:
    """The type of one value: integer, decimal, percentage, currency, date, duration or text."""
    t = _strip_number(text)
    if not t:
        return "empty"
    if not _HAS_DIGIT.search(t):
        return "text"  # every other type states a number
    if _DURATION.match(t) and not t.isdigit():
        return "duration"
    if _DATE.match(t):
        return "date"
    if parse_number(t, language) is None:
        return "text"
    if t.endswith("%") or t.startswith("%"):
        return "percentage"
    if _CURRENCY.search(t):
        return "currency"
    core = _SCALE.sub("", t)
    return "decimal" if _decimal_sep(language) in core else "integer"


def column_keys(table: Table) -> list[str]:
    """The keys of `Table.column_types`: the column names, a repeated name suffixed ` (2)`, ` (3)`..."""
    seen: Counter[str] = Counter()
    keys: list[str] = []
    for name in table.columns:
        seen[name] += 1
        keys.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return keys


def detect_column_types(table: Table, *, min_share: float = 0.8) -> dict[str, str]:
    language = table.language or "en"
    out: dict[str, str] = {}
    for c, key in enumerate(column_keys(table)):
        counts: Counter[str] = Counter()
        for row in table.rows:
            v = row[c] if c < len(row) else ""
            if is_null(v):
                continue
            counts[value_type(v, language)] += 1
        total = sum(counts.values())
        if not total:
            out[key] = "empty"
            continue
        if counts["decimal"] and counts["integer"]:
            counts["decimal"] += counts.pop("integer")
        kind, n = counts.most_common(1)[0]
        out[key] = kind if n >= min_share * total else "text"
    return out
