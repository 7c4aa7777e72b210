"""A table read for question generation: a clean string grid, typed columns, and its pandas frame.

The grid is the table's body with every cell stripped and its whitespace collapsed, padded to the
table's width. Column names are the flattened header, whitespace collapsed and made unique. Derivations
run over `dataframe()` (all strings) with the helpers in `NAMESPACE`: `num` (cells as numbers),
`dat` (cells as day numbers), `status` (the one value a lookup finds, or why there is none).
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any

import pandas as pd
from livetab.numbers import normalise_digits, parse_number, read_number
from livetab.rubric.locale import get_locale
from livetab.rubric.text import fold
from livetab.tables import Table
from livetab.total_labels import is_total_label

from livetab_qagen.templates import LocaleError, load_locale

__all__ = [
    "NAMESPACE",
    "Frame",
    "clean_cell",
    "dat",
    "num",
    "parse_date",
    "status",
]

log = logging.getLogger(__name__)

_WS = re.compile(r"\s+")
# A column of shares or rates (its name or unit says so): its rows add up to something only when they
# are the parts of one whole (a distribution summing to 100 % or 1).
_SHARE_WORDS = re.compile(r"%|\bper ?cent|\bpercentage|\brate\b|\bratio\b|\bshare\b|\bproportion|\bper 1[, ]?000|"
                          r"نسبة|النسبة|معدل|لكل", re.I)
_MONTHS = {
    name: i + 1
    for i, names in enumerate([
        ("january", "jan", "يناير", "كانون الثاني"), ("february", "feb", "فبراير", "شباط"),
        ("march", "mar", "مارس", "آذار"), ("april", "apr", "أبريل", "ابريل", "نيسان"),
        ("may", "مايو", "أيار"), ("june", "jun", "يونيو", "حزيران"), ("july", "jul", "يوليو", "تموز"),
        ("august", "aug", "أغسطس", "آب"), ("september", "sep", "sept", "سبتمبر", "أيلول"),
        ("october", "oct", "أكتوبر", "تشرين الأول"), ("november", "nov", "نوفمبر", "تشرين الثاني"),
        ("december", "dec", "ديسمبر", "كانون الأول"),
    ])
    for name in names
}
_ISO = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T]00:00:00)?$")
_MDY = re.compile(r"^([^\W\d_]+)\.?\s+(\d{1,2})\s*,?\s*(\d{4})$")
_DMY = re.compile(r"^(\d{1,2})(?:\.|er|º)?\s+([^\W\d_]+)\.?\s*,?\s*(\d{4})$")
_NUMERIC_DMY = re.compile(r"^(\d{1,2})[./](\d{1,2})[./](\d{4})$")
_EPOCH = dt.date(1970, 1, 1).toordinal()


def _alt(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


@cache
def _structure_words(language: str) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(rank-column name, year-column name, code-column word) patterns: English, Arabic and the table's
    language, from the `frame` section of each question-template pack."""
    words: dict[str, list[str]] = {"index_names": [], "year_words": [], "code_words": []}
    for lang in dict.fromkeys(["en", "ar", language]):
        try:
            section = load_locale(lang).get("frame")
        except LocaleError:
            continue
        for k in words:
            words[k] += [str(w) for w in section.get(k, [])]
    return (re.compile(rf"^({_alt(words['index_names'])})$", re.IGNORECASE),
            re.compile(rf"({_alt(words['year_words'])})", re.IGNORECASE),
            re.compile(rf"(?<!\w)({_alt(words['code_words']) or '(?!)'})(?!\w)", re.IGNORECASE))


def clean_cell(text: object) -> str:
    """A cell's text stripped, with every run of whitespace (newlines included) made one space."""
    return _WS.sub(" ", str(text)).strip()


@cache
def _date_words(language: str) -> tuple[dict[str, int], frozenset[str]]:
    """Month names (folded: English, Arabic and the language's own) and the words dates put between
    their parts ("17 de marzo de 2025", "17 марта 2025 г.")."""
    loc = get_locale(language)
    months = {fold(k): v for k, v in _MONTHS.items()}
    months.update(loc.months)
    return months, loc.date_fillers


