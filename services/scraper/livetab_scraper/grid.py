"""Rowspan/colspan expansion: the HTML table model turned into a rectangular grid.

Follows the HTML table-processing algorithm: each cell goes to the first free slot of its row,
occupying `rowspan` x `colspan` slots. Spans that run past the end of the table are clipped,
overlapping spans keep the slot's first owner, short rows are padded with empty strings; each of
these repairs is reported as a warning, so a sloppy table still gives a faithful grid and a record
of what was wrong with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from livetab.tables import Cell

__all__ = ["MAX_COLSPAN", "MAX_ROWSPAN", "Grid", "GridError", "RawCell", "expand", "parse_span"]

MAX_COLSPAN = 1000  # the HTML standard's limits
MAX_ROWSPAN = 65534
_LEADING_INT = re.compile(r"\s*\+?(\d+)")


class GridError(ValueError):
    """The table cannot be expanded within the limits (e.g. spans that would make it enormous)."""


@dataclass(frozen=True)
class RawCell:
    text: str
    rowspan: int = 1  # 0 means "to the end of the table"
    colspan: int = 1
    header: bool = False
    bold: bool = False  # the whole value is bold (a header written with <td><b>..</b></td>)


@dataclass
class Grid:
    values: list[list[str]]
    header_flags: list[list[bool]]  # slot filled by a header cell (th), own or spanned into
    cells: list[Cell]  # the original cells, spans clipped to the grid
    origin: list[list[int]]  # index into `cells` of the cell owning each slot (-1: padding)
    warnings: list[str] = field(default_factory=list)

    @property
    def n_rows(self) -> int:
        return len(self.values)

    @property
    def n_cols(self) -> int:
        return len(self.values[0]) if self.values else 0


def parse_span(value: str | None, *, limit: int, zero_ok: bool) -> tuple[int, bool]:
    """The span a `rowspan`/`colspan` attribute asks for and whether the attribute was malformed."""
    if value is None:
        return 1, False
    m = _LEADING_INT.match(value)
    if not m:
        return 1, True
    n = int(m.group(1)[:9])
    if n == 0:
        return (0, False) if zero_ok else (1, True)
    if n > limit:
        return limit, True
    return n, False


def expand(rows: list[list[RawCell]], *, max_slots: int = 2_000_000) -> Grid:
    n_rows = len(rows)
    values: list[list[str | None]] = [[] for _ in range(n_rows)]
    flags: list[list[bool]] = [[] for _ in range(n_rows)]
    origin: list[list[int]] = [[] for _ in range(n_rows)]
    cells: list[Cell] = []
    warnings: list[str] = []
    clipped = overlaps = 0
    slots = 0
    for r, row in enumerate(rows):
        c = 0
        vr = values[r]
        for raw in row:
            while c < len(vr) and vr[c] is not None:
                c += 1
            rs = n_rows - r if raw.rowspan == 0 else raw.rowspan
            if r + rs > n_rows:
                rs = n_rows - r
                clipped += 1
            cs = max(1, raw.colspan)
            slots += rs * cs
            if slots > max_slots:
                raise GridError(f"spans expand to more than {max_slots} slots")
            idx = len(cells)
            cells.append(Cell(row=r, col=c, text=raw.text, rowspan=rs, colspan=cs, header=raw.header))
            for dr in range(rs):
                tv, tf, to = values[r + dr], flags[r + dr], origin[r + dr]
                need = c + cs - len(tv)
                if need > 0:
                    tv.extend([None] * need)
                    tf.extend([False] * need)
                    to.extend([-1] * need)
                for dc in range(c, c + cs):
                    if tv[dc] is None:
                        tv[dc] = raw.text
                        tf[dc] = raw.header
                        to[dc] = idx
                    else:
                        overlaps += 1
            c += cs
    width = max((len(v) for v in values), default=0)
    if width * n_rows > max_slots:
        raise GridError(f"grid of {n_rows} x {width} exceeds {max_slots} slots")
    padded = 0
    out: list[list[str]] = []
    for vr, fr, orr in zip(values, flags, origin, strict=True):
        row_out: list[str] = []
        for v in vr:
            if v is None:
                padded += 1
                row_out.append("")
            else:
                row_out.append(v)
        if len(row_out) < width:
            padded += width - len(row_out)
            row_out.extend([""] * (width - len(row_out)))
            fr.extend([False] * (width - len(fr)))
            orr.extend([-1] * (width - len(orr)))
        out.append(row_out)
    if clipped:
        warnings.append(f"{clipped} rowspan(s) ran past the last row and were clipped")
    if overlaps:
        warnings.append(f"{overlaps} slot(s) claimed by overlapping spans; the first owner kept")
    if padded:
        warnings.append(f"{padded} missing slot(s) in short rows filled with empty strings")
    return Grid(out, flags, cells, origin, warnings)
