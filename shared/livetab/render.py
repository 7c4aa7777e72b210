"""Renderings of a table for prompts and people: CSV, Markdown, HTML, JSON, plain text, and combinations.

`render(table, fmt)` returns the text with its token count and whether rows were cut by `max_rows`.
Formats (TeleTables' set plus two more):

- `csv`: one header line of flattened column names, then the rows (RFC 4180 quoting);
- `markdown`: a pipe table with flattened column names (`|` escaped, line breaks as spaces);
- `html`: a `<table>` with the original cells' `rowspan`/`colspan` and multi-level `<thead>`;
- `json`: `{"caption", "header": <header tree>, "records": [{column: value}], "footnotes"}`;
- `text`: a plain serialisation, one line per row: `row 1: Year is 1989; Result is Won.`;
- any of these joined by `+` (`html+json`): each part in turn, separated by a blank line.

`render_png(table)` draws the table as a PNG image (see `livetab.render_image`).

Token counts use `count_tokens`, a documented approximation of a byte-pair-encoding tokenizer
(no tokenizer files can be downloaded at run time). Pass `tokenizer=` (a callable returning the
token count) to use a real one, e.g. the local model's.
"""

from __future__ import annotations

import csv
import html as html_lib
import io
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from livetab.tables import Cell, Table

__all__ = [
    "FORMATS", "Rendering", "render", "render_png", "count_tokens", "header_tree", "unique_columns", "grid_cells",
]

FORMATS = ("csv", "markdown", "html", "json", "text")

# A word of letters, a run of up to three digits, a run of other symbols, or whitespace.
_PIECES = re.compile(r" ?[^\W\d_]+| ?\d{1,3}| ?[^\s\w]+|\s+", re.UNICODE)
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]+")


@dataclass(frozen=True)
class Rendering:
    text: str
    truncated: bool
    tokens: int
    fmt: str = ""
    rows_shown: int = 0


def count_tokens(text: str) -> int:
    """Approximate token count of a GPT-style byte-pair-encoding tokenizer.

    The text is split the way such tokenizers pre-split it (words with their leading space, digit
    groups of up to three, runs of punctuation, whitespace). A Latin-script word costs one token per
    started 6 letters (common words are single tokens, rare ones split), a word in another script one
    per started 3 letters (Cyrillic and Arabic are split finer by English-centred vocabularies), a
    digit group one token, punctuation one per 2 characters, and whitespace one per run of up to 4.
    On the 50 WikiTableQuestions tables in Markdown it is within about 20% of SmolLM2's tokenizer
    (measured in services/scraper/tests/test_render_tokens.py).
    """
    n = 0
    for m in _PIECES.finditer(text):
        piece = m.group(0)
        core = piece.strip()
        if not core:
            n += math.ceil(len(piece) / 4)
        elif core[0].isdigit():
            n += 1
        elif core[0].isalpha():
            n += math.ceil(len(core) / 6) if _LATIN.fullmatch(core) else math.ceil(len(core) / 3)
        else:
            n += math.ceil(len(core) / 2)
    return n


def unique_columns(names: list[str]) -> list[str]:
    """Column names made unique by suffixing ` (2)`, ` (3)` to repeats (for JSON keys)."""
    seen: dict[str, int] = {}
    out: list[str] = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return out


def header_tree(levels: list[list[str]]) -> list[dict[str, Any]]:
    """The multi-level header as a tree: `[{"label", "columns": [first, last], "children": [...]}]`.

    Adjacent columns with the same label under the same parent form one node (a colspan); a label
    repeated down the levels (a rowspan) appears once.
    """
    if not levels:
        return []
    width = max(len(level) for level in levels)

    def build(depth: int, lo: int, hi: int, parent_label: str | None) -> list[dict[str, Any]]:
        if depth >= len(levels):
            return []
        level = levels[depth]
        nodes: list[dict[str, Any]] = []
        c = lo
        while c < hi:
            label = level[c] if c < len(level) else ""
            end = c + 1
            while end < hi and (level[end] if end < len(level) else "") == label:
                end += 1
            if label == parent_label and end - c == hi - lo:
                return build(depth + 1, lo, hi, label)  # a rowspan: same label one level down
            node: dict[str, Any] = {"label": label, "columns": [c, end - 1]}
            children = build(depth + 1, c, end, label)
            if children:
                node["children"] = children
            nodes.append(node)
            c = end
        return nodes

    return build(0, 0, width, None)


def _clip(table: Table, max_rows: int | None) -> tuple[list[list[str]], bool]:
    rows = table.rows
    if max_rows is not None and len(rows) > max_rows:
        return rows[:max_rows], True
    return rows, False


