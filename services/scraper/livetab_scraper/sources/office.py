"""Readers for office documents: XLSX workbooks (openpyxl) and DOCX tables (python-docx + the raw XML).

Merged cells are kept: XLSX merged ranges and DOCX `w:gridSpan` (columns) / `w:vMerge` (rows) become
spans on the original cells; header rows are those the document marks (`w:tblHeader`) or, failing
that, the leading rows that group columns or span down (multi-level headers). A DOCX row that is one
cell across the table at its end and starts with "NOTE" is a footnote, as in 3GPP specifications.
"""

from __future__ import annotations

import io
import logging
import re
from datetime import date, datetime, time
from typing import Any, cast

from livetab_scraper.sources.cellgrid import (
    FileReadError,
    ParsedFile,
    ParsedTable,
    RawCell,
    auto_header_rows,
    split_title_row,
)

__all__ = ["read_docx", "read_xlsx"]

log = logging.getLogger(__name__)

_NOTE = re.compile(r"^(NOTES?|Notes?|Anmerkung|Remarque|Nota)\b\s*\d*\s*[:.]?|^\*|^\(?\d+\)\s")
_CAPTION = re.compile(r"^(Table|Tabelle|Tableau|Tabla|Таблица|Tabel|Tabell|جدول)\b", re.I)


def _header_rows(cells: list[RawCell], configured: int | None, marked: int = 0) -> int:
    return configured if configured is not None else auto_header_rows(cells, marked)


# ---------------------------------------------------------------- XLSX


def _xlsx_text(value: Any, number_format: str) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return value.date().isoformat() if value.time() == time(0) else value.isoformat(sep=" ")
    if isinstance(value, (date, time)):
        return value.isoformat()
    if isinstance(value, (int, float)):
        if "%" in number_format:
            return f"{value * 100:.10g}%"
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        return f"{value:.15g}" if isinstance(value, float) else str(value)
    return str(value).strip()


def read_xlsx(data: bytes, *, header_rows: int | None = None) -> ParsedFile:
    """One table per non-empty worksheet; an empty sheet is a recorded problem."""
    import openpyxl

    try:
        wb = openpyxl.load_workbook(io.BytesIO(data), data_only=True)
    except Exception as e:  # openpyxl raises many types on damaged files; the reason is recorded
        raise FileReadError(f"is not a readable XLSX workbook ({type(e).__name__}: {e})") from None
    out = ParsedFile(extra={"sheets": str(len(wb.worksheets))})
    for ws in wb.worksheets:
        texts: dict[tuple[int, int], str] = {}
        for row in ws.iter_rows():
            for cell in row:
                text = _xlsx_text(cell.value, cell.number_format or "")
                if text and cell.row is not None and cell.column is not None:
                    texts[(cell.row, cell.column)] = text
        if not texts:
            out.problems.append(f"sheet {ws.title!r} is empty")
            continue
        merges = [m for m in ws.merged_cells.ranges if (m.min_row, m.min_col) in texts]
        r0 = min(r for r, _ in texts)
        c0 = min(c for _, c in texts)
        r1 = max([r for r, _ in texts] + [m.max_row for m in merges])
        c1 = max([c for _, c in texts] + [m.max_col for m in merges])
        covered: set[tuple[int, int]] = set()
        spans: dict[tuple[int, int], tuple[int, int]] = {}
        for m in ws.merged_cells.ranges:
            spans[(m.min_row, m.min_col)] = (min(m.max_row, r1) - m.min_row + 1, min(m.max_col, c1) - m.min_col + 1)
            covered.update((r, c) for r in range(m.min_row, m.max_row + 1) for c in range(m.min_col, m.max_col + 1)
                           if (r, c) != (m.min_row, m.min_col))
        cells = []
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                if (r, c) in covered:
                    continue
                rs, cs = spans.get((r, c), (1, 1))
                cells.append(RawCell(r - r0, c - c0, texts.get((r, c), ""), rs, cs))
        caption, cells = split_title_row(cells)
        if len({c.row for c in cells}) < 2:
            out.problems.append(f"sheet {ws.title!r} has a single row: a header but no data rows")
            continue
        out.tables.append(ParsedTable(cells, _header_rows(cells, header_rows), name=ws.title, caption=caption))
    if not wb.worksheets:
        raise FileReadError("the workbook has no worksheets")
    return out


# ---------------------------------------------------------------- DOCX


def _w(tag: str) -> str:
    from docx.oxml.ns import qn

    return str(qn(f"w:{tag}"))


def _attr(el: Any, child: str, default: str | None = None) -> str | None:
    """The `w:val` of `el/w:child`, '' when the child has no value, `default` when there is no child."""
    if el is None:
        return default
    node = el.find(_w(child))
    if node is None:
        return default
    val = node.get(_w("val"))
    return "" if val is None else str(val)


def _para_text(p: Any) -> str:
    from docx.text.paragraph import Paragraph

    return str(Paragraph(p, cast(Any, None)).text).strip()


