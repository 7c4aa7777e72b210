"""Structure of tables from files as companies and statistics offices publish them (CSV, XLSX, DOCX, JSON).

A file gives a flat grid: no `<th>`, often no spans. What a careful reader sees in it is read from the
content (TAT-QA's annual-report tables are the test bed):

- **Header depth.** The header is every leading row above the first row that states an amount: rows of
  labels, of years (`2019`, `2018`: a year is a label, not an amount), of unit tokens (`$M`, `£m`, `%`,
  `($)`) and unit phrases (`(In thousands, except percentages)`, `($ in millions)`). A table whose first
  row already states amounts has no header (the TaTA tables); a table that never states an amount keeps
  the reader's default.
- **Label-only rows.** A row with a label in the first column and every other cell empty is, inside the
  header (above a row of column labels), part of it ("December 31,"); below the last row of column labels
  it is a **section row** ("Deferred tax assets", "Emissions from:"): it heads the rows under it, becomes a
  `Section` column in front of the others (one merged cell per group) and is no data row.
- **Units.** A unit row's tokens become the unit of their column (`Table.column_units`) and the row leaves
  the header levels; a unit phrase alone in its row is the unit of every column without one of its own.
- **Spans lost by the file.** In a header row above others, a label followed by empty cells spans them
  (`Year ended December 31,` over `2019`, `2018`); one label alone in its row spans every value column.
- **Totals.** A body row is a total or subtotal when its label says so in the table's language ("Total
  revenue", "Subtotal", "الإجمالي") or when each of its amounts is the sum of the rows above it since the
  last section, total or the header (within the rounding of the figures shown); its index goes in
  `Table.total_rows`. It stays a row — it can be asked about — but is marked, so no aggregate adds it.

Numbers are read by the one shared reader, `livetab.numbers`, in accounting mode (`(872,454)` is
-872,454). Cell texts are never changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from livetab.numbers import read_number
from livetab.tables import Cell, flatten_header
from livetab.total_labels import is_total_label

__all__ = ["FileStructure", "is_unit_phrase", "is_unit_token", "labelled_totals", "read_file_structure",
           "shape_grid"]

MAX_HEADER_ROWS = 6
_YEAR = re.compile(r"^(?:FY\s?)?(?:19|20)\d{2}[A-Za-z]?$")
_UNIT_TOKEN = re.compile(
    r"^\(?\s*(?:US\$|A\$|\$|€|£|¥|₹|%|£m|\$m|\$M|£M|€m|€M|\$bn|£bn|\$'?000s?|£'?000s?|€'?000s?|'?000s?|bps|"
    r"RMB|USD|EUR|GBP|CHF|Rm|R'?000|\$\s?million|£\s?million|\$\s?thousands?|%\s?change|x|times)\s*\)?$",
    re.I)
_SCALE_WORDS = re.compile(
    r"\b(?:thousands?|millions?|billions?|'000|000s|€m|\$m|£m|percentages?|except (?:per|share))\b|"
    r"\b(?:in|of) (?:U\.?S\.? )?(?:dollars|euros|pounds|usd|eur|gbp)\b|^\(?\s*\$\s*(?:in )?", re.I)


def labelled_totals(rows: list[list[str]], language: str = "en", start: int = 0) -> list[int]:
    """Body rows whose label says total in `language` ("Total", "Totals", "Subtotal", "Insgesamt", "Итого"):
    the first filled cell among the three from column `start` (after a row-group column). The rule the page
    readers use (HTML, FreshTab), where amounts that sum the rows above prove nothing on small counts."""
    return [i for i, r in enumerate(rows)
            if (label := next((v for v in r[start:start + 3] if v.strip()), "")) and is_total_label(label, language)]


def is_unit_token(text: str) -> bool:
    """A cell that only names a unit: `$M`, `£m`, `%`, `($)`, `(%)`, `$'000`."""
    return bool(_UNIT_TOKEN.match(text.strip()))


def is_unit_phrase(text: str) -> bool:
    """A phrase that states the scale or currency of the figures: `(In thousands)`, `($ in millions)`."""
    t = text.strip()
    return bool(t) and len(t) <= 80 and bool(_SCALE_WORDS.search(t)) and read_number(t, units=True) is None


def _amount(text: str, language: str) -> float | None:
    t = text.strip()
    if not t or _YEAR.match(t):
        return None
    reading = read_number(t, language, units=True, accounting=True)
    return None if reading is None else reading.value


def _decimals(text: str, language: str) -> int:
    reading = read_number(text.strip(), language, units=True, accounting=True)
    return reading.decimals if reading is not None else 0


_NULLS = frozenset({"—", "–", "-", "−", "$—", "$ —", "$-", "n/a", "N/A", "nm", "NM", "None", "none", "*"})


@dataclass
class FileStructure:
    header_rows: int  # leading grid rows that are the header (unit rows included)
    unit_rows: list[int] = field(default_factory=list)  # header rows that only state units
    units: dict[int, str] = field(default_factory=dict)  # column -> unit
    sections: dict[int, str] = field(default_factory=dict)  # grid row -> heading
    totals: list[int] = field(default_factory=list)  # grid rows that total the rows above
    spans: dict[tuple[int, int], int] = field(default_factory=dict)  # (row, col) -> colspan restored in the header

    def notes(self) -> list[str]:
        out = [f"header of {self.header_rows} row(s) read from the content"]
        if self.unit_rows:
            out.append(f"{len(self.unit_rows)} unit row(s) read as column units")
        if self.sections:
            out.append(f"{len(self.sections)} section row(s) read as row groups, not data")
        if self.totals:
            out.append(f"{len(self.totals)} total row(s) marked")
        return out


def _value_row(row: list[str], language: str) -> bool:
    """A row that states an amount (or a null marker standing for one) outside its first column."""
    rest = [v.strip() for v in row[1:] if v.strip()]
    years = [int(re.sub(r"\D", "", v)[:4]) for v in rest if _YEAR.match(v)]
    # Years are column labels when the row has no label of its own or they run year by year (2019, 2018,
    # 2017; repeated under two groups); "n1 | 1920 | 1980" is a row of amounts.
    run = len(set(years)) > 1 and max(years) - min(years) == len(set(years)) - 1
    if years and row[0].strip() and not run and not is_unit_phrase(row[0]) and not (len(years) == 1 and len(rest) > 1):
        return True
    return any(_amount(v, language) is not None or v in _NULLS for v in rest)


def _label_only(row: list[str]) -> bool:
    return bool(row[0].strip()) and not any(v.strip() for v in row[1:])


def read_file_structure(grid: list[list[str]], language: str = "en", default_header: int = 1) -> FileStructure:
    """What a careful reader sees in a flat grid: header depth, unit rows, section rows, total rows."""
    n = len(grid)
    if n == 0 or not grid[0]:
        return FileStructure(header_rows=0)
    first_value = next((r for r in range(n) if _value_row(grid[r], language)), None)
    if first_value is None:  # no amounts anywhere: the reader's default
        return FileStructure(header_rows=min(default_header, max(n - 1, 0)))
    first_value = min(first_value, MAX_HEADER_ROWS)
    # Rows above the first amount: the header up to its last row with column labels (or units), then
    # label-only rows are section headings of the body (unit phrases stay in the header).
    last_labels = max((r for r in range(first_value) if any(v.strip() for v in grid[r][1:])), default=-1)
    h = last_labels + 1
    while h < first_value and _label_only(grid[h]) and is_unit_phrase(grid[h][0]):
        h += 1
    s = FileStructure(header_rows=h)
    width = len(grid[0])
    table_unit = ""
    for r in range(h):
        cells = [(c, v.strip()) for c, v in enumerate(grid[r]) if v.strip()]
        rest = [(c, v) for c, v in cells if c > 0]
        repeated = (r > 0 and len(rest) >= 2 and len({v for _, v in rest}) == 1 and not _YEAR.match(rest[0][1])
                    and all(v.strip() for v in grid[r][1:]))
        if repeated and not any(c == 0 for c, _ in cells):  # "$M | $M", "Number | Number" under the years
            s.units.update({c: v for c, v in rest})
            s.unit_rows.append(r)
            continue
        if rest and all(is_unit_token(v) or is_unit_phrase(v) for _, v in rest) and (
                not any(c == 0 for c, _ in cells) or len(rest) >= 1):
            if len(rest) == 1 and is_unit_phrase(rest[0][1]) and width > 2:
                table_unit = table_unit or rest[0][1]
            else:
                for c, v in rest:
                    s.units[c] = v
            s.unit_rows.append(r)
        elif rest and any(is_unit_token(v) for _, v in rest):
            s.units.update({c: v for c, v in rest if is_unit_token(v)})  # "Amount | Amount | ($) | (%)"
        elif len(cells) == 1 and is_unit_phrase(cells[0][1]):
            table_unit = table_unit or cells[0][1]
            s.unit_rows.append(r)
        elif cells and cells[0][0] == 0 and is_unit_phrase(cells[0][1]) and not table_unit:
            table_unit = cells[0][1]  # "(in thousands of U.S. dollars)" above the first column: keeps its row
    # Spans the file lost: in header rows above a lower row of labels, a label followed by empties.
    label_rows = [r for r in range(h) if r not in s.unit_rows]
    for r in label_rows[:-1]:
        row = grid[r]
        filled = [c for c in range(1, width) if row[c].strip()]
        if len(filled) == 1 and width > 2:
            s.spans[(r, 1)] = width - 1  # one label over every value column
            continue
        for k, c in enumerate(filled):
            end = filled[k + 1] if k + 1 < len(filled) else width
            if end - c > 1:
                s.spans[(r, c)] = end - c
    body = range(h, n)
    for r in body:
        if _label_only(grid[r]) and r + 1 < n:  # a heading of the rows under it (not a last-line note)
            if not is_total_label(grid[r][0], language):
                s.sections[r] = grid[r][0].strip()
    # A column label that ends in its unit: "2019 €m", "Change (%)".
    for r in range(h):
        if r in s.unit_rows:
            continue
        for c in range(1, width):
            words = grid[r][c].split()
            if c not in s.units and len(words) > 1 and is_unit_token(words[-1]):
                s.units[c] = words[-1]
    # Units of the columns that state amounts, from a table-wide unit phrase (not a column of percentages).
    if table_unit:
        for c in range(1, width):
            readings = [read_number(grid[r][c].strip(), language, units=True, accounting=True) for r in body
                        if _amount(grid[r][c], language) is not None]
            if c not in s.units and readings and not all(x is not None and x.percent for x in readings):
                s.units[c] = table_unit
    s.totals = _totals(grid, h, s.sections, language)
    return s


def _sums_to(grid: list[list[str]], r: int, block: list[int], language: str) -> bool:
    """Row r's amounts are the sums of the block's rows: in every column where two or more of them state
    amounts, within the rounding of the figures shown, in at least half of those columns (a roll-forward's
    price column is no sum); a small amount off by its rounding proves nothing."""
    matched = checked = 0
    for c in range(1, len(grid[r])):
        v = _amount(grid[r][c], language)
        if v is None:
            continue
        vals = [p for k in block if (p := _amount(grid[k][c], language)) is not None]
        if len(vals) < 2:
            continue
        checked += 1
        d = _decimals(grid[r][c], language)
        tol = 10.0 ** -d * (len(vals) // 2 + 1) * 0.5
        diff = abs(sum(vals) - v)
        if diff <= tol + 1e-9 and (diff < 1e-9 or abs(v) > 10 * tol) and v != 0 and any(x != v for x in vals):
            matched += 1
    return matched > 0 and 2 * matched >= checked


def _totals(grid: list[list[str]], h: int, sections: dict[int, str], language: str) -> list[int]:
    """Rows whose label says total, or whose amounts sum the rows since the last boundary (section or
    total), the rows from the last total on ("Net deferred tax assets" = gross total + "Less valuation
    allowance"), the totals so far (the net of two sections' totals), or every row that is no total."""
    out: list[int] = []
    start = h  # first row of the current block
    for r in range(h, len(grid)):
        if r in sections:
            start = r + 1
            continue
        row = grid[r]
        if row[0].strip() and is_total_label(row[0], language):
            out.append(r)
            start = r + 1
            continue
        plain = [k for k in range(start, r) if k not in sections]
        since_total = [k for k in range(out[-1], r) if k not in sections] if out else []
        everything = [k for k in range(h, r) if k not in sections and k not in out]
        blocks = [b for b in (plain, since_total, list(out), everything) if len(b) >= 2]
        if any(_sums_to(grid, r, b, language) for b in blocks):
            out.append(r)
            start = r + 1
    return out


GROUP_NAME = {"en": "Section", "ar": "القسم"}
LABEL_NAME = {"en": "Item", "ar": "البند"}


def shape_grid(grid: list[list[str]], s: FileStructure, language: str = "en") -> tuple[
        list[list[str]], list[list[str]], list[Cell], str, list[int], dict[str, str]]:
    """Header levels, body rows, cells, group column, total rows (body indices) and units by column name."""
    lang = language.split("-")[0]
    width = max((len(r) for r in grid), default=0)
    levels = [list(grid[r]) for r in range(s.header_rows) if r not in s.unit_rows]
    for (r, c), span in s.spans.items():  # restore the spans the file lost
        k = r - sum(1 for u in s.unit_rows if u < r)
        for j in range(c + 1, c + span):
            levels[k][j] = levels[k][c]
    if levels and not any(level[0].strip() for level in levels):
        levels[-1][0] = LABEL_NAME.get(lang, LABEL_NAME["en"])  # the label column, not "column 1"
    grouped = bool(s.sections)
    group = GROUP_NAME.get(lang, GROUP_NAME["en"]) if grouped else ""
    if grouped and not levels:  # no header: one level that names the group column (the others stay unnamed)
        levels = [[""] * width]
    rows: list[list[str]] = []
    totals: list[int] = []
    current = ""
    for r in range(s.header_rows, len(grid)):
        if r in s.sections:
            current = s.sections[r]
            continue
        if r in s.totals:
            totals.append(len(rows))
        rows.append(([current] if grouped else []) + list(grid[r]))
    if grouped:
        levels = [[group if k == len(levels) - 1 else "", *level] for k, level in enumerate(levels)]
    names = flatten_header(levels) if levels else [f"column {i + 1}" for i in range(width + grouped)]
    units = {names[c + grouped]: u for c, u in s.units.items() if c + grouped < len(names)}
    cells: list[Cell] = []
    for k, level in enumerate(levels):
        c = 0
        while c < len(level):
            span = 1
            while c + span < len(level) and level[c + span] == level[c] and level[c].strip() and k < len(levels) - 1:
                span += 1
            cells.append(Cell(row=k, col=c, text=level[c], colspan=span, header=True))
            c += span
    h = len(levels)
    if grouped:
        i = 0
        while i < len(rows):
            j = i
            while j < len(rows) and rows[j][0] == rows[i][0]:
                j += 1
            cells.append(Cell(row=h + i, col=0, text=rows[i][0], rowspan=j - i))
            i = j
    cells += [Cell(row=h + i, col=c, text=v) for i, row in enumerate(rows) for c, v in enumerate(row)
              if not (grouped and c == 0)]
    cells.sort(key=lambda x: (x.row, x.col))
    return levels, rows, cells, group, totals, units
