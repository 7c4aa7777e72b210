"""Turn a grid of original cells (with row and column spans) into a `livetab.tables.Table`.

File readers (XLSX, DOCX, Markdown, CSV, JSON) describe what they read as `RawCell`s placed on a grid;
this module expands the spans (every covered slot gets the cell's text, so every row has `n_cols`
values), decides how many leading rows are header rows, and keeps the original cells beside the
expanded grid so renderings can draw the merged cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from livetab.ids import table_id
from livetab.tables import Cell, Table
from livetab.tables import Source as SourceMeta

__all__ = [
    "MAX_HEADER_ROWS",
    "FileReadError",
    "ParsedFile",
    "ParsedTable",
    "RawCell",
    "auto_header_rows",
    "build_table",
    "plain_cells",
    "split_title_row",
]

MAX_HEADER_ROWS = 4


@dataclass
class RawCell:
    row: int
    col: int
    text: str
    rowspan: int = 1
    colspan: int = 1


class FileReadError(Exception):
    """A whole file could not be read; the message says why in words a person can act on."""


@dataclass
class ParsedTable:
    cells: list[RawCell]
    header_rows: int
    name: str = ""
    caption: str = ""
    footnotes: list[str] = field(default_factory=list)


@dataclass
class ParsedFile:
    tables: list[ParsedTable] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # parts that gave nothing, each with its reason
    notes: list[str] = field(default_factory=list)  # repairs and observations about what was kept
    extra: dict[str, str] = field(default_factory=dict)  # e.g. encoding, delimiter


def plain_cells(rows: Sequence[Sequence[str]]) -> list[RawCell]:
    """Cells of a grid without spans (CSV, JSON, Markdown)."""
    return [RawCell(r, c, str(v)) for r, row in enumerate(rows) for c, v in enumerate(row)]


def _dims(cells: Sequence[RawCell]) -> tuple[int, int]:
    n_rows = max((c.row + c.rowspan for c in cells), default=0)
    n_cols = max((c.col + c.colspan for c in cells), default=0)
    return n_rows, n_cols


def auto_header_rows(cells: Sequence[RawCell], marked: int = 0) -> int:
    """How many leading rows are header rows.

    `marked` rows flagged as headers by the document (DOCX `w:tblHeader`) win. Otherwise one header
    row, extended while a header cell spans down into the next row, or a header row groups columns
    under a cell spanning several of them (but not all: that is a title row) — the multi-level case.
    """
    n_rows, n_cols = _dims(cells)
    if marked:
        return min(marked, max(n_rows - 1, 1))
    h = 1
    while h < min(MAX_HEADER_ROWS, n_rows - 1):
        in_header = [c for c in cells if c.row < h]
        spans_down = any(c.row + c.rowspan > h for c in in_header)
        groups = any(1 < c.colspan < n_cols for c in cells if c.row == h - 1)
        if not (spans_down or groups):
            break
        h += 1
    return h


def split_title_row(cells: Sequence[RawCell]) -> tuple[str, list[RawCell]]:
    """A first row that is one cell across the whole width is a title: return it as the caption."""
    n_rows, n_cols = _dims(cells)
    first = [c for c in cells if c.row == 0]
    if n_rows > 2 and n_cols > 1 and len(first) == 1 and first[0].colspan == n_cols and first[0].rowspan == 1:
        rest = [RawCell(c.row - 1, c.col, c.text, c.rowspan, c.colspan) for c in cells if c.row > 0]
        return first[0].text, rest
    return "", list(cells)


def build_table(cells: Sequence[RawCell], header_rows: int, *, meta: SourceMeta, language: str, domain: str,
                caption: str = "", footnotes: Sequence[str] = ()) -> Table:
    """Expand spans into a full grid and split it into header levels and body rows."""
    n_rows, n_cols = _dims(cells)
    grid = [["" for _ in range(n_cols)] for _ in range(n_rows)]
    for c in cells:
        for r in range(c.row, c.row + c.rowspan):
            for k in range(c.col, c.col + c.colspan):
                grid[r][k] = c.text
    header_rows = max(0, min(header_rows, n_rows))
    out_cells = [Cell(row=c.row, col=c.col, text=c.text, rowspan=c.rowspan, colspan=c.colspan,
                      header=c.row < header_rows) for c in sorted(cells, key=lambda x: (x.row, x.col))]
    return Table(id=table_id(meta.uri, meta.revision, meta.table_index), source=meta,
                 header=grid[:header_rows], rows=grid[header_rows:], language=language, domain=domain,
                 caption=caption, cells=out_cells, footnotes=list(footnotes))
