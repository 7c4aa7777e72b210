"""Tables out of Wikipedia HTML (old `action=render` bodies and current Parsoid/REST HTML alike).

`extract_tables` parses the page once with lxml, picks the data tables (every `class="wikitable"`
by default), expands their spans into a rectangular grid, decides which leading rows form the
header, separates footnote markers from cell values and looks up the notes they point at.
Nothing on a page makes it raise: a page or table it cannot use is reported in `errors` with the
reason, and repairs it made (clipped spans, padded rows) in `warnings`.

Header rows. A `<thead>` is the header when the page has one. Otherwise the first row is a header
row when all its cells are `<th>` (or wholly bold `<td>`s, an old way of writing headers), and a
following all-`<th>` row joins the header only when the rows above require it: a header cell's
rowspan reaches into it, or the row above has a colspan header cell whose sub-columns it labels.
That keeps `Round` (colspan 2) above `R1 | R2`-less rows as one level, two-level headers as two
levels, and tables whose body rows are all `<th>` (row headers) as one header row plus a body.

Structure written into the rows is then read by `structure.read_structure`: a full-width title row
at the top of the header goes to the caption, full-width section rows in the body become a row-group
column, and columns with nothing in them (swatches, spacers) are dropped. Tables that carry the
selector's class but are page furniture (`wikitable succession-box`, `infobox wikitable`) are skipped
with a reason in every selector mode.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass, field

from livetab.ids import table_id
from livetab.tables import Source, Table
from lxml import etree

from livetab_scraper.coltypes import detect_column_types
from livetab_scraper.filestructure import labelled_totals
from livetab_scraper.grid import MAX_COLSPAN, MAX_ROWSPAN, Grid, GridError, RawCell, expand, parse_span
from livetab_scraper.htmltext import Marker, cell_text, has_class, normalise_space
from livetab_scraper.structure import read_structure

__all__ = ["DEFAULT_MAX_BYTES", "NON_DATA_CLASSES", "CellMarker", "ExtractResult", "extract_tables", "split_footer"]

log = logging.getLogger(__name__)

DEFAULT_MAX_BYTES = 64 * 1024 * 1024
# Tables that hold navigation, infoboxes or page furniture rather than data.
NON_DATA_CLASSES = frozenset({
    "navbox", "navbox-inner", "navbox-subgroup", "vertical-navbox", "infobox", "sidebar", "metadata",
    "ambox", "tmbox", "imbox", "cmbox", "ombox", "fmbox", "mbox-small", "toc", "succession-box", "persondata",
    "sistersitebox", "portal", "navigation-box",
})
_BOLD_TAGS = frozenset({"b", "strong"})


@dataclass(frozen=True)
class CellMarker:
    """A footnote marker that was separated from the value at (row, col) of the full grid (header rows first)."""

    row: int
    col: int
    label: str
    note: str = ""


@dataclass
class ExtractResult:
    tables: list[Table] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # why a page or table gave nothing
    warnings: list[str] = field(default_factory=list)  # repairs made to tables that were kept
    markers: dict[str, list[CellMarker]] = field(default_factory=dict)  # table id -> its markers


def _selected(el: etree._Element, selector: str) -> bool:
    cls = el.get("class") or ""
    tokens = cls.split()
    if selector == "data":
        return not NON_DATA_CLASSES.intersection(tokens)
    return selector in tokens


def _furniture(el: etree._Element) -> str:
    """Why a table that carries the selector's class is still not data ("" when it is data).

    `class="wikitable succession-box"` (Preceded by / Succeeded by) and `class="float-right infobox
    wikitable"` look like wikitables but are page furniture. Only the table's own classes count:
    a real data wikitable can sit in a collapsible wrapper classed `navbox` (page 203-225 of the
    WikiTableQuestions set), so an ancestor's class does not exclude it (in either mode, see `_declared_data`).
    """
    own = sorted(NON_DATA_CLASSES.intersection((el.get("class") or "").split()))
    if own:
        return f"is page furniture (class {' '.join(own)!r}), not data"
    return ""


def _declared_data(el: etree._Element) -> bool:
    """A table classed `wikitable` (and not furniture by its own class) is data in every selector mode.

    Its wrapper does not make it navigation: page 203-225 keeps its data wikitable in a collapsible
    wrapper classed `navbox`, and a wikitable may hold a small table in a cell (203-599).
    """
    return "wikitable" in (el.get("class") or "").split()


def _inside_non_data(el: etree._Element) -> bool:
    for anc in el.iterancestors():
        if isinstance(anc.tag, str) and has_class(anc, NON_DATA_CLASSES):
            return True
    return False


def _contains_table(el: etree._Element) -> bool:
    return any(True for _ in el.iterdescendants("table"))


def _table_rows(table: etree._Element) -> tuple[list[etree._Element], int]:
    """The table's own rows (not those of nested tables) and how many came from `<thead>`."""
    rows: list[etree._Element] = []
    n_head = 0
    for child in table:
        tag = child.tag
        if tag == "tr":
            rows.append(child)
        elif tag in ("thead", "tbody", "tfoot"):
            section = [tr for tr in child if tr.tag == "tr"]
            if tag == "thead" and len(rows) == n_head:
                n_head += len(section)
            rows.extend(section)
    return rows, n_head


