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
from functools import cached_property
from typing import Any

import pandas as pd
from livetab.numbers import normalise_digits, parse_number, read_number
from livetab.tables import Table

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
_DMY = re.compile(r"^(\d{1,2})\s+([^\W\d_]+)\.?\s*,?\s*(\d{4})$")
_TOTAL = re.compile(r"^(total|totals|sum|overall|grand total|المجموع|الإجمالي|إجمالي|المجموع الكلي)\b", re.IGNORECASE)
_INDEX_NAMES = re.compile(r"^(rank|no\.?|#|pos\.?|position|pl\.?|seed|rk|n°|الترتيب|المركز|الرقم|م)$", re.IGNORECASE)
_YEAR_NAMES = re.compile(r"(year|season|السنة|العام|سنة|عام)", re.IGNORECASE)
_EPOCH = dt.date(1970, 1, 1).toordinal()


def clean_cell(text: object) -> str:
    """A cell's text stripped, with every run of whitespace (newlines included) made one space."""
    return _WS.sub(" ", str(text)).strip()


def parse_date(text: object) -> float | None:
    """A full calendar date as a day number (days since 1970-01-01), or None. Years alone are not dates."""
    if not isinstance(text, str):
        return None
    s = normalise_digits(clean_cell(text)).casefold()
    s = re.sub(r"(\[[^\]]{1,6}\])+$", "", s).strip()
    year = month = day = 0
    if m := _ISO.match(s):
        year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
    elif (m := _MDY.match(s)) and m.group(1) in _MONTHS:
        year, month, day = int(m.group(3)), _MONTHS[m.group(1)], int(m.group(2))
    elif (m := _DMY.match(s)) and m.group(2) in _MONTHS:
        year, month, day = int(m.group(3)), _MONTHS[m.group(2)], int(m.group(1))
    else:
        return None
    try:
        return float(dt.date(year, month, day).toordinal() - _EPOCH)
    except ValueError:
        return None


def num(column: pd.Series) -> pd.Series:
    """A column's cells as floats (NaN where a cell is not a number)."""
    return column.map(parse_number).astype("float64")


def dat(column: pd.Series) -> pd.Series:
    """A column's cells as day numbers (NaN where a cell is not a full date)."""
    return column.map(parse_date).astype("float64")


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

    def __post_init__(self) -> None:
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
        """Rows that summarise the others ("Total", "المجموع"): aggregates over such tables are ambiguous."""
        return frozenset(r for r, row in enumerate(self.grid) if any(_TOTAL.match(cell) for cell in row[:3]))

    @cached_property
    def data_rows(self) -> list[int]:
        return [r for r in range(self.n_rows) if r not in self.group_rows]

    @cached_property
    def numbers(self) -> list[list[float | None]]:
        return [[parse_number(v) for v in self.column(c)] for c in range(self.n_cols)]

    @cached_property
    def dates(self) -> list[list[float | None]]:
        return [[parse_date(v) for v in self.column(c)] for c in range(self.n_cols)]

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
                named = bool(_YEAR_NAMES.search(self.names[c]))
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
        if _INDEX_NAMES.match(self.names[c]) or (c == 0 and not self.names[c].strip("()0123456789 ").strip()):
            return True
        values = [self.numbers[c][r] for r in self.data_rows]
        return values == [float(i + 1) for i in range(len(values))]

    def decimals(self, c: int) -> int:
        """The most decimal places any number of a numeric column shows (at most 4)."""
        shown = [n.decimals for r in self.data_rows if (n := read_number(self.grid[r][c])) is not None]
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
            if self.kinds[c] == "text":
                return c
            if best is None:
                best = c
        return best

    def value_of(self, r: int, c: int, kind: str) -> float | None:
        return self.dates[c][r] if kind == "date" else self.numbers[c][r]

    def dataframe(self) -> pd.DataFrame:
        """The grid as a pandas frame of strings (a fresh copy each call)."""
        return pd.DataFrame(self.grid, columns=self.names, dtype=object)