def parse_date(text: object, language: str = "en") -> float | None:
    """A full calendar date as a day number (days since 1970-01-01), or None. Years alone are not dates.

    Month names are read in English, Arabic and the table's language; outside English a numeric date
    is day first (17.03.2025, 17/03/2025)."""
    if not isinstance(text, str):
        return None
    s = normalise_digits(clean_cell(text)).casefold()
    s = re.sub(r"(\[[^\]]{1,6}\])+$", "", s).strip()
    year = month = day = 0
    if m := _ISO.match(s):
        year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
    else:
        months, fillers = _date_words(language or "en")
        f = " ".join(w for w in fold(s).split() if w.rstrip(".,") not in fillers)
        if (m := _MDY.match(f)) and m.group(1) in months:
            year, month, day = int(m.group(3)), months[m.group(1)], int(m.group(2))
        elif (m := _DMY.match(f)) and m.group(2) in months:
            year, month, day = int(m.group(3)), months[m.group(2)], int(m.group(1))
        elif language not in ("en", "") and (m := _NUMERIC_DMY.match(f)):
            year, month, day = int(m.group(3)), int(m.group(2)), int(m.group(1))
        else:
            return None
    try:
        return float(dt.date(year, month, day).toordinal() - _EPOCH)
    except ValueError:
        return None


def num(column: pd.Series, language: str = "en") -> pd.Series:
    """A column's cells as floats (NaN where a cell is not a number), read in the table's language."""
    return column.map(lambda v: parse_number(v, language)).astype("float64")


def dat(column: pd.Series, language: str = "en") -> pd.Series:
    """A column's cells as day numbers (NaN where a cell is not a full date)."""
    return column.map(lambda v: parse_date(v, language)).astype("float64")


def status(values: pd.Series) -> str:
    """What a lookup found: the one value, or "insufficient" (none given) or "contradictory" (disagreeing)."""
    found = {v for v in values.tolist() if isinstance(v, str) and v != ""}
    if not found:
        return "insufficient"
    if len(found) > 1:
        return "contradictory"
    return found.pop()


NAMESPACE: dict[str, Callable[..., Any]] = {
    "num": num, "dat": dat, "status": status, "round": round, "len": len, "int": int, "float": float,
    "abs": abs, "bool": bool, "sorted": sorted, "list": list, "set": set, "all": all, "any": any,
}


