"""Renderings: every format, combinations, truncation, the header tree, and the drawn PNG."""

from __future__ import annotations

import csv
import io
import json

import pytest
from livetab.paths import shared_data
from livetab.render import FORMATS, count_tokens, header_tree, pipe_table, render, render_png
from livetab.render_image import layout
from livetab.tables import Cell, Source, Table
from livetab_scraper.extract import extract_tables
from lxml import html as lxml_html
from PIL import Image

SRC = Source(kind="test", uri="mem://r", revision="1")


def two_level() -> Table:
    header = [["Name", "Goals", "Goals"], ["Name", "Home", "Away"]]
    rows = [["Ann", "3", "1"], ["Bo|b", "0", "2"], ["Cy", "5", "5"]]
    cells = [Cell(0, 0, "Name", rowspan=2, header=True), Cell(0, 1, "Goals", colspan=2, header=True),
             Cell(1, 1, "Home", header=True), Cell(1, 2, "Away", header=True),
             Cell(2, 0, "Ann"), Cell(2, 1, "3"), Cell(2, 2, "1"),
             Cell(3, 0, "Bo|b"), Cell(3, 1, "0", rowspan=1), Cell(3, 2, "2"),
             Cell(4, 0, "Cy"), Cell(4, 1, "5"), Cell(4, 2, "5")]
    return Table(id="t", source=SRC, header=header, rows=rows, cells=cells, caption="Scores",
                 footnotes=["[1] Home games only."])


def real_table(page: str) -> Table:
    meta = json.loads((shared_data() / "wiki_html" / "pages" / f"{page}.json").read_text())
    html = (shared_data() / "wiki_html" / "pages" / f"{page}.html").read_text(encoding="utf-8")
    res = extract_tables(html, source=SRC)
    return next(t for t in res.tables if t.source.table_index == meta["tableIndex"])


def test_csv_round_trips() -> None:
    r = render(two_level(), "csv")
    assert list(csv.reader(io.StringIO(r.text))) == [
        ["Name", "Goals - Home", "Goals - Away"], ["Ann", "3", "1"], ["Bo|b", "0", "2"], ["Cy", "5", "5"]]
    assert not r.truncated and r.tokens == count_tokens(r.text) > 0


def test_markdown_escapes_pipes_and_shows_caption() -> None:
    text = render(two_level(), "markdown").text
    assert "| Name | Goals - Home | Goals - Away |" in text
    assert "| Bo\\|b | 0 | 2 |" in text and text.startswith("**Scores**")


def test_html_keeps_spans_and_parses_back() -> None:
    text = render(two_level(), "html").text
    assert '<th rowspan="2">Name</th>' in text and '<th colspan="2">Goals</th>' in text
    doc = lxml_html.fromstring(text)
    assert len(doc.findall(".//thead/tr")) == 2 and len(doc.findall(".//tbody/tr")) == 3
    back = extract_tables(f"<table class='wikitable'>{text[len('<table>'):]}", source=SRC).tables[0]
    assert back.header == two_level().header and back.rows == two_level().rows


def test_json_records_with_header_tree() -> None:
    doc = json.loads(render(two_level(), "json").text)
    assert doc["header"] == [
        {"label": "Name", "columns": [0, 0]},
        {"label": "Goals", "columns": [1, 2], "children": [
            {"label": "Home", "columns": [1, 1]}, {"label": "Away", "columns": [2, 2]}]},
    ]
    assert doc["records"][0] == {"Name": "Ann", "Goals - Home": "3", "Goals - Away": "1"}
    assert doc["footnotes"] == ["[1] Home games only."]


def test_header_tree_of_repeated_names_keeps_them_apart() -> None:
    assert header_tree([["Round", "Round", "Race"]]) == [
        {"label": "Round", "columns": [0, 1]}, {"label": "Race", "columns": [2, 2]}]


def test_text_serialisation() -> None:
    text = render(two_level(), "text").text.splitlines()
    assert text[0] == "table: Scores"
    assert text[1] == "row 1: Name is Ann; Goals - Home is 3; Goals - Away is 1."


def test_pipe_table_for_judge_and_validator_prompts() -> None:
    t = two_level()
    assert pipe_table(t).splitlines() == ["Table: Scores", "Name | Goals - Home | Goals - Away", "Ann | 3 | 1",
                                          "Bo|b | 0 | 2", "Cy | 5 | 5"]
    capped = pipe_table(t, max_rows=1)
    assert capped.splitlines()[-1] == "... (2 more rows not shown)" and "Cy" not in capped
    assert pipe_table(t, max_chars=20).endswith("\n... (truncated)")
    bare = Table(id="b", source=SRC, header=[["a"]], rows=[["x\ny"]])
    assert pipe_table(bare) == "Table:\na\nx y"


def test_combination_and_unknown_format() -> None:
    both = render(two_level(), "html+json")
    assert both.text.startswith("<table>") and both.text.rstrip().endswith("}")
    assert both.tokens == count_tokens(both.text)
    with pytest.raises(ValueError, match="unknown table format"):
        render(two_level(), "yaml")


@pytest.mark.parametrize("fmt", FORMATS)
def test_row_cap_truncation_is_recorded(fmt: str) -> None:
    table = real_table("203-0")
    full = render(table, fmt)
    cut = render(table, fmt, max_rows=5)
    assert not full.truncated and cut.truncated and cut.rows_shown == 5
    assert cut.tokens < full.tokens


def test_html_truncation_clips_rowspans() -> None:
    table = real_table("203-514")  # rowspans of 2 over R1/R2 rows
    text = render(table, "html", max_rows=1).text
    assert 'rowspan="2"' not in text.split("<tbody>")[1]


def test_png_decodes_and_shows_merged_cells() -> None:
    table = two_level()
    data = render_png(table)
    img = Image.open(io.BytesIO(data))
    img.load()
    assert img.format == "PNG" and img.width > 50 and img.height > 50
    boxes, _, _ = layout(table)
    goals = next(b for b in boxes if b.cell.text == "Goals")
    home = next(b for b in boxes if b.cell.text == "Home")
    away = next(b for b in boxes if b.cell.text == "Away")
    assert goals.x0 == home.x0 and goals.x1 == away.x1  # one box over both columns
    rgb = img.convert("RGB")
    # The rule between Home and Away is drawn in the second header row but not through "Goals" above.
    x = home.x1
    y_merged = goals.y0 + 3
    y_split = (home.y0 + home.y1) // 2
    assert rgb.getpixel((x, y_split)) == (60, 60, 60)
    assert rgb.getpixel((x, y_merged)) != (60, 60, 60)


def test_png_of_real_table_with_rowspans() -> None:
    table = real_table("203-514")
    img = Image.open(io.BytesIO(render_png(table, max_rows=6)))
    assert img.size[0] > 300
    boxes, _, _ = layout(table, max_rows=6)
    assert any(b.cell.rowspan == 2 and not b.cell.header for b in boxes)
