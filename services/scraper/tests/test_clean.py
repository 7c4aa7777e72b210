"""Cleaning, size selection and deduplication of tables (FreshTab's thresholds as defaults)."""

from __future__ import annotations

import json

from livetab.paths import shared_data
from livetab.tables import Cell, Source, Table
from livetab_scraper.clean import Rejection, clean_table, content_hash, dedupe, drop_empty, remove_citations
from livetab_scraper.extract import extract_tables

SRC = Source(kind="test", uri="mem://t", revision="1")


def make(rows: list[list[str]], header: list[list[str]] | None = None) -> Table:
    header = header if header is not None else [[f"c{i}" for i in range(len(rows[0]))]]
    h = len(header)
    cells = [Cell(row=r, col=c, text=v, header=r < h) for r, row in enumerate([*header, *rows]) for c, v in enumerate(row)]
    return Table(id="tab_x", source=SRC, header=header, rows=rows, cells=cells)


def body(n: int) -> list[list[str]]:
    return [[f"name {i}", str(i * 10), f"city {i % 3}", "same"] for i in range(n)]


def test_citations_nulls_constant_and_long_cells() -> None:
    rows = body(8)
    rows[0][0] = "name 0[1]"
    rows[1][1] = "—"
    rows[2][2] = "x" * 200
    t = clean_table(make(rows), min_non_empty=10)
    assert isinstance(t, Table)
    assert t.header == [["c0", "c1", "c2"]]  # the constant column "same" is gone
    assert t.rows[0][0] == "name 0" and t.rows[1][1] == "" and t.rows[2][2] == ""
    assert t.column_types["c1"] == "integer"


def test_mostly_empty_column_and_empty_rows_dropped() -> None:
    rows = [[f"n{i}", str(i), "", f"k{i}"] for i in range(8)]
    rows[0][2] = "only one"
    rows.insert(3, ["", "n/a", "—", ""])
    t = clean_table(make(rows), min_non_empty=10)
    assert isinstance(t, Table)
    assert t.n_rows == 8 and t.columns == ["c0", "c1", "c3"]


def test_size_rejections_name_the_threshold() -> None:
    small = clean_table(make(body(3)))
    assert isinstance(small, Rejection) and "min_rows=5" in small.reason
    narrow = clean_table(make([[f"a{i}", str(i)] for i in range(9)]))
    assert isinstance(narrow, Rejection) and "min_cols=3" in narrow.reason
    wide = clean_table(make([[f"v{i}{c}" for c in range(12)] for i in range(9)]))
    assert isinstance(wide, Rejection) and "max_cols=10" in wide.reason
    sparse_rows = [[f"n{i}", str(i) if i % 2 else "", f"x{i}" if i % 3 else ""] for i in range(12)]
    sparse = clean_table(make(sparse_rows), max_col_empty_ratio=0.9, min_non_empty=5)
    assert isinstance(sparse, Rejection) and "max_empty_ratio" in sparse.reason
    few = clean_table(make(body(6)))
    assert isinstance(few, Rejection) and "min_non_empty=20" in few.reason
    assert isinstance(clean_table(make(body(6)), min_non_empty=18), Table)


def test_long_tables_shortened_by_rows_and_characters() -> None:
    t = clean_table(make(body(80)))
    assert isinstance(t, Table) and t.n_rows == 50
    t2 = clean_table(make(body(80)), max_table_chars=600)
    assert isinstance(t2, Table) and 5 <= t2.n_rows < 50
    assert sum(len(v) + 1 for r in [*t2.header, *t2.rows] for v in r) <= 600


def test_thresholds_are_honoured_when_changed() -> None:
    assert isinstance(clean_table(make(body(3)), min_rows=3, min_non_empty=9), Table)
    t = clean_table(make(body(30)), max_rows=10)
    assert isinstance(t, Table) and t.n_rows == 10
    kept = clean_table(make(body(8)), drop_constant_columns=False)
    assert isinstance(kept, Table) and kept.n_cols == 4


def test_cells_follow_dropped_columns_and_rows() -> None:
    html = (shared_data() / "wiki_html" / "pages" / "203-714.html").read_text(encoding="utf-8")
    meta = json.loads((shared_data() / "wiki_html" / "pages" / "203-714.json").read_text())
    result = extract_tables(html, source=SRC)
    table = result.tables[meta["tableIndex"]]
    # "Season" spans a colour-swatch column on the page; the extractor drops the swatch column
    assert table.header[0][:2] == ["Season", "Episodes"]
    assert any(w.startswith(f"table {meta['tableIndex']}: 1 decorative column") for w in result.warnings)
    head = [c for c in table.cells if c.row == 0]
    assert (head[0].text, head[0].colspan) == ("Season", 1)
    # drop_empty shrinks spans the same way on a table that still has such a column
    header = [["Season", "Season", "Episodes"]]
    rows = [["", "1", "13"], ["", "2", "12"]]
    cells = [Cell(0, 0, "Season", colspan=2, header=True), Cell(0, 2, "Episodes", header=True)]
    cells += [Cell(r + 1, c, v) for r, row in enumerate(rows) for c, v in enumerate(row)]
    cleaned = drop_empty(Table(id="t", source=SRC, header=header, rows=rows, cells=cells))
    assert cleaned.columns == ["Season", "Episodes"] and cleaned.rows == [["1", "13"], ["2", "12"]]
    head = [c for c in cleaned.cells if c.row == 0]
    assert (head[0].text, head[0].colspan) == ("Season", 1)
    for t in (table, cleaned):
        width = t.n_cols
        assert all(c.col + c.colspan <= width for c in t.cells)
        slots = sum(c.rowspan * c.colspan for c in t.cells)
        assert slots == width * (len(t.header) + t.n_rows)