@dataclass
class Frame:
    """One table prepared for generation. Column facts are computed once, from the grid."""

    table: Table
    names: list[str] = field(init=False)
    grid: list[list[str]] = field(init=False)
    unnamed: frozenset[int] = field(init=False)
    language: str = field(init=False)

    def __post_init__(self) -> None:
        self.language = self.table.language or "en"
        width = self.table.n_cols
        self.grid = [[clean_cell(r[c]) if c < len(r) else "" for c in range(width)] for r in self.table.rows]
        raw = [clean_cell(n) for n in self.table.columns] + [f"column {i + 1}" for i in range(len(self.table.columns), width)]
        names: list[str] = []
        for name in raw[:width]:
            base, k = name or "column", 2
            while name in names or not name:
                name, k = f"{base} ({k})", k + 1
            names.append(name)
        self.names = names
        self.unnamed = frozenset(i for i, n in enumerate(raw[:width]) if not n or n == f"column {i + 1}")

    @property
    def n_rows(self) -> int:
        return len(self.grid)

    @property
    def n_cols(self) -> int:
        return len(self.names)

    def column(self, c: int) -> list[str]:
        return [row[c] for row in self.grid]

    @cached_property
    def group_rows(self) -> frozenset[int]:
        """Section rows: only the first cell filled (TaTA and Wikipedia use them as sub-headings), or one
        text, not a number, in every cell (a full-width row expanded over the columns, as tables
        extracted before the scraper read section rows into `Table.group_column` carry them). Never
        counted as data."""
        if self.n_cols < 2:
            return frozenset()
        return frozenset(r for r, row in enumerate(self.grid) if row[0] and (
            not any(row[1:]) or (all(v == row[0] for v in row[1:]) and parse_number(row[0]) is None)))

    @cached_property
    def total_rows(self) -> frozenset[int]:
        """Rows that summarise the others ("Total", "المجموع", or rows the scraper marked in
        `Table.total_rows`: sums of the rows above): aggregates over such tables are ambiguous."""
        marked = {r for r in self.table.total_rows if 0 <= r < len(self.grid)}  # found by the scraper
        return frozenset(r for r, row in enumerate(self.grid)
                         if r in marked or any(is_total_label(cell, self.language) for cell in row[:3])
                         or self._spanning_label(row))

    def _spanning_label(self, row: list[str]) -> bool:
        """A label spread over the first three cells of a row that goes on with other values ("Abstentions |
        Abstentions | Abstentions | 12 345"): an election table's footer, not an entity."""
        first = row[0]
        return (len(row) > 3 and bool(first) and any(ch.isalpha() for ch in first) and row[1] == first == row[2]
                and any(v != first for v in row[3:]))

    @cached_property
    def data_rows(self) -> list[int]:
        return [r for r in range(self.n_rows) if r not in self.group_rows]

    @cached_property
    def numbers(self) -> list[list[float | None]]:
        return [[parse_number(v, self.language) for v in self.column(c)] for c in range(self.n_cols)]

    @cached_property
    def dates(self) -> list[list[float | None]]:
        return [[parse_date(v, self.language) for v in self.column(c)] for c in range(self.n_cols)]

    @cached_property
    def kinds(self) -> list[str]:
        """Per column: "number", "year", "date", "text" or "empty", judged on the data rows."""
        out: list[str] = []
        for c in range(self.n_cols):
            filled = [r for r in self.data_rows if self.grid[r][c]]
            if len(filled) < 2:
                out.append("empty")
            elif all(self.numbers[c][r] is not None for r in filled):
                values = [self.numbers[c][r] for r in filled]
                years = all(v is not None and v.is_integer() and 1800 <= v <= 2100 for v in values)
                plain = all(len(self.grid[r][c]) == 4 for r in filled)  # "2004", not "2,004" or "2004.0"
                named = bool(_structure_words(self.language)[1].search(self.names[c]))
                out.append("year" if years and (named or plain) else "number")
            elif all(self.dates[c][r] is not None for r in filled):
                out.append("date")
            else:
                out.append("text")
        return out

    def complete(self, c: int) -> bool:
        """Every data row has a value in column c."""
        return all(self.grid[r][c] for r in self.data_rows)

    def is_index(self, c: int) -> bool:
        """A rank or running-number column: no sense in adding it up."""
        if _structure_words(self.language)[0].match(self.names[c]) or (c == 0 and not self.names[c].strip("()0123456789 ").strip()):
            return True
        values = [self.numbers[c][r] for r in self.data_rows]
        return values == [float(i + 1) for i in range(len(values))]

    def additive(self, c: int) -> bool:
        """Whether adding up column c over the data rows means anything: not for a column of shares or
        rates ("النسبة المئوية للأطفال …", "Rate per 1,000", unit "%") unless its rows are the parts of
        one whole (they sum to 100 or to 1); a sum of the shares of different indicators or regions is
        no quantity a reader would ask for."""
        name = self.names[c]
        unit = self.table.column_units.get(name, "")
        if not (_SHARE_WORDS.search(name) or _SHARE_WORDS.search(unit)
                or any("%" in self.grid[r][c] for r in self.data_rows)):
            return True
        key = self.key_column if self.key_column is not None else 0  # long labels name no key, still label
        labels = [self.grid[r][key] for r in self.data_rows] if key != c else []
        if labels and 2 * sum(1 for v in labels if _SHARE_WORDS.search(v)) > len(labels):
            return False  # each row is a share of its own ("النسبة المئوية للنساء …"): not parts of one whole
        total = sum(v for r in self.data_rows if r not in self.total_rows and (v := self.numbers[c][r]) is not None)
        return abs(total - 100) <= 1.5 or abs(total - 1) <= 0.015

    def is_code(self, c: int) -> bool:
        """A column of identifiers by its name ("Production code", "ID"): its digits are no quantity."""
        return bool(_structure_words(self.language)[2].search(self.names[c]))

    def decimals(self, c: int) -> int:
        """The most decimal places any number of a numeric column shows (at most 4)."""
        shown = [n.decimals for r in self.data_rows if (n := read_number(self.grid[r][c], self.language)) is not None]
        return min(max(shown, default=0), 4)

    @cached_property
    def key_column(self) -> int | None:
        """The first column whose data-row values are all present, unique and short: rows are named by it."""
        best: int | None = None
        for c in range(self.n_cols):
            values = [self.grid[r][c] for r in self.data_rows]
            if not values or not all(values) or len(set(values)) != len(values):
                continue
            if max(len(v) for v in values) > 60 or self.is_index(c):
                continue
            if self.kinds[c] == "text" and not all(
                    read_number(v, self.language, units=True, accounting=True) is not None for v in values):
                return c  # a column of amounts as reports print them ("(18)", "$1,452.4") names no row
            if best is None and self.kinds[c] in ("year", "date"):  # a measure ("85 096" votes) names no row
                best = c
        return best

    def value_of(self, r: int, c: int, kind: str) -> float | None:
        return self.dates[c][r] if kind == "date" else self.numbers[c][r]

    def dataframe(self) -> pd.DataFrame:
        """The grid as a pandas frame of strings (a fresh copy each call); `attrs["language"]` tells the
        derivation helpers how to read its numbers and dates."""
        df = pd.DataFrame(self.grid, columns=self.names, dtype=object)
        df.attrs["language"] = self.language
        return df
