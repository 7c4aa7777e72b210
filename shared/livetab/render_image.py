"""A table drawn as a PNG image with Pillow: one box per original cell, so merged cells show as merged.

Column widths and row heights come from the wrapped text of the cells; a cell spanning several
columns or rows gets one box over all of them, with no inner rule. Header cells are shaded.
Drawing uses DejaVu Sans when the system has it (it covers Latin, Cyrillic and Arabic), else
Pillow's bundled font.
"""

from __future__ import annotations

import io
import textwrap
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from livetab.render import grid_cells
from livetab.tables import Cell, Table

__all__ = ["Box", "layout", "render_png"]

_FONT_PATHS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/local/share/fonts/DejaVuSans.ttf",
)
_HEADER_FILL = (226, 230, 236)
_BODY_FILL = (255, 255, 255)
_LINE = (60, 60, 60)
_TEXT = (0, 0, 0)


@dataclass(frozen=True)
class Box:
    cell: Cell
    x0: int
    y0: int
    x1: int
    y1: int
    lines: tuple[str, ...]


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for p in _FONT_PATHS:
        if Path(p).exists():
            return ImageFont.truetype(p, size)
    return ImageFont.load_default(size=size)


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    for para in text.split("\n") or [""]:
        lines.extend(textwrap.wrap(para, width=width, break_long_words=True) or [""])
    return lines or [""]


def _spread(sizes: list[int], start: int, span: int, need: int) -> None:
    have = sum(sizes[start:start + span])
    if need > have:
        extra = need - have
        for i in range(span):
            sizes[start + i] += extra // span + (1 if i < extra % span else 0)


def layout(
    table: Table, *, max_rows: int | None = 40, font_size: int = 14, max_col_chars: int = 28, padding: int = 6,
) -> tuple[list[Box], int, int]:
    """The boxes to draw (one per cell, plus empty boxes for uncovered slots) and the image size."""
    font = _font(font_size)
    h = len(table.header)
    n_body = table.n_rows if max_rows is None else min(table.n_rows, max_rows)
    n_rows, n_cols = h + n_body, table.n_cols
    cells = [c for c in grid_cells(table) if c.row < n_rows and c.col < n_cols]
    covered = [[False] * n_cols for _ in range(n_rows)]
    clipped: list[Cell] = []
    for c in cells:
        rs, cs = min(c.rowspan, n_rows - c.row), min(c.colspan, n_cols - c.col)
        clipped.append(Cell(row=c.row, col=c.col, text=c.text, rowspan=rs, colspan=cs, header=c.header))
        for r in range(c.row, c.row + rs):
            for k in range(c.col, c.col + cs):
                covered[r][k] = True
    clipped.extend(Cell(row=r, col=k, text="", header=r < h)
                   for r in range(n_rows) for k in range(n_cols) if not covered[r][k])
    line_h = int(font_size * 1.35)
    wrapped = {id(c): _wrap(c.text, max_col_chars * c.colspan) for c in clipped}
    widths = [2 * padding + 8] * n_cols
    heights = [2 * padding + line_h] * n_rows
    for c in sorted(clipped, key=lambda c: (c.colspan, c.rowspan)):
        lines = wrapped[id(c)]
        w = int(max(font.getlength(line) for line in lines)) + 2 * padding
        _spread(widths, c.col, c.colspan, w)
        _spread(heights, c.row, c.rowspan, len(lines) * line_h + 2 * padding)
    xs = [0]
    for w in widths:
        xs.append(xs[-1] + w)
    top = line_h + 2 * padding if table.caption else 0
    ys = [top]
    for hh in heights:
        ys.append(ys[-1] + hh)
    boxes = [Box(c, xs[c.col], ys[c.row], xs[c.col + c.colspan], ys[c.row + c.rowspan], tuple(wrapped[id(c)]))
             for c in clipped]
    return boxes, xs[-1] + 1, ys[-1] + 1


def render_png(
    table: Table, *, max_rows: int | None = 40, font_size: int = 14, max_col_chars: int = 28, padding: int = 6,
) -> bytes:
    """The table as PNG bytes (the first `max_rows` body rows; None for all)."""
    boxes, width, height = layout(table, max_rows=max_rows, font_size=font_size, max_col_chars=max_col_chars,
                                  padding=padding)
    font = _font(font_size)
    line_h = int(font_size * 1.35)
    img = Image.new("RGB", (max(width, 1), max(height, 1)), _BODY_FILL)
    draw = ImageDraw.Draw(img)
    if table.caption:
        draw.text((padding, padding), " ".join(table.caption.split()), fill=_TEXT, font=font)
    for b in boxes:
        fill = _HEADER_FILL if b.cell.header else _BODY_FILL
        draw.rectangle((b.x0, b.y0, b.x1, b.y1), fill=fill, outline=_LINE, width=1)
        for i, line in enumerate(b.lines):
            if line:
                draw.text((b.x0 + padding, b.y0 + padding + i * line_h), line, fill=_TEXT, font=font)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()