def test_flatten_header_option() -> None:
    header = [["Name", "Goals", "Goals"], ["Name", "Home", "Away"]]
    rows = [[f"p{i}", str(i), str(i + 1)] for i in range(8)]
    cells = [Cell(0, 0, "Name", rowspan=2, header=True), Cell(0, 1, "Goals", colspan=2, header=True),
             Cell(1, 1, "Home", header=True), Cell(1, 2, "Away", header=True)]
    cells += [Cell(r + 2, c, v) for r, row in enumerate(rows) for c, v in enumerate(row)]
    t = Table(id="t", source=SRC, header=header, rows=rows, cells=cells)
    flat = clean_table(t, flatten_header=True, min_non_empty=10)
    assert isinstance(flat, Table)
    assert flat.header == [["Name", "Goals - Home", "Goals - Away"]]
    assert all(c.row >= 1 for c in flat.cells if not c.header) and min(c.row for c in flat.cells if not c.header) == 1


def test_remove_citations() -> None:
    assert remove_citations("Officer[1]") == "Officer"
    assert remove_citations("Total [note 3][citation needed]") == "Total"
    assert remove_citations("Array[index]") == "Array[index]"


def test_dedupe_by_content_hash() -> None:
    a = make(body(6))
    b = make([[v.upper() if v == "same" else v for v in r] for r in body(6)])  # case differs only
    c = make(body(7))
    assert content_hash(a) == content_hash(b) != content_hash(c)
    kept, dropped = dedupe([a, b, c])
    assert kept == [a, c] and len(dropped) == 1 and "duplicate" in dropped[0].reason


def test_empty_table_rejected() -> None:
    t = Table(id="e", source=SRC, header=[], rows=[])
    r = clean_table(t)
    assert isinstance(r, Rejection) and r.reason == "table is empty"


def test_select_per_page_rules() -> None:
    from livetab_scraper.select import select_per_page

    def on_page(uri: str, index: int, n: int) -> Table:
        t = make(body(n))
        t.source = Source(kind="test", uri=uri, revision="1", table_index=index)
        return t

    tables = [on_page("a", 0, 3), on_page("a", 1, 9), on_page("a", 2, 5), on_page("b", 0, 4)]
    largest = select_per_page(tables)
    assert [(t.source.uri, t.source.table_index) for t in largest] == [("a", 1), ("b", 0)]
    assert [t.source.table_index for t in select_per_page(tables, rule="first", limit=2)] == [0, 1, 0]
    assert len(select_per_page(tables, rule="all")) == 4
    assert [t.source.uri for t in select_per_page(tables, rule="index", index=2)] == ["a"]


def test_the_row_group_column_survives_cleaning_or_is_unnamed_with_it() -> None:
    html = ("<table class='wikitable'><tr><th>Year</th><th>Event</th><th>Place</th><th>Pts</th></tr>"
            + "<tr><th colspan='4'>Representing Poland</th></tr>"
            + "".join(f"<tr><td>{2000 + i}</td><td>Ev {i}</td><td>City {i}</td><td>{i}</td></tr>" for i in range(6))
            + "<tr><th colspan='4'>Representing Europe</th></tr>"
            + "".join(f"<tr><td>{2010 + i}</td><td>Cup {i}</td><td>Town {i}</td><td>{i}</td></tr>" for i in range(3))
            + "</table>")
    table = extract_tables(html, source=SRC).tables[0]
    assert table.group_column == "Section"
    kept = clean_table(table)
    assert isinstance(kept, Table) and kept.group_column == "Section" and kept.columns[0] == "Section"
    assert [c.text for c in kept.cells if c.col == 0] == ["Section", "Representing Poland", "Representing Europe"]
    # rows above the first section row have no heading: a mostly empty Section column is dropped
    late = html.replace("<tr><th colspan='4'>Representing Poland</th></tr>", "")
    table = extract_tables(late, source=SRC).tables[0]
    assert table.group_column == "Section" and [r[0] for r in table.rows].count("") == 6
    cleaned = clean_table(table)
    assert isinstance(cleaned, Table) and cleaned.group_column == "" and "Section" not in cleaned.columns


def test_total_rows_follow_the_rows_that_cleaning_keeps() -> None:
    rows = [["a", "1", "2"], ["", "", ""], ["b", "3", "4"], ["Total", "4", "6"], ["c", "5", "6"], ["d", "7", "8"],
            ["e", "9", "1"], ["Grand total", "29", "27"]]
    table = make(rows)
    table.total_rows = [3, 7]
    assert drop_empty(table).total_rows == [2, 6]  # the empty row above is gone: the same rows, renumbered
    cleaned = clean_table(table, min_rows=1, min_non_empty=1, max_rows=6, drop_constant_columns=False)
    assert isinstance(cleaned, Table)
    assert [cleaned.rows[i][0] for i in cleaned.total_rows] == ["Total"]  # "Grand total" fell past max_rows