def _wholly_bold(td: etree._Element) -> bool:
    if td.text and td.text.strip():
        return False
    kids = [k for k in td if isinstance(k.tag, str)]
    if not kids:
        return False
    for k in kids:
        if k.tail and k.tail.strip():
            return False
        if k.tag not in _BOLD_TAGS and k.tag != "br":
            return False
    return True


class _PageNotes:
    """Lazily built map from a note's id to its text (the `<li id="cite_note-...">` entries)."""

    def __init__(self, root: etree._Element) -> None:
        self._root = root
        self._notes: dict[str, str] | None = None

    def text(self, note_id: str) -> str:
        if self._notes is None:
            self._notes = {}
            for li in self._root.iter("li"):
                lid = li.get("id")
                if not lid:
                    continue
                body = next((s for s in li.iter("span") if has_class(s, frozenset({"reference-text"}))), li)
                self._notes[lid] = cell_text(body, symbol_markers=False).text.replace("\n", " ")
        return self._notes.get(note_id, "")


def _symbol_legend(table: etree._Element, symbol: str) -> str:
    """The explanation of a symbol marker, looked for in the few elements after the table."""
    sib = table.getnext()
    for _ in range(3):
        if sib is None:
            break
        if isinstance(sib.tag, str):
            for line in normalise_space("\n".join(sib.itertext())).split("\n"):
                if line.startswith(symbol):
                    return line[len(symbol):].strip(" :=–-")
        sib = sib.getnext()
    return ""


def split_footer(raw_rows: list[list[RawCell]], positions: list[list[list[Marker]]],
                  ) -> list[tuple[str, list[Marker]]]:
    """Remove trailing rows made of one cell spanning the whole table ("Sources: [2][3]", legends).

    Such rows annotate the table rather than hold data; their text and markers become notes.
    A full-width row inside the body (a section heading) is read by `structure.read_structure`.
    """
    footer: list[tuple[str, list[Marker]]] = []
    while len(raw_rows) > 2 and len(raw_rows[-1]) == 1:
        cell = raw_rows[-1][0]
        width = max((sum(max(1, c.colspan) for c in row) for row in raw_rows[:-1]), default=0)
        if width < 2 or cell.colspan < width or cell.rowspan > 1:
            break
        raw_rows.pop()
        footer.append((cell.text, positions.pop()[0]))
    footer.reverse()
    return footer


def _header_rows(grid: Grid, n_thead: int, first_row_bold: bool) -> int:
    if n_thead:
        return min(n_thead, grid.n_rows)
    if not grid.n_rows:
        return 0

    def all_header(r: int) -> bool:
        row = grid.header_flags[r]
        return bool(row) and all(row[c] or grid.origin[r][c] < 0 for c in range(len(row))) and any(row)

    if not all_header(0):
        return 1 if first_row_bold else 0
    h = 1
    while h < grid.n_rows and all_header(h):
        above = {grid.origin[r][c] for r in range(h) for c in range(grid.n_cols)}
        reaches = any(grid.origin[h][c] in above for c in range(grid.n_cols))
        splits = any(grid.cells[i].colspan > 1 and grid.cells[i].row == h - 1
                     for i in set(grid.origin[h - 1]) if i >= 0)
        if not (reaches or splits):
            break
        h += 1
    return h


