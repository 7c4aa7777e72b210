"""Cleaning and size selection of extracted tables, with FreshTab's thresholds as defaults.

`clean_table` returns a cleaned copy of the table or a `Rejection` naming the threshold it failed;
it never raises on a table's content. Steps, in order:

1. citation markers left in text (`[1]`, `[a]`, `[note 2]`, `[citation needed]`) are removed;
2. null markers (`—`, `–`, `n/a`, `?`, ...) become the empty string;
3. body cells longer than `max_cell_chars` are emptied (FreshTab: 140), unless they are numbers;
4. empty rows, mostly-empty columns (more than `max_col_empty_ratio` empty) and constant columns
   (one distinct non-empty value, in a table of at least `constant_min_rows` rows) are dropped;
5. long tables are shortened to `max_rows` rows and to `max_table_chars` characters;
6. the size limits are checked: rows, columns, non-empty cells, share of empty cells.

Dropped rows and columns are also removed from `Table.cells`, whose spans are shrunk to match, so
renderings with merged cells stay consistent with the grid.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from livetab.numbers import parse_number
from livetab.tables import Cell, Table

from livetab_scraper.coltypes import NULL_MARKERS, detect_column_types

__all__ = ["Rejection", "clean_table", "content_hash", "dedupe", "drop_empty", "reindex", "remove_citations"]

_CITATION = re.compile(
    r"\s*\[(?:\d{1,3}|[a-z]{1,2}|[A-Z]|(?:note|nb|n|lower-alpha|upper-alpha)\s*\d{1,3}|citation needed|"
    r"clarification needed|when\?|who\?|which\?|dubious[^\]]{0,20}|update|by whom\?|according to whom\?|"
    r"not in citation given|failed verification|better source needed|original research\??)\]",
    re.I,
)


@dataclass(frozen=True)
class Rejection:
    """Why a table was not kept: the rule it failed, with the measured value and the threshold."""

    reason: str
    table_id: str = ""


def remove_citations(text: str) -> str:
    return _CITATION.sub("", text).strip() if "[" in text else text


def reindex(cells: list[Cell], kept_rows: list[int], kept_cols: list[int], values: list[list[str]]) -> list[Cell]:
    """The original cells restricted to the kept rows and columns of the full grid (header rows first).

    A cell whose slots were all dropped disappears; the others keep their spans over what remains,
    and take their (cleaned) text from `values`, the new full grid.
    """
    if not cells:
        return []
    new_row = {r: i for i, r in enumerate(kept_rows)}
    new_col = {c: i for i, c in enumerate(kept_cols)}
    out: list[Cell] = []
    for cell in cells:
        rows = [new_row[r] for r in range(cell.row, cell.row + cell.rowspan) if r in new_row]
        cols = [new_col[c] for c in range(cell.col, cell.col + cell.colspan) if c in new_col]
        if not rows or not cols:
            continue
        r0, c0 = rows[0], cols[0]
        text = values[r0][c0] if r0 < len(values) and c0 < len(values[r0]) else cell.text
        out.append(Cell(row=r0, col=c0, text=text, rowspan=len(rows), colspan=len(cols), header=cell.header))
    return out


def _rebuild(table: Table, header: list[list[str]], rows: list[list[str]], kept_rows: list[int],
             kept_cols: list[int]) -> Table:
    new = dataclasses.replace(table, header=header, rows=rows, footnotes=list(table.footnotes))
    new.cells = reindex(table.cells, kept_rows, kept_cols, header + rows)
    h = len(header)
    body = [r - h for r in kept_rows if r >= h]  # kept body rows, old indices in their new order
    new.total_rows = [body.index(r) for r in table.total_rows if r in body]  # the same rows, renumbered
    if new.group_column and (not kept_cols or kept_cols[0] != 0):
        new.group_column = ""  # the row-group column (always the first) was dropped
    new.column_types = detect_column_types(new)
    return new


def _width(table: Table) -> int:
    return table.n_cols


def _padded(rows: Iterable[list[str]], width: int) -> list[list[str]]:
    return [r + [""] * (width - len(r)) if len(r) < width else list(r) for r in rows]


def drop_empty(table: Table) -> Table:
    """Only the structural step: drop body rows that are all empty and columns whose body is all empty.

    Spacer rows and colour-swatch columns carry no values; this is the part of cleaning that every
    use of a table wants, without null normalisation or size limits.
    """
    width = _width(table)
    header = _padded(table.header, width)
    body = _padded(table.rows, width)
    h = len(header)
    keep_r = [i for i, r in enumerate(body) if any(v.strip() for v in r)]
    keep_c = [c for c in range(width) if any(body[i][c].strip() for i in keep_r)]
    if len(keep_r) == len(body) and len(keep_c) == width:
        return table
    new_header = [[row[c] for c in keep_c] for row in header]
    new_rows = [[body[i][c] for c in keep_c] for i in keep_r]
    return _rebuild(table, new_header, new_rows, list(range(h)) + [h + i for i in keep_r], keep_c)


def _chars(header: list[list[str]], rows: list[list[str]]) -> int:
    return sum(len(v) + 1 for r in header for v in r) + sum(len(v) + 1 for r in rows for v in r)


def clean_table(
    table: Table,
    *,
    min_rows: int = 5,
    max_rows: int = 50,
    min_cols: int = 3,
    max_cols: int = 10,
    min_non_empty: int = 20,
    max_empty_ratio: float = 0.25,
    max_cell_chars: int = 140,
    max_table_chars: int = 3000,
    max_col_empty_ratio: float = 0.5,
    drop_constant_columns: bool = True,
    constant_min_rows: int = 3,
    null_markers: frozenset[str] = NULL_MARKERS,
    flatten_header: bool = False,
) -> Table | Rejection:
    """A cleaned copy of `table`, or the reason it was rejected (see the module docs for the steps)."""
    tid = table.id
    width = _width(table)
    if width == 0 or not table.rows:
        return Rejection("table is empty", tid)
    header = [[remove_citations(v) for v in r] for r in _padded(table.header, width)]
    body: list[list[str]] = []
    for r in _padded(table.rows, width):
        out_row: list[str] = []
        for v in r:
            v = remove_citations(v)
            if v.strip() in null_markers:
                v = ""
            elif len(v) > max_cell_chars and parse_number(v, table.language, units=True) is None:
                v = ""
            out_row.append(v)
        body.append(out_row)

    keep_r = [i for i, r in enumerate(body) if any(r)]
    n = len(keep_r)
    keep_c: list[int] = []
    for c in range(width):
        col = [body[i][c] for i in keep_r]
        filled = [v for v in col if v]
        if not filled or (n and 1 - len(filled) / n > max_col_empty_ratio):
            continue
        if drop_constant_columns and n >= constant_min_rows and len(filled) == n and len(set(filled)) == 1:
            continue
        keep_c.append(c)
    if len(keep_r) > max_rows:
        keep_r = keep_r[:max_rows]

    def grid(rows_idx: list[int]) -> tuple[list[list[str]], list[list[str]]]:
        return [[row[c] for c in keep_c] for row in header], [[body[i][c] for c in keep_c] for i in rows_idx]

    # Shorten to the character budget: the longest prefix of rows (but at least min_rows) that fits.
    budget = max_table_chars - sum(len(row[c]) + 1 for row in header for c in keep_c)
    used = 0
    for k, i in enumerate(keep_r):
        used += sum(len(body[i][c]) + 1 for c in keep_c)
        if used > budget:
            keep_r = keep_r[: max(k, min_rows)]
            break
    new_header, new_rows = grid(keep_r)

    n_rows, n_cols = len(new_rows), len(keep_c)
    cells = n_rows * n_cols
    non_empty = sum(1 for r in new_rows for v in r if v)
    checks = [
        (n_rows < min_rows, f"{n_rows} rows after cleaning, fewer than min_rows={min_rows}"),
        (n_cols < min_cols, f"{n_cols} columns after cleaning, fewer than min_cols={min_cols}"),
        (n_cols > max_cols, f"{n_cols} columns, more than max_cols={max_cols}"),
        (non_empty < min_non_empty, f"{non_empty} non-empty cells, fewer than min_non_empty={min_non_empty}"),
        (cells > 0 and 1 - non_empty / cells > max_empty_ratio,
         f"{1 - non_empty / max(cells, 1):.0%} empty cells, more than max_empty_ratio={max_empty_ratio:.0%}"),
        (_chars(new_header, new_rows) > max_table_chars,
         f"{_chars(new_header, new_rows)} characters at {n_rows} rows, more than max_table_chars={max_table_chars}"),
    ]
    for failed, reason in checks:
        if failed:
            return Rejection(reason, tid)
    h = len(header)
    cleaned = _rebuild(table, new_header, new_rows, list(range(h)) + [h + i for i in keep_r], keep_c)
    if flatten_header and h > 1:
        cleaned = _flatten(cleaned, h)
    return cleaned


def _flatten(table: Table, h: int) -> Table:
    """One header row of flattened names ("1975–1979 - Obverse") instead of `h` levels."""
    names = table.columns
    cells = [Cell(row=0, col=i, text=name, header=True) for i, name in enumerate(names)]
    for c in table.cells:
        end = c.row + c.rowspan
        if end <= h:
            continue
        start = max(c.row, h)
        cells.append(dataclasses.replace(c, row=start - h + 1, rowspan=end - start))
    table.header = [names]
    table.cells = sorted(cells, key=lambda c: (c.row, c.col))
    return table


def content_hash(table: Table) -> str:
    """A hash of the table's content (header and rows, case and spacing ignored), for deduplication."""
    h = hashlib.sha256()
    for row in [*table.header, ["\x1e"], *table.rows]:
        h.update("\x1f".join(" ".join(v.split()).casefold() for v in row).encode())
        h.update(b"\x1e")
    return h.hexdigest()[:32]


def dedupe(tables: Iterable[Table], seen: set[str] | None = None) -> tuple[list[Table], list[Rejection]]:
    """Keep the first table of each content hash; the later copies come back as rejections."""
    seen = set() if seen is None else seen
    kept: list[Table] = []
    dropped: list[Rejection] = []
    for t in tables:
        key = content_hash(t)
        if key in seen:
            dropped.append(Rejection(f"duplicate content (hash {key})", t.id))
            continue
        seen.add(key)
        kept.append(t)
    return kept, dropped
