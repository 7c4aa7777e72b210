"""Local files as a source: real files written to tmp_path in every supported format, and bad input."""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from livetab.paths import shared_data
from livetab_scraper.sources import Failure, Fetched, build_source
from livetab_scraper.sources.base import Item


def run(location: Path, **options: Any) -> list[Item]:
    return list(build_source({"kind": "local_files", "location": str(location), **options}).fetch())


def one(location: Path, **options: Any) -> Fetched:
    items = run(location, **options)
    fetched = [i for i in items if isinstance(i, Fetched)]
    assert len(fetched) == 1, items
    return fetched[0]


def only_failure(location: Path, **options: Any) -> Failure:
    items = run(location, **options)
    assert len(items) == 1 and isinstance(items[0], Failure), items
    return items[0]


# ------------------------------------------------------------------ CSV / TSV


def test_cp1252_csv_with_semicolons_is_sniffed_and_recorded(tmp_path: Path) -> None:
    p = tmp_path / "prices.csv"
    p.write_bytes("Name;Città;Preis\nJosé;Zürich;€5\nRenée;Málaga;€12,50\n".encode("cp1252"))
    f = one(p)
    t = f.tables[0]
    assert t.header == [["Name", "Città", "Preis"]]
    assert t.rows == [["José", "Zürich", "€5"], ["Renée", "Málaga", "€12,50"]]
    assert f.extra["encoding"] == "cp1252" and f.extra["delimiter"] == ";"
    assert any("not UTF-8" in n and "offset" in n for n in f.notes)


def test_strict_utf8_refuses_a_non_utf8_csv_with_a_reason(tmp_path: Path) -> None:
    p = tmp_path / "prices.csv"
    p.write_bytes("Name,Stadt\nJosé,Zürich\n".encode("cp1252"))
    fail = only_failure(p, strict_utf8=True)
    assert "not UTF-8" in fail.reason and "0xe9" in fail.reason


def test_bytes_undefined_in_cp1252_fall_back_to_latin1(tmp_path: Path) -> None:
    p = tmp_path / "odd.csv"
    p.write_bytes(b"a,b\n\x81x,\xe9\n")
    f = one(p)
    assert f.extra["encoding"] == "latin-1" and f.tables[0].rows == [["\x81x", "é"]]


def test_tsv_with_bom_and_ragged_rows(tmp_path: Path) -> None:
    p = tmp_path / "scores.tsv"
    p.write_bytes("\ufeffteam\tgoals\tpoints\nAjax\t3\t9\nPSV\t1\n".encode())
    f = one(p)
    t = f.tables[0]
    assert f.extra["encoding"] == "utf-8-sig" and f.extra["delimiter"] == "\t"
    assert t.columns == ["team", "goals", "points"] and t.rows[1] == ["PSV", "1", ""]
    assert any("padded" in n for n in f.notes)


def test_wtq_reference_csv_reads_with_its_escapechar() -> None:
    path = next((shared_data() / "wiki_html" / "tables").glob("*.csv"))
    f = one(path, escapechar="\\")
    assert f.tables[0].n_rows >= 1 and f.tables[0].n_cols >= 2


@pytest.mark.parametrize(("data", "reason"), [
    (b"", "empty"),
    (b"\n\n  \n", "empty"),
    (b"only,a,header\n", "no data rows"),
    (b"\x00\x01\x02\xff\xfe\x00binary", "binary"),
])
def test_bad_csv_input_gives_a_reason(tmp_path: Path, data: bytes, reason: str) -> None:
    p = tmp_path / "bad.csv"
    p.write_bytes(data)
    assert reason in only_failure(p).reason


# ------------------------------------------------------------------ XLSX