def _one_table(
    el: etree._Element, index: int, *, source: Source, language: str, notes: _PageNotes,
    symbol_markers: bool, max_slots: int, warnings: list[str],
) -> tuple[Table, list[CellMarker]]:
    rows_el, n_thead = _table_rows(el)
    raw_rows: list[list[RawCell]] = []
    positions: list[list[list[Marker]]] = []
    bad_spans = nested = 0
    for tr in rows_el:
        raw_row: list[RawCell] = []
        row_markers: list[list[Marker]] = []
        for td in tr:
            if td.tag not in ("td", "th"):
                continue
            ct = cell_text(td, symbol_markers=symbol_markers)
            nested += ct.had_nested_table
            rs, bad_r = parse_span(td.get("rowspan"), limit=MAX_ROWSPAN, zero_ok=True)
            cs, bad_c = parse_span(td.get("colspan"), limit=MAX_COLSPAN, zero_ok=False)
            bad_spans += bad_r + bad_c
            is_th = td.tag == "th"
            raw_row.append(RawCell(ct.text, rs, cs, header=is_th, bold=not is_th and _wholly_bold(td)))
            row_markers.append(ct.markers)
        raw_rows.append(raw_row)
        positions.append(row_markers)
    footer = split_footer(raw_rows, positions)
    grid = expand(raw_rows, max_slots=max_slots)
    if grid.n_rows == 0 or grid.n_cols == 0:
        raise GridError("it has no cells")
    tid = table_id(source.uri, source.revision, index)
    for w in grid.warnings:
        warnings.append(f"table {index}: {w}")
    if bad_spans:
        warnings.append(f"table {index}: {bad_spans} malformed or out-of-range span attribute(s) repaired")
    if nested:
        warnings.append(f"table {index}: {nested} nested table(s) inside cells left out of the values")

    first = raw_rows[0] if raw_rows else []
    first_bold = bool(first) and all(c.header or c.bold or not c.text for c in first) and any(c.text for c in first)
    h = _header_rows(grid, n_thead, first_bold)
    shape = read_structure(grid, h, [c.bold for row in raw_rows for c in row])
    last = grid.n_rows - 1
    if footer and last - 1 in shape.row_notes and last not in shape.removed:
        shape.last_note = footer[0][0]  # the last data row's note, in the same pattern, looked like a footer

    # Markers in grid coordinates, and the page's notes they point at.
    cell_markers: list[CellMarker] = []
    footnotes: list[str] = []
    seen: set[tuple[str, str]] = set()
    k = 0
    for row_markers in positions:
        for ms in row_markers:
            cell = grid.cells[k]
            k += 1
            for m in ms:
                text = notes.text(m.note_id) if m.note_id else _symbol_legend(el, m.label)
                cell_markers.append(CellMarker(cell.row, cell.col, m.label, text))
                key = (m.label, m.note_id or text)
                if key not in seen:
                    seen.add(key)
                    footnotes.append(f"{m.label} {text}".strip())
    for j, (text, ms) in enumerate(footer):
        for m in ms:
            note = notes.text(m.note_id) if m.note_id else _symbol_legend(el, m.label)
            key = (m.label, m.note_id or note)
            if key not in seen:
                seen.add(key)
                footnotes.append(f"{m.label} {note}".strip())
        if text and not (j == 0 and shape.last_note is not None):
            footnotes.append(text)
    n_footer = len(footer) - (shape.last_note is not None)
    if n_footer:
        warnings.append(f"table {index}: {n_footer} full-width footer row(s) kept as notes, not data")
    caption = ""
    cap = el.find("caption")
    if cap is not None:
        caption = cell_text(cap, symbol_markers=False).text.replace("\n", " ")
    header, rows, cells = shape.apply(grid, h)
    if shape.removed or shape.padding_cols or shape.decorative_cols:
        moved = [(m, shape.slot(grid, m.row, m.col)) for m in cell_markers]
        cell_markers = [dataclasses.replace(m, row=at[0], col=at[1]) for m, at in moved if at is not None]
    for title in shape.titles:
        if title and title != caption:
            caption = f"{caption} — {title}" if caption else title
    warnings.extend(f"table {index}: {w}" for w in shape.notes())
    table = Table(
        id=tid,
        source=dataclasses.replace(source, table_index=index),
        header=header,
        rows=rows,
        language=language,
        caption=caption,
        cells=cells,
        footnotes=footnotes,
        group_column=shape.group_name(header),
        total_rows=labelled_totals(rows, language, 1 if shape.grouped else 0),
    )
    table.column_types = detect_column_types(table)
    return table, cell_markers


