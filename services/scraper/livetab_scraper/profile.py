"""A table's structure profile along TeleTables' dimensions.

- size class: `small` (at most 5 rows and 4 columns), `large` (more than 20 rows or more than 8
  columns), otherwise `medium`;
- multi-level header (more than one header row), grouped rows (a body cell with a rowspan, or row
  groups read from section rows: `Table.group_column`),
  footnotes present;
- content types, multi-label: `numeric` (numbers in the page's convention), `prose` (sentences of
  eight words or more), `categorical` (short codes or labels repeated down a column), `math`
  (formulas: operators between operands, or mathematical symbols), `bits` (bit strings).
"""

from __future__ import annotations

import re

from livetab.numbers import parse_number
from livetab.tables import Profile, Table

from livetab_scraper.coltypes import is_null

__all__ = ["CONTENT_TYPES", "profile_table", "size_class"]

CONTENT_TYPES = ("numeric", "prose", "categorical", "math", "bits")
_CODE = re.compile(r"^[A-Z][A-Z0-9]*(?:[-_/.][A-Z0-9]+)*$")
_MATH = re.compile(
    r"[∑∏√∫∂∆≤≥≠≈∞±⌈⌉⌊⌋∈∉⊂⊆∪∩]"
    r"|(?:[A-Za-z0-9)\]]\s*(?:=|\^|\*|×|·|mod)\s*[A-Za-z0-9(\[])"
    r"|\b(?:log|ln|exp|sin|cos|floor|ceil|min|max)\s*\(",
)
_BITS = re.compile(r"^(?:0b)?[01]{4,}$|^(?:[01][ ,]){3,}[01]$|^'[01]+'B$")
_NUMBER_WITH_UNIT = re.compile(r"^[-−+]?\d[\d.,\s]*\s*[^\d\s]{1,6}$")


def size_class(n_rows: int, n_cols: int) -> str:
    if n_rows <= 5 and n_cols <= 4:
        return "small"
    if n_rows > 20 or n_cols > 8:
        return "large"
    return "medium"


def _content_types(table: Table) -> list[str]:
    language = table.language or "en"
    found: set[str] = set()
    width = table.n_cols
    for c in range(width):
        values = [r[c] for r in table.rows if c < len(r) and not is_null(r[c])]
        if not values:
            continue
        short = 0
        for v in values:
            if "numeric" not in found and (parse_number(v, language, units=True) is not None or _NUMBER_WITH_UNIT.match(v)):
                found.add("numeric")
            if "prose" not in found and len(v.split()) >= 8:
                found.add("prose")
            if "math" not in found and _MATH.search(v):
                found.add("math")
            if "bits" not in found and _BITS.match(v.strip()):
                found.add("bits")
            if "categorical" not in found and _CODE.match(v.strip()) and len(v.strip()) <= 12:
                if parse_number(v, language, units=True) is None:
                    found.add("categorical")
            short += len(v.split()) <= 3 and parse_number(v, language, units=True) is None
        if "categorical" not in found and len(values) >= 4 and short == len(values):
            if len(set(values)) <= len(values) / 2:
                found.add("categorical")
    return [t for t in CONTENT_TYPES if t in found]


def profile_table(table: Table) -> Profile:
    h = len(table.header)
    grouped = bool(table.group_column) or any(c.rowspan > 1 and c.row >= h for c in table.cells)
    return Profile(
        size_class=size_class(table.n_rows, table.n_cols),
        multi_level_header=h > 1,
        grouped_rows=grouped,
        footnotes=bool(table.footnotes),
        content_types=_content_types(table),
        n_rows=table.n_rows,
        n_cols=table.n_cols,
    )