def _workbook(path: Path) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Results"
    ws["A1"], ws["B1"] = "Name", "Score"
    ws.merge_cells("A1:A2")
    ws.merge_cells("B1:C1")
    ws["B2"], ws["C2"] = "Math", "Art"
    ws.append(["Ana", 12, 0.5])
    ws.append(["Ben", 7.0, 0.125])
    ws["C3"].number_format = "0%"
    ws["C4"].number_format = "0.0%"
    ws["D3"] = date(2026, 10, 5)
    wb.create_sheet("Empty")
    plain = wb.create_sheet("Plain")
    plain.append(["k", "v"])
    plain.append(["x", 1.25])
    wb.save(path)


def test_xlsx_keeps_merged_header_cells_and_reports_the_empty_sheet(tmp_path: Path) -> None:
    p = tmp_path / "book.xlsx"
    _workbook(p)
    items = run(p)
    fetched = [i for i in items if isinstance(i, Fetched)]
    failures = [i for i in items if isinstance(i, Failure)]
    assert len(fetched) == 1 and len(failures) == 1
    assert "sheet 'Empty' is empty" in failures[0].reason
    results, plain = fetched[0].tables
    assert results.header == [["Name", "Score", "Score", ""], ["Name", "Math", "Art", ""]]
    assert results.columns[:3] == ["Name", "Score - Math", "Score - Art"]
    assert results.rows == [["Ana", "12", "50%", "2026-10-05"], ["Ben", "7", "12.5%", ""]]
    spans = {(c.row, c.col): (c.rowspan, c.colspan) for c in results.cells}
    assert spans[(0, 0)] == (2, 1) and spans[(0, 1)] == (1, 2)
    assert results.source.title == "book — Results" and plain.source.table_index == 1
    assert plain.rows == [["x", "1.25"]] and results.id != plain.id


def test_a_damaged_xlsx_is_a_failure(tmp_path: Path) -> None:
    p = tmp_path / "broken.xlsx"
    p.write_bytes(b"PK\x03\x04 this is not really a zip")
    assert "not a readable XLSX" in only_failure(p).reason


# ------------------------------------------------------------------ JSON


def test_json_records_and_columns_data(tmp_path: Path) -> None:
    (tmp_path / "records.json").write_text(json.dumps([{"city": "Oslo", "pop": 709000},
                                                       {"city": "Bergen", "pop": 291000, "note": None}]))
    (tmp_path / "split.json").write_text(json.dumps({"columns": ["a", "b"], "data": [[1, True], [2, {"x": 1}]]}))
    items = run(tmp_path)
    by = {i.meta.uri: i for i in items if isinstance(i, Fetched)}
    rec = by["file:records.json"].tables[0]
    assert rec.columns == ["city", "pop", "note"] and rec.rows == [["Oslo", "709000", ""], ["Bergen", "291000", ""]]
    split = by["file:split.json"].tables[0]
    assert split.rows == [["1", "true"], ["2", '{"x": 1}']]
    assert by["file:split.json"].extra["shape"] == "columns+data"


@pytest.mark.parametrize(("text", "reason"), [
    ('[{"a": 1}, {"a": 2', "not valid JSON"),
    ('"just a string"', "not records"),
    ("[]", "no records"),
    ('[{"a": 1}, 3]', "must all be objects"),
    ('{"columns": ["a"], "data": [[1, 2]]}', "more values"),
])
def test_malformed_json_gives_a_reason(tmp_path: Path, text: str, reason: str) -> None:
    p = tmp_path / "bad.json"
    p.write_text(text)
    assert reason in only_failure(p).reason


# ------------------------------------------------------------------ Markdown


def test_markdown_pipe_tables_with_captions_and_escaped_pipes(tmp_path: Path) -> None:
    p = tmp_path / "notes.md"
    p.write_text("# Report\n\nSome text | not a table.\n\n## Ports\n\n| port | proto | use |\n|---:|:---:|---|\n"
                 "| 22 | tcp | ssh |\n| 53 | udp | dns \\| resolver |\n\n## Empty\n\n| a | b |\n|---|---|\n\n"
                 "text\n\nx | y\n--|--\n1 | 2\n")
    items = run(p)
    f = next(i for i in items if isinstance(i, Fetched))
    ports, xy = f.tables
    assert ports.caption == "Ports" and ports.columns == ["port", "proto", "use"]
    assert ports.rows == [["22", "tcp", "ssh"], ["53", "udp", "dns | resolver"]]
    assert xy.rows == [["1", "2"]]
    assert any(isinstance(i, Failure) and "no data rows" in i.reason for i in items)


