"""Structure that people write into a table's rows: title rows, section rows, row notes, decorative columns.

A full-width row is a row made of one cell spanning every column. Where it sits says what it is:

- at the top of the header ("Climate data for Ilulissat" over the month names) it is the table's
  title: it is lifted to the caption instead of becoming a header level of every column;
- inside the body ("First half", "Grand Slam tournaments", "Representing Poland") it heads the rows
  under it: it becomes a row-group attribute, a column (`Section`) put in front of the others whose
  value is the heading of each row's section, and one merged cell per group in `Table.cells` (TeleTables'
  grouped rows). It is never a data row, so a count of rows or a sum over a column leaves it out.
  A section that heads the whole body is a title too (the caption). When the header's top row is
  full-width and the body has sections, that top row heads the first section ("Players transferred
  in" ... "Players transferred out").

Not every full-width body row is a heading. A row is read as one when its cell is a header cell
(`<th>`) or wholly bold, or when it is a short plain cell (at most `MAX_SECTION_WORDS` words) in a
table whose body opens with such a heading-like row (sectioned from its first row: "1994–95 UEFA
Cup"); a short plain row in the middle of ungrouped rows ("Cancelled due to the war") is a note.
When every full-width row follows exactly one data row (an episode list with a summary under each
episode; episodes without a summary yet may follow the last one) they are notes on the row above:
they become that row's value in a `Note` column put after the others. Other notes are kept as rows
(qagen's frame does not count a row repeating one text as data), and reported in the warnings.

A body row of header cells that repeats a header level (long tables repeat their header at the
bottom) is dropped too: it is neither data nor a heading. So is a spacer row, a body row with no text
in any slot (a blank row between the top five and the rest of a ranking, page 203-503): a count of
rows would otherwise include it.

Columns that hold nothing are dropped: slots that exist only because a full-width cell's colspan ran
past the table's width, and decorative columns (colour swatches, spacers) with no text of their own:
every slot, header and body, is empty or filled by a cell that spans several columns ("Party" over
swatch and name, "Not held" across the row); a column whose body is wholly such spanning cells is not
decorative (it is half of a merged pair, not an empty one).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from livetab.tables import Cell, flatten_header

from livetab_scraper.clean import reindex
from livetab_scraper.grid import Grid

__all__ = ["GROUP_NAMES", "MAX_SECTION_WORDS", "NOTE_NAMES", "Structure", "read_structure"]

MAX_SECTION_WORDS = 6
GROUP_NAMES = ("Section", "Group", "Row group")
NOTE_NAMES = ("Note", "Row note", "Summary note")


@dataclass
class Structure:
    titles: list[str] = field(default_factory=list)  # lifted to the caption, top to bottom
    removed: set[int] = field(default_factory=set)  # grid rows that are titles or section headings
    sections: dict[int, tuple[str, bool]] = field(default_factory=dict)  # grid row -> (heading, was <th>)
    lead: tuple[str, bool] | None = None  # heading of the body rows above the first section row
    note_rows: int = 0  # full-width body rows kept as rows (notes on the row above)
    row_notes: dict[int, int] = field(default_factory=dict)  # note row -> the data row above it (a column)
    last_note: str | None = None  # the last data row's note, when it was split off as a footer row
    repeated_header: list[int] = field(default_factory=list)  # body rows of <th> repeating a header level
    spacer_rows: list[int] = field(default_factory=list)  # body rows with no text in any slot
    padding_cols: list[int] = field(default_factory=list)
    decorative_cols: list[int] = field(default_factory=list)

    @property
    def grouped(self) -> bool:
        return bool(self.sections)

    def notes(self) -> list[str]:
        out: list[str] = []
        if self.titles:
            out.append(f"{len(self.titles)} full-width title row(s) lifted to the caption")
        if self.sections:
            out.append(f"{len(self.sections)} full-width section row(s) read as row groups, not data")
        if self.repeated_header:
            out.append(f"{len(self.repeated_header)} body row(s) repeating the header dropped")
        if self.spacer_rows:
            out.append(f"{len(self.spacer_rows)} empty spacer row(s) dropped")
        if self.row_notes:
            n = len(self.row_notes) + (self.last_note is not None)
            out.append(f"{n} full-width row(s) under single data rows read as their notes (a column)")
        if self.note_rows:
            out.append(f"{self.note_rows} full-width row(s) that are neither headings nor row notes kept as rows")
        if self.padding_cols:
            out.append(f"{len(self.padding_cols)} column(s) that only a full-width cell reached dropped")
        if self.decorative_cols:
            out.append(f"{len(self.decorative_cols)} decorative column(s) with no text of their own dropped")
        return out

    def group_name(self, header: list[list[str]]) -> str:
        """The name of the row-group column, as `Table.columns` gives it ("" when there are no groups)."""
        if not self.grouped:
            return ""
        if not header:
            return "column 1"
        return flatten_header(header)[0]

    def slot(self, grid: Grid, row: int, col: int) -> tuple[int, int] | None:
        """Where slot (row, col) of the expanded grid ends up; None when its row or column was removed."""
        if row in self.removed or col in self.padding_cols or col in self.decorative_cols:
            return None
        new_row = row - sum(1 for r in self.removed if r < row)
        new_col = col - sum(1 for c in (*self.padding_cols, *self.decorative_cols) if c < col)
        return new_row, new_col + (1 if self.grouped else 0)

    def apply(self, grid: Grid, h: int) -> tuple[list[list[str]], list[list[str]], list[Cell]]:
        """Header levels, body rows and original cells with the structure applied."""
        dropped = set(self.padding_cols) | set(self.decorative_cols)
        if not self.removed and not dropped:
            return grid.values[:h], grid.values[h:], grid.cells
        kept_rows = [r for r in range(grid.n_rows) if r not in self.removed]
        kept_cols = [c for c in range(grid.n_cols) if c not in dropped]
        values = [[grid.values[r][c] for c in kept_cols] for r in kept_rows]
        cells = reindex(grid.cells, kept_rows, kept_cols, values)
        new_h = sum(1 for r in kept_rows if r < h)
        header, rows = values[:new_h], values[new_h:]
        if self.grouped:
            header, rows, cells = self._with_group_column(grid, h, header, rows, cells)
        if self.row_notes:
            header, rows, cells = self._with_note_column(grid, kept_rows, header, rows, cells)
        return header, rows, cells

    def _with_note_column(self, grid: Grid, kept_rows: list[int], header: list[list[str]], rows: list[list[str]],
                          cells: list[Cell]) -> tuple[list[list[str]], list[list[str]], list[Cell]]:
        taken = {n.casefold() for n in flatten_header(header)} if header else set()
        name = next((n for n in NOTE_NAMES if n.casefold() not in taken), NOTE_NAMES[-1])
        new_h, col = len(header), len(rows[0]) if rows else 0
        note_of = {above: grid.cells[grid.origin[r][0]].text for r, above in self.row_notes.items()}
        if self.last_note is not None:
            note_of[grid.n_rows - 1] = self.last_note
        out = list(cells)
        if new_h:
            out.append(Cell(row=0, col=col, text=name, rowspan=new_h, header=True))
        notes: list[str] = []
        for i, r in enumerate(kept_rows[new_h:]):
            notes.append(note_of.get(r, ""))
            out.append(Cell(row=new_h + i, col=col, text=notes[-1]))
        out.sort(key=lambda c: (c.row, c.col))
        return [[*level, name] for level in header], [[*r, note] for r, note in zip(rows, notes, strict=True)], out

    def _with_group_column(self, grid: Grid, h: int, header: list[list[str]], rows: list[list[str]],
                           cells: list[Cell]) -> tuple[list[list[str]], list[list[str]], list[Cell]]:
        taken = {n.casefold() for n in flatten_header(header)} if header else set()
        name = next((n for n in GROUP_NAMES if n.casefold() not in taken), GROUP_NAMES[-1])
        # Each kept body row's section: a run of rows under one heading becomes one merged cell.
        runs: list[tuple[str, bool, int]] = []  # (heading, was <th>, number of rows)
        current, fresh = self.lead or ("", False), True
        for r in range(h, grid.n_rows):
            if r in self.sections:
                current, fresh = self.sections[r], True
                continue
            if r in self.removed:
                continue
            if fresh:
                runs.append((current[0], current[1], 0))
                fresh = False
            text, th, n = runs[-1]
            runs[-1] = (text, th, n + 1)
        new_h = len(header)
        out: list[Cell] = [Cell(row=c.row, col=c.col + 1, text=c.text, rowspan=c.rowspan, colspan=c.colspan,
                                header=c.header) for c in cells]
        if new_h:
            out.append(Cell(row=0, col=0, text=name, rowspan=new_h, header=True))
        labels: list[str] = []
        row = new_h
        for text, th, n in runs:
            out.append(Cell(row=row, col=0, text=text, rowspan=n, header=th and bool(text)))
            labels.extend([text] * n)
            row += n
        out.sort(key=lambda c: (c.row, c.col))
        return ([[name, *level] for level in header], [[label, *r] for label, r in zip(labels, rows, strict=True)],
                out)


def _full_width(grid: Grid, r: int) -> int:
    """The index of the one cell that fills row r on its own, spanning 2+ columns; -1 if none."""
    if grid.n_cols < 2:
        return -1
    owners = set(grid.origin[r])
    owners.discard(-1)
    if len(owners) != 1:
        return -1
    i = owners.pop()
    cell = grid.cells[i]
    if cell.row != r or cell.rowspan != 1 or cell.colspan < 2:
        return -1
    return i


def read_structure(grid: Grid, h: int, bold: list[bool]) -> Structure:
    """Title rows, section rows and empty columns of an expanded table whose first `h` rows are the header.

    `bold[i]` says whether `grid.cells[i]` is wholly bold.
    """
    s = Structure()
    n = grid.n_rows
    titles: list[tuple[int, int]] = []  # (grid row, cell index)
    r = 0
    while r < h:
        i = _full_width(grid, r)
        if i < 0:
            break
        titles.append((r, i))
        r += 1
    full = [(r, i) for r in range(h, n) if (i := _full_width(grid, r)) >= 0 and grid.cells[i].text.strip()]
    above = [r - (full[k - 1][0] if k else h - 1) - 1 for k, (r, _) in enumerate(full)]  # data rows above each
    if len(full) >= 2 and all(a == 1 for a in above):  # one under each data row: notes on it, not headings
        s.row_notes = {r: r - 1 for r, _ in full}
        full = []
    def marked(i: int) -> bool:  # written as a heading: a header cell or wholly bold
        return grid.cells[i].header or (i < len(bold) and bold[i])

    def short(i: int) -> bool:
        return len(grid.cells[i].text.split()) <= MAX_SECTION_WORDS

    opens = bool(full) and full[0][0] == h and (marked(full[0][1]) or short(full[0][1]))
    for r, i in full:
        cell = grid.cells[i]
        if marked(i) or (opens and short(i)):
            s.sections[r] = (cell.text, cell.header)
        else:
            s.note_rows += 1
    if list(s.sections) == [h]:  # one heading over the whole body: a title
        titles.append((h, _full_width(grid, h)))
        del s.sections[h]
    elif s.sections and titles and h not in s.sections:
        r, i = titles.pop()  # the header's top row heads the rows above the first section row
        s.lead = (grid.cells[i].text, grid.cells[i].header)
        s.removed.add(r)
    s.titles = [grid.cells[i].text for _, i in titles]
    s.removed.update(r for r, _ in titles)
    s.removed.update(s.sections)
    s.removed.update(s.row_notes)
    levels = [grid.values[r] for r in range(h) if r not in s.removed and len(set(grid.values[r])) > 1]
    s.repeated_header = [r for r in range(h, n) if r not in s.removed and grid.values[r] in levels
                         and all(grid.header_flags[r])]
    s.removed.update(s.repeated_header)
    s.spacer_rows = [r for r in range(h, n) if r not in s.removed and not any(v.strip() for v in grid.values[r])]
    if len(s.spacer_rows) < sum(1 for r in range(h, n) if r not in s.removed):  # never the whole body
        s.removed.update(s.spacer_rows)
    else:
        s.spacer_rows = []
    kept = [r for r in range(n) if r not in s.removed]
    body = [r for r in kept if r >= h]
    def borrowed(r: int, c: int) -> bool:  # no text of its own: empty, or text of a cell spanning columns
        i = grid.origin[r][c]
        return i < 0 or not grid.values[r][c].strip() or grid.cells[i].colspan > 1

    for c in range(grid.n_cols):
        if all(grid.origin[r][c] < 0 for r in kept):
            s.padding_cols.append(c)
        elif body and all(borrowed(r, c) for r in kept) and not all(
                grid.origin[r][c] >= 0 and grid.cells[grid.origin[r][c]].colspan > 1 for r in body):
            s.decorative_cols.append(c)
    if len(s.padding_cols) + len(s.decorative_cols) >= grid.n_cols:
        s.padding_cols, s.decorative_cols = [], []
    return s
