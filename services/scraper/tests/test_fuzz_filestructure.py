"""Property-based fuzzing of the structure reader for tables as companies publish them.

Generated grids have 1-3 header rows (labels, years, unit rows such as `$m` / `%`, unit phrases), a body
of data rows, label-only section rows and total rows, with accounting numbers (`(1,234)`, `—`, `12.5%`)
and random text. Each grid goes through the path the product uses for files (written as CSV, read by
`read_table_file`, which runs `filestructure`), and an equivalent `<table>` (header rows as `<th>`, a
label followed by empty cells as one `colspan` cell, section rows as one full-width cell) goes through
the HTML extractor (as a file and as a page). For every input: no exception, every rejection has a
reason, and what comes back is consistent: every row as wide as the columns, the header shallower than
the grid, total rows and section rows inside the body, units only on existing columns.
"""

from __future__ import annotations

import csv
import html as htmlmod
import io
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from livetab.tables import Source, Table
from livetab_scraper.extract import extract_tables
from livetab_scraper.filestructure import read_file_structure
from livetab_scraper.sources.base import Failure, Fetched
from livetab_scraper.sources.files import LocalFilesConfig, read_table_file

SRC = Source(kind="wikipedia", uri="https://en.wikipedia.org/wiki/FuzzStructure", revision="1")
FUZZ = dict(deadline=None, derandomize=True, database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])

TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=8)
LABELS = st.one_of(st.sampled_from(["Revenue", "Cost of sales", "Segment", "Fiscal Year Ended June 30,",
                                    "December 31,", "Year ended December 31,", "", "Change", "الإجمالي",
                                    "Ωμέγα", "(In thousands, except percentages)"]), TEXT)
HEAD_CELLS = st.one_of(st.sampled_from(["2019", "2018", "2017", "FY2020", "$m", "%", "£m", "$'000", "($)",
                                        "", "", "Amount", "% change", "Notes"]), LABELS)
AMOUNTS = st.one_of(st.sampled_from(["(1,234)", "—", "12.5%", "$1,193,066", "(872,454)", "-", "n/a", "0",
                                     "1,577", "3.2", "$ —", "", "2019", "12 %", "(0.4)%"]),
                    st.integers(-10**7, 10**7).map(lambda v: f"{v:,}"),
                    st.integers(0, 10**6).map(lambda v: f"({v:,})"), TEXT)
ROW_KIND = st.sampled_from(["data", "data", "data", "section", "total", "blank"])


@st.composite
def grids(draw: st.DrawFn) -> tuple[list[list[str]], int]:
    """A rectangular grid and its number of header rows as written."""
    width = draw(st.integers(2, 5))
    n_head = draw(st.integers(1, 3))
    grid: list[list[str]] = []
    for _ in range(n_head):
        grid.append([draw(LABELS), *(draw(HEAD_CELLS) for _ in range(width - 1))])
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(ROW_KIND)
        if kind == "section":
            grid.append([draw(LABELS), *([""] * (width - 1))])
        elif kind == "total":
            grid.append([draw(st.sampled_from(["Total", "Subtotal", "Total revenue", "Grand total", "الإجمالي"])),
                         *(draw(AMOUNTS) for _ in range(width - 1))])
        elif kind == "blank":
            grid.append([""] * width)
        else:
            grid.append([draw(LABELS), *(draw(AMOUNTS) for _ in range(width - 1))])
    return grid, n_head


def check_table(t: Table) -> None:
    cols = t.columns
    assert cols and all(len(level) == len(cols) for level in t.header)
    assert all(len(r) == len(cols) for r in t.rows)
    assert t.rows, "a table is returned with body rows"
    n = len(t.header) + len(t.rows)
    assert len(t.header) < n
    assert all(0 <= i < len(t.rows) for i in t.total_rows) and len(set(t.total_rows)) == len(t.total_rows)
    assert set(t.column_units) <= set(cols)
    assert not t.group_column or cols[0] == t.group_column
    for c in t.cells:
        assert 0 <= c.col and c.col + c.colspan <= len(cols)
        assert 0 <= c.row and c.row + c.rowspan <= n