def _children(el: Any, tag: str) -> list[Any]:
    """Direct children with `tag`, looking through content controls (`w:sdt/w:sdtContent`)."""
    out = []
    for child in el:
        if child.tag == _w(tag):
            out.append(child)
        elif child.tag in (_w("sdt"), _w("customXml")):
            content = child.find(_w("sdtContent"))
            out.extend(_children(content if content is not None else child, tag))
    return out


def _cell_text(tc: Any, notes: list[str], where: str) -> str:
    parts = []
    for child in tc:
        if child.tag == _w("p"):
            parts.append(_para_text(child))
        elif child.tag == _w("tbl"):
            nested = [_para_text(p) for p in child.iter(_w("p"))]
            parts.append(" ".join(t for t in nested if t))
            notes.append(f"{where} holds a nested table; its text was kept, flattened")
    return " ".join(t for t in parts if t)


def _docx_table(tbl: Any, index: int, notes: list[str]) -> tuple[list[RawCell], int]:
    cells: list[RawCell] = []
    open_merge: dict[int, RawCell] = {}
    marked = 0
    header_run = True
    for r, tr in enumerate(_children(tbl, "tr")):
        trpr = tr.find(_w("trPr"))
        is_header = _attr(trpr, "tblHeader") not in (None, "0", "false", "off")
        if header_run and is_header:
            marked += 1
        else:
            header_run = False
        col = int(_attr(trpr, "gridBefore", "0") or 0)
        for tc in _children(tr, "tc"):
            tcpr = tc.find(_w("tcPr"))
            span = max(1, int(_attr(tcpr, "gridSpan", "1") or 1))
            vmerge = _attr(tcpr, "vMerge")
            where = f"table {index} row {r} column {col}"
            if vmerge in ("", "continue"):
                above = open_merge.get(col)
                if above is not None and above.row + above.rowspan == r:
                    above.rowspan += 1
                    col += span
                    continue
                notes.append(f"{where}: continues a vertical merge that has no start; kept as its own cell")
            cell = RawCell(r, col, _cell_text(tc, notes, where), 1, span)
            cells.append(cell)
            for k in range(col, col + span):
                open_merge.pop(k, None)
            if vmerge == "restart":
                open_merge[col] = cell
            col += span
    return cells, marked


def _fill_gaps(cells: list[RawCell], notes: list[str], index: int) -> list[RawCell]:
    """Rows shorter than the table (gridAfter, damaged files) get empty cells so the grid is whole."""
    n_rows = max((c.row + c.rowspan for c in cells), default=0)
    n_cols = max((c.col + c.colspan for c in cells), default=0)
    taken = {(r, k) for c in cells for r in range(c.row, c.row + c.rowspan) for k in range(c.col, c.col + c.colspan)}
    gaps = [RawCell(r, k, "") for r in range(n_rows) for k in range(n_cols) if (r, k) not in taken]
    if gaps:
        notes.append(f"table {index}: {len(gaps)} grid positions had no cell and were left empty")
    return cells + gaps


def _footnote_rows(cells: list[RawCell]) -> tuple[list[RawCell], list[str]]:
    n_cols = max((c.col + c.colspan for c in cells), default=0)
    notes: list[str] = []
    while True:
        last = max((c.row for c in cells), default=-1)
        row = [c for c in cells if c.row == last]
        if last < 2 or len(row) != 1 or row[0].colspan != n_cols or not _NOTE.match(row[0].text):
            return cells, notes
        notes.insert(0, row[0].text)
        cells = [c for c in cells if c.row != last]


def read_docx(data: bytes, *, header_rows: int | None = None) -> ParsedFile:
    """Every top-level table of the document body, with its caption (the preceding 'Table …' paragraph)."""
    import docx

    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as e:  # python-docx raises many types on damaged files; the reason is recorded
        raise FileReadError(f"is not a readable DOCX document ({type(e).__name__}: {e})") from None
    out = ParsedFile()
    last_para = ""
    last_style = ""
    index = 0
    for el in document.element.body.iterchildren():
        for node in ([el] if el.tag in (_w("p"), _w("tbl")) else _children(el, "p") + _children(el, "tbl")):
            if node.tag == _w("p"):
                text = _para_text(node)
                if text:
                    last_para, last_style = text, _attr(node.find(_w("pPr")), "pStyle", "") or ""
                continue
            cells, marked = _docx_table(node, index, out.notes)
            caption = last_para if (_CAPTION.match(last_para) or last_style.lower() in ("caption", "th")) else ""
            last_para = ""
            index += 1
            if not cells:
                out.problems.append(f"table {index - 1} has no cells")
                continue
            cells = _fill_gaps(cells, out.notes, index - 1)
            cells, footnotes = _footnote_rows(cells)
            title, cells = split_title_row(cells)
            if title and marked:
                marked -= 1
            if len({c.row for c in cells}) < 2:
                out.problems.append(f"table {index - 1} has a single row: a header but no data rows")
                continue
            out.tables.append(ParsedTable(cells, _header_rows(cells, header_rows, marked), name=str(index - 1),
                                          caption=caption or title, footnotes=footnotes))
    if index == 0:
        raise FileReadError("the document has no tables")
    return out