def _parse(html: str | bytes) -> etree._Element:
    data = html.encode("utf-8", "surrogatepass") if isinstance(html, str) else html
    # The plain etree parser: lxml.html's element classes cost a Python lookup per element.
    parser = etree.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True, huge_tree=True)
    root = etree.fromstring(data, parser)
    if root is None:
        raise etree.ParserError("Document is empty")
    return root


def extract_tables(
    html: str | bytes,
    *,
    source: Source,
    language: str = "en",
    selector: str = "wikitable",
    symbol_markers: bool = True,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_tables: int = 1000,
    max_slots: int = 2_000_000,
) -> ExtractResult:
    """Every selected table of a page as a `Table`; reasons for what could not be used.

    `selector` is a class token (`"wikitable"`, the default) or `"data"` for every table that is not
    navigation, an infobox or page furniture (nor inside one, nor a layout table holding tables; a
    table classed `wikitable` is data by its own class wherever it sits). Furniture is left out in either mode:
    a table with the selector's class that is also an infobox, succession box or navbox is reported
    in `errors`, not extracted. `Source.table_index` (and the id) is the table's position
    among the tables carrying the selector's class, counted in document order, furniture included
    (WikiTableQuestions' `tableIndex`); in `"data"` mode among the tables that are not furniture.
    """
    result = ExtractResult()
    size = len(html)
    if not size or (isinstance(html, str) and not html.strip()):
        result.errors.append("page is empty")
        return result
    if size > max_bytes:
        result.errors.append(f"page is {size} bytes, over the limit of {max_bytes}")
        return result
    try:
        root = _parse(html)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError, UnicodeError) as exc:
        result.errors.append(f"page could not be parsed as HTML: {exc}")
        return result
    notes = _PageNotes(root)
    index = -1
    for el in root.iter("table"):
        if not _selected(el, selector):
            continue
        if selector == "data" and not _declared_data(el) and (_inside_non_data(el) or _contains_table(el)):
            continue  # navigation or layout, not data
        index += 1
        if index >= max_tables:
            result.errors.append(f"page has more than {max_tables} tables; the rest were skipped")
            break
        why = _furniture(el)
        if why:  # keeps its index: WikiTableQuestions' tableIndex counts every wikitable
            result.errors.append(f"table {index}: {why}")
            continue
        try:
            table, markers = _one_table(
                el, index, source=source, language=language, notes=notes,
                symbol_markers=symbol_markers, max_slots=max_slots, warnings=result.warnings,
            )
        except GridError as exc:
            result.errors.append(f"table {index}: {exc}")
            continue
        except (ValueError, RecursionError) as exc:  # pathological markup: record, keep going
            log.warning("table %d of %s could not be extracted: %s", index, source.uri, exc)
            result.errors.append(f"table {index}: could not be extracted: {exc!r}")
            continue
        if not table.rows:
            result.errors.append(f"table {index}: has a header but no body rows")
            continue
        result.tables.append(table)
        if markers:
            result.markers[table.id] = markers
    if index < 0:
        result.errors.append(f"page has no tables matching {selector!r}")
    return result

