"""Structure of a flat grid that pandas.read_html made from a page table (FreshTab's published tables).

pandas copies a spanning cell's text into every slot it covers and forgets `<th>`, so a flat grid
shows "Choice | Choice" for one cell over two columns, "Source: Volitve" in every cell of a footer
row and "Total | Total | Total | 692578" for a label spanning three columns. This module reads the
spans back and hands the grid to the readers the other paths use:

- **Spans.** In the header, adjacent columns with the same name were one cell; in the body, a run of
  adjacent cells with the same text that is not a number ("Total valid votes" x 3, "Europe" in every
  cell) was one cell (two equal numbers side by side, "0 | 0", are two cells).
- **A second header level** left in the body (the first row repeats a header cell spanning both rows and
  labels the columns under a spanning name: "Parties and alliances | Votes | % | ..." under "Parties and
  alliances | Popular vote x 3") joins the header.
- **Copied columns.** A column that repeats its left neighbour in every row, header included ("Choice",
  "Choice (2)"), was one column spanning two slots: it is collapsed into one. Columns that only share a
  name ("Gold" over the medallist and the time) stay.
- **Footer rows.** Rows at the end made of one cell across the table ("Source: Volitve", "107% time:
  1:22.104") are notes on the table (`extract.split_footer`, as for HTML): they go to the footnotes.
- **Full-width body rows and empty columns** are read by `structure.read_structure`, the HTML path's
  reader: section headings become the `Section` row group, notes stay rows (or a `Note` column),
  colour-swatch columns that only spanning cells reach are dropped. pandas lost which rows were `<th>`
  headings, so a full-width row of at most `structure.MAX_SECTION_WORDS` words is read as one (the
  headings of FreshTab's tables are: "Europe", "Eliminated in Round 1", "Juryprijzen"), unless it states
  something ("107% time: 1:22.104"): such a row in the body is a note and stays a row, as in HTML.
- **Totals** are marked by their label in the table's language (`filestructure.labelled_totals`, the
  first filled cell of the first three, as the HTML path marks them). The file reader's other rule (a row whose amounts sum the
  rows above) is not used here: on Wikipedia's small counts it marks episode 3 (= 1 + 2) and the third
  of a race's grid; measured on FreshTab's 527 tables, it flagged 100 rows, nearly all of them wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from livetab.numbers import parse_number
from livetab.tables import Cell

from livetab_scraper.extract import split_footer
from livetab_scraper.filestructure import labelled_totals
from livetab_scraper.grid import RawCell, expand
from livetab_scraper.structure import MAX_SECTION_WORDS, read_structure

__all__ = ["FlatTable", "heading_rows", "read_flat_grid"]


@dataclass
class FlatTable:
    header: list[list[str]]
    rows: list[list[str]]
    cells: list[Cell]
    group_column: str = ""
    total_rows: list[int] = field(default_factory=list)
    footnotes: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    copied_columns: list[str] = field(default_factory=list)  # names of the collapsed copies
    titles: list[str] = field(default_factory=list)  # a heading over the whole body, for the caption

    @property
    def changed(self) -> bool:
        return bool(self.notes)


def _spannable(text: str, language: str) -> bool:
    return bool(text.strip()) and parse_number(text, language) is None


def _runs(row: list[str], joinable: list[bool]) -> list[RawCell]:
    """Adjacent equal texts as one cell spanning them, where `joinable` allows it."""
    out: list[RawCell] = []
    c = 0
    while c < len(row):
        span = 1
        while joinable[c] and c + span < len(row) and row[c + span] == row[c]:
            span += 1
        out.append(RawCell(row[c], colspan=span))
        c += span
    return out


def _copied(header: list[str], rows: list[list[str]], c: int) -> bool:
    """Column c repeats column c - 1 in every row, header included: one column spanning two slots."""
    return bool(header[c]) and header[c] == header[c - 1] and all(r[c] == r[c - 1] for r in rows)


_STATEMENT = re.compile(r":\s*\S")  # "107% time: 1:22.104", "Source: Volitve": a note, not a heading


def _heading_like(text: str) -> bool:
    return len(text.split()) <= MAX_SECTION_WORDS and not _STATEMENT.search(text)


def heading_rows(rows: list[list[str]], language: str) -> int:
    """Rows that hold one short text (not a number) in every cell: the headings `read_flat_grid` reads."""
    return sum(1 for r in rows if len(r) > 1 and len(set(r)) == 1 and _spannable(r[0], language)
               and _heading_like(r[0]))


def _second_level(header: list[str], top: list[RawCell], first: list[str], language: str) -> bool:
    """The first row is a second header level that pandas left in the body: the header has a name spanning
    columns, the row is all labels (no digits), and it repeats a name above it in the same column (pandas'
    copy of a header cell spanning both rows: "Parties and alliances" over "Parties and alliances")."""
    return (any(c.colspan > 1 for c in top) and all(v.strip() and not any(ch.isdigit() for ch in v) for v in first)
            and any(a == b for a, b in zip(header, first, strict=False)) and len(set(first)) > 1
            and all(_spannable(v, language) for v in first))


def _two_levels(header: list[str], top: list[RawCell], first: list[str]) -> list[list[RawCell]]:
    """Two header rows of cells: a top cell whose columns the second row repeats spans both rows."""
    upper: list[RawCell] = []
    lower_cols: list[int] = []
    c = 0
    for cell in top:
        both = all(first[j] == cell.text for j in range(c, c + cell.colspan))
        upper.append(RawCell(cell.text, rowspan=2 if both else 1, colspan=cell.colspan, header=True))
        if not both:
            lower_cols += range(c, c + cell.colspan)
        c += cell.colspan
    lower = [RawCell(first[j], header=True) for j in lower_cols]
    return [upper, lower]


def read_flat_grid(header: list[str], rows: list[list[str]], language: str, heading: str = "") -> FlatTable:
    """The structure of a one-row-header flat grid (rows padded to the header's width by the caller).

    `heading` is a row above the header that pandas glued onto every column name ("Date north america"):
    it heads the rows above the first section row when there are sections, else it titles the table."""
    width = len(header)
    rows = [r + [""] * (width - len(r)) if len(r) < width else r[:width] for r in rows]
    notes: list[str] = []
    copies = [c for c in range(1, width) if _copied(header, rows, c)]
    if copies:
        keep = [c for c in range(width) if c not in copies]
        notes.append(f"{len(copies)} column(s) copying their left neighbour in every row (one spanning cell) "
                     f"collapsed: {[header[c] for c in copies]}")
        copied = [header[c] for c in copies]
        header = [header[c] for c in keep]
        rows = [[r[c] for c in keep] for r in rows]
        width = len(header)
    else:
        copied = []
    top = _runs(header, [bool(h) for h in header])
    if rows and len(rows) > 1 and _second_level(header, top, rows[0], language):
        raw, rows = _two_levels(header, top, rows[0]), rows[1:]
        notes.append("the first row, labels under the spanning column names, read as a second header level")
    else:
        raw = [[RawCell(c.text, colspan=c.colspan, header=True) for c in top]]
    if heading and width > 1:
        raw.insert(0, [RawCell(heading, colspan=width, header=True)])
    h = len(raw)
    for r in rows:
        slots = _runs(r, [_spannable(v, language) for v in r])
        if len(slots) == 1 and width > 1 and _heading_like(slots[0].text):
            slots = [RawCell(slots[0].text, colspan=width, header=True)]  # a heading, as the page's <th>
        raw.append(slots)
    footer = split_footer(raw, [[[] for _ in row] for row in raw])
    footnotes = [text for text, _ in footer if text]
    if footer:
        notes.append(f"{len(footer)} full-width footer row(s) read as notes, not data")
    grid = expand(raw)
    shape = read_structure(grid, h, [False] * len(grid.cells))
    notes += shape.notes()
    new_header, new_rows, cells = shape.apply(grid, h)
    group = shape.group_name(new_header)
    totals = labelled_totals(new_rows, language, 1 if group else 0)
    if totals:
        notes.append(f"{len(totals)} total row(s) marked")
    return FlatTable(header=new_header, rows=new_rows, cells=cells, group_column=group, total_rows=totals,
                     footnotes=footnotes, notes=notes, copied_columns=copied, titles=list(shape.titles))