def _csv(table: Table, rows: list[list[str]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    if table.header:
        w.writerow(table.columns)
    w.writerows(rows)
    return buf.getvalue().rstrip("\n")


def _md_cell(v: str) -> str:
    return " ".join(v.split()).replace("|", "\\|")


def _markdown(table: Table, rows: list[list[str]]) -> str:
    width = table.n_cols
    names = table.columns
    lines = ["| " + " | ".join(_md_cell(n) for n in names) + " |", "|" + "---|" * width]
    for r in rows:
        cells = [*r, *[""] * (width - len(r))]
        lines.append("| " + " | ".join(_md_cell(v) for v in cells) + " |")
    if table.caption:
        lines.insert(0, f"**{_md_cell(table.caption)}**\n")
    return "\n".join(lines)


def grid_cells(table: Table) -> list[Cell]:
    """The table's original cells, or one cell per slot when it has none (tables from CSV files)."""
    if table.cells:
        return table.cells
    out: list[Cell] = []
    h = len(table.header)
    for r, row in enumerate([*table.header, *table.rows]):
        out.extend(Cell(row=r, col=c, text=v, header=r < h) for c, v in enumerate(row))
    return out


def _esc(v: str) -> str:
    return html_lib.escape(v, quote=False).replace("\n", "<br>")


def _html(table: Table, n_body: int) -> str:
    h = len(table.header)
    limit = h + n_body
    by_row: dict[int, list[Cell]] = {}
    for cell in grid_cells(table):
        if cell.row < limit:
            by_row.setdefault(cell.row, []).append(cell)
    out = ["<table>"]
    if table.caption:
        out.append(f"<caption>{_esc(table.caption)}</caption>")
    for r in range(limit):
        if r == 0 and h:
            out.append("<thead>")
        if r == h:
            out.append("<tbody>")
        parts = []
        for cell in sorted(by_row.get(r, []), key=lambda c: c.col):
            tag = "th" if cell.header or r < h else "td"
            attrs = ""
            rowspan = min(cell.rowspan, limit - r)
            if rowspan > 1:
                attrs += f' rowspan="{rowspan}"'
            if cell.colspan > 1:
                attrs += f' colspan="{cell.colspan}"'
            parts.append(f"<{tag}{attrs}>{_esc(cell.text)}</{tag}>")
        out.append("<tr>" + "".join(parts) + "</tr>")
        if r == h - 1:
            out.append("</thead>")
    if limit > h:
        out.append("</tbody>")
    out.append("</table>")
    return "\n".join(out)


def _json(table: Table, rows: list[list[str]]) -> str:
    keys = unique_columns(table.columns)
    doc: dict[str, Any] = {}
    if table.caption:
        doc["caption"] = table.caption
    doc["header"] = header_tree(table.header) if table.header else [{"label": k} for k in keys]
    doc["records"] = [{k: (r[i] if i < len(r) else "") for i, k in enumerate(keys)} for r in rows]
    if table.footnotes:
        doc["footnotes"] = table.footnotes
    return json.dumps(doc, ensure_ascii=False)


def _text(table: Table, rows: list[list[str]]) -> str:
    names = [" ".join(n.split()) for n in table.columns]
    lines = []
    if table.caption:
        lines.append(f"table: {' '.join(table.caption.split())}")
    for i, r in enumerate(rows, 1):
        pairs = [f"{names[c]} is {' '.join(v.split())}" for c, v in enumerate(r) if v.strip() and c < len(names)]
        lines.append(f"row {i}: " + "; ".join(pairs) + ".")
    return "\n".join(lines)


def render(
    table: Table, fmt: str, *, max_rows: int | None = None, tokenizer: Callable[[str], int] | None = None,
) -> Rendering:
    """`table` as `fmt` (one of FORMATS, or several joined by `+`), with its token count."""
    parts = fmt.split("+")
    unknown = [p for p in parts if p not in FORMATS]
    if unknown or not fmt:
        raise ValueError(f"unknown table format {fmt!r}; use one of {', '.join(FORMATS)} or a '+' combination")
    rows, truncated = _clip(table, max_rows)
    texts = []
    for p in parts:
        if p == "csv":
            texts.append(_csv(table, rows))
        elif p == "markdown":
            texts.append(_markdown(table, rows))
        elif p == "html":
            texts.append(_html(table, len(rows)))
        elif p == "json":
            texts.append(_json(table, rows))
        else:
            texts.append(_text(table, rows))
    text = "\n\n".join(texts)
    tokens = tokenizer(text) if tokenizer else count_tokens(text)
    return Rendering(text=text, truncated=truncated, tokens=tokens, fmt=fmt, rows_shown=len(rows))


def render_png(table: Table, *, max_rows: int | None = 40, font_size: int = 14) -> bytes:
    """The table drawn as a PNG image with its merged cells (Pillow; see `livetab.render_image`)."""
    from livetab.render_image import render_png as draw  # Pillow is imported only when an image is wanted

    return draw(table, max_rows=max_rows, font_size=font_size)