def test_markdown_without_tables_is_a_failure(tmp_path: Path) -> None:
    p = tmp_path / "README.md"
    p.write_text("# Title\n\nJust prose, with a | pipe.\n")
    assert "no Markdown pipe tables" in only_failure(p).reason


# ------------------------------------------------------------------ DOCX


def _set_header_row(row: Any) -> None:
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    tr_pr = row._tr.get_or_add_trPr()
    el = OxmlElement("w:tblHeader")
    el.set(qn("w:val"), "true")
    tr_pr.append(el)


def _spec_docx(path: Path) -> None:
    import docx

    d = docx.Document()
    d.add_paragraph("5.2 Parameters")
    d.add_paragraph("Table 5.2-1: Subcarrier spacing per numerology")
    t = d.add_table(rows=6, cols=4)
    t.cell(0, 0).merge(t.cell(1, 0)).text = "μ"
    t.cell(0, 1).merge(t.cell(0, 2)).text = "Spacing"
    t.cell(0, 3).merge(t.cell(1, 3)).text = "Cyclic prefix"
    t.cell(1, 1).text, t.cell(1, 2).text = "kHz", "Δf"
    t.cell(2, 0).text, t.cell(2, 1).text, t.cell(2, 2).text, t.cell(2, 3).text = "0", "15", "2^0·15", "Normal"
    t.cell(3, 0).text, t.cell(3, 1).text, t.cell(3, 2).text = "1", "30", "2^1·15"
    t.cell(3, 3).merge(t.cell(4, 3)).text = "Normal, Extended"
    t.cell(4, 0).text, t.cell(4, 1).text, t.cell(4, 2).text = "2", "60", "2^2·15"
    t.cell(5, 0).merge(t.cell(5, 3)).text = "NOTE 1: Extended CP only for μ=2."
    _set_header_row(t.rows[0])
    _set_header_row(t.rows[1])
    d.add_paragraph("Between tables.")
    t2 = d.add_table(rows=3, cols=2)
    for r, (a, b) in enumerate([("Field", "Bits"), ("Type", "0101"), ("Length", "8")]):
        t2.cell(r, 0).text, t2.cell(r, 1).text = a, b
    d.save(str(path))


def test_docx_keeps_merged_cells_multilevel_header_caption_and_notes(tmp_path: Path) -> None:
    p = tmp_path / "38211.docx"
    _spec_docx(p)
    f = one(p)
    spec, plain = f.tables
    assert spec.caption == "Table 5.2-1: Subcarrier spacing per numerology"
    assert spec.header == [["μ", "Spacing", "Spacing", "Cyclic prefix"], ["μ", "kHz", "Δf", "Cyclic prefix"]]
    assert spec.columns == ["μ", "Spacing - kHz", "Spacing - Δf", "Cyclic prefix"]
    assert spec.rows == [["0", "15", "2^0·15", "Normal"], ["1", "30", "2^1·15", "Normal, Extended"],
                         ["2", "60", "2^2·15", "Normal, Extended"]]
    spans = {(c.row, c.col): (c.rowspan, c.colspan) for c in spec.cells}
    assert spans[(0, 0)] == (2, 1) and spans[(0, 1)] == (1, 2) and spans[(3, 3)] == (2, 1)
    assert spec.footnotes == ["NOTE 1: Extended CP only for μ=2."]
    assert [c.header for c in spec.cells if c.row < 2] == [True] * 5
    assert plain.header == [["Field", "Bits"]] and plain.rows == [["Type", "0101"], ["Length", "8"]]
    assert plain.caption == ""