def check_items(items: list[object]) -> list[Table]:
    assert items
    tables: list[Table] = []
    for item in items:
        if isinstance(item, Failure):
            assert item.reason.strip()
        else:
            assert isinstance(item, Fetched)
            assert item.tables
            tables.extend(item.tables)
    for t in tables:
        check_table(t)
    return tables


def to_csv(grid: list[list[str]]) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(grid)
    return out.getvalue().encode("utf-8")


def to_html(grid: list[list[str]], n_head: int) -> str:
    width = len(grid[0])
    out = ["<table class='wikitable'>"]
    for r, row in enumerate(grid):
        tag = "th" if r < n_head else "td"
        if r >= n_head and row[0].strip() and not any(v.strip() for v in row[1:]):
            out.append(f"<tr><th colspan='{width}'>{htmlmod.escape(row[0])}</th></tr>")  # section row
            continue
        cells: list[str] = []
        c = 0
        while c < width:
            span = 1
            if r < n_head and row[c].strip():  # a header label over the empty cells after it
                while c + span < width and not row[c + span].strip():
                    span += 1
            attr = f" colspan='{span}'" if span > 1 else ""
            cells.append(f"<{tag}{attr}>{htmlmod.escape(row[c])}</{tag}>")
            c += span
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "".join(out)


@settings(max_examples=150, **FUZZ)  # type: ignore[arg-type]
@given(grids())
def test_structure_reader_invariants(case: tuple[list[list[str]], int]) -> None:
    grid, _ = case
    s = read_file_structure(grid)
    n = len(grid)
    assert 0 <= s.header_rows <= n
    assert all(0 <= r < s.header_rows for r in s.unit_rows)
    assert all(s.header_rows <= r < n for r in s.totals)
    assert all(s.header_rows <= r < n for r in s.sections)
    assert not set(s.totals) & set(s.sections)
    assert all(0 <= c < len(grid[0]) for c in s.units)


@settings(max_examples=120, **FUZZ)  # type: ignore[arg-type]
@given(grids())
def test_csv_file_through_the_files_source(tmp_path_factory, case: tuple[list[list[str]], int]) -> None:  # type: ignore[no-untyped-def]
    grid, _ = case
    folder: Path = tmp_path_factory.mktemp("csv")
    path = folder / "report.csv"
    path.write_bytes(to_csv(grid))
    cfg = LocalFilesConfig(location=str(folder))
    tables = check_items(list(read_table_file(path, cfg, folder)))
    for t in tables:
        if len(grid) > 1 and t.header:
            assert len(t.header) < len(grid)


@settings(max_examples=120, **FUZZ)  # type: ignore[arg-type]
@given(grids())
def test_equivalent_html_table(tmp_path_factory, case: tuple[list[list[str]], int]) -> None:  # type: ignore[no-untyped-def]
    grid, n_head = case
    page = to_html(grid, n_head)
    for selector in ("wikitable", "data"):
        res = extract_tables(page, source=SRC, selector=selector)
        assert res.tables or res.errors
        assert all(e.strip() for e in res.errors)
        for t in res.tables:
            check_table(t)
    folder: Path = tmp_path_factory.mktemp("html")
    path = folder / "report.html"
    path.write_text(f"<html><body>{page}</body></html>", encoding="utf-8")
    check_items(list(read_table_file(path, LocalFilesConfig(location=str(folder)), folder)))


def test_headerless_grid_with_a_section_row_names_its_group_column(tmp_path: Path) -> None:
    # Found by the fuzz test above: the first row states an amount (no header), a later row is a section
    # heading; the table said `group_column="Section"` while its columns were "column 1", "column 2", ...
    path = tmp_path / "t.csv"
    path.write_bytes(to_csv([["Revenue", "2019"], ["Europe", ""], ["Revenue", "12"], ["Cost", "(3)"]]))
    [fetched] = read_table_file(path, LocalFilesConfig(location=str(tmp_path)), tmp_path)
    assert isinstance(fetched, Fetched)
    [t] = fetched.tables
    check_table(t)
    assert t.group_column == "Section" and t.columns[0] == "Section"
    assert t.rows == [["", "Revenue", "2019"], ["Europe", "Revenue", "12"], ["Europe", "Cost", "(3)"]]