def test_docx_header_levels_are_found_without_header_marks(tmp_path: Path) -> None:
    import docx

    d = docx.Document()
    t = d.add_table(rows=4, cols=3)
    t.cell(0, 0).merge(t.cell(1, 0)).text = "Band"
    t.cell(0, 1).merge(t.cell(0, 2)).text = "Range (MHz)"
    t.cell(1, 1).text, t.cell(1, 2).text = "low", "high"
    for r, row in enumerate([("n1", "1920", "1980"), ("n3", "1710", "1785")], start=2):
        for c, v in enumerate(row):
            t.cell(r, c).text = v
    p = tmp_path / "bands.docx"
    d.save(str(p))
    table = one(p).tables[0]
    assert len(table.header) == 2 and table.columns == ["Band", "Range (MHz) - low", "Range (MHz) - high"]
    assert table.rows == [["n1", "1920", "1980"], ["n3", "1710", "1785"]]


def test_docx_without_tables_and_a_damaged_docx_are_failures(tmp_path: Path) -> None:
    import docx

    d = docx.Document()
    d.add_paragraph("Only prose here.")
    p = tmp_path / "prose.docx"
    d.save(str(p))
    assert "no tables" in only_failure(p).reason
    bad = tmp_path / "bad.docx"
    bad.write_bytes(b"not a zip at all")
    assert "not a readable DOCX" in only_failure(bad).reason


# ------------------------------------------------------------------ HTML and folders


def test_html_file_goes_through_the_page_extractor(tmp_path: Path) -> None:
    src = shared_data() / "wiki_html" / "pages" / "203-0.html"
    p = tmp_path / "page.html"
    shutil.copy(src, p)
    f = one(p, html_selector="wikitable", domain="culture")
    assert f.tables and all(t.domain == "culture" and t.source.uri == "file:page.html" for t in f.tables)
    assert [t.source.table_index for t in f.tables] == list(range(len(f.tables)))


def test_html_file_without_tables_is_a_failure(tmp_path: Path) -> None:
    p = tmp_path / "empty.html"
    p.write_text("<html><body><p>nothing</p></body></html>")
    assert "no tables" in only_failure(p).reason


def test_a_folder_walk_is_sorted_skips_hidden_files_and_explains_unsupported_ones(tmp_path: Path) -> None:
    (tmp_path / "b.csv").write_text("x,y\n1,2\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.tsv").write_text("x\ty\n3\t4\n")
    (tmp_path / "old.xls").write_bytes(b"\xd0\xcf\x11\xe0")
    (tmp_path / ".hidden.csv").write_text("x\n1\n")
    items = run(tmp_path)
    assert [i.meta.uri if isinstance(i, Fetched) else Path(i.location).name for i in items] == [
        "file:b.csv", "old.xls", "file:sub/a.tsv"]
    xls = items[1]
    assert isinstance(xls, Failure) and "save it as .xlsx" in xls.reason
    assert len(run(tmp_path, limit=1)) == 1


def test_ids_depend_on_content_and_relative_path_not_on_the_machine(tmp_path: Path) -> None:
    for d in ("one", "two"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "t.csv").write_text("x,y\n1,2\n")
    a, b = one(tmp_path / "one").tables[0], one(tmp_path / "two").tables[0]
    assert a.id == b.id
    (tmp_path / "two" / "t.csv").write_text("x,y\n1,3\n")
    assert one(tmp_path / "two").tables[0].id != a.id


def test_missing_location_is_a_failure(tmp_path: Path) -> None:
    assert "no such file" in only_failure(tmp_path / "nowhere").reason


def test_max_bytes_is_honoured(tmp_path: Path) -> None:
    p = tmp_path / "big.csv"
    p.write_text("x,y\n" + "1,2\n" * 1000)
    assert "over max_bytes" in only_failure(p, max_bytes=100).reason
