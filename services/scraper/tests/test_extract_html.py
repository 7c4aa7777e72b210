"""Extraction details: Parsoid HTML, header levels, footnotes, captions, nested tables, selectors."""

from __future__ import annotations

from pathlib import Path

import pytest
from livetab.render import render
from livetab.tables import Source, Table
from livetab_scraper.extract import extract_tables
from livetab_scraper.profile import profile_table
from livetab_scraper.select import select_per_page
from livetab_scraper.sources.base import Fetched
from livetab_scraper.sources.files import LocalFilesConfig, LocalFilesSource

SRC = Source(kind="wikipedia", uri="https://de.wikipedia.org/wiki/Beispiel", revision="42")

# Current Parsoid (REST `page/html`) output: sections, tbody, ids on every element, mw-ref references
# whose links point at `./Title#cite_note-N`, and a references list with mw-reference-text spans.
PARSOID = """<!DOCTYPE html>
<html prefix="dc: http://purl.org/dc/terms/ mw: http://mediawiki.org/rdf/"
 about="https://de.wikipedia.org/wiki/Special:Redirect/revision/42"><head><meta charset="utf-8"/>
<meta property="mw:pageId" content="77"/><title>Beispiel</title><base href="//de.wikipedia.org/wiki/"/></head>
<body id="mwAA" lang="de" class="mw-content-ltr parsoid-body mediawiki mw-parser-output" dir="ltr">
<section data-mw-section-id="0" id="mwAQ"><p id="mwAg">Einleitung.</p>
<table class="infobox" id="mwAw"><tbody><tr><th>Land</th><td>Deutschland</td></tr></tbody></table></section>
<section data-mw-section-id="1" id="mwBA"><h2 id="Ergebnisse">Ergebnisse</h2>
<table class="wikitable sortable" id="mwBQ"><caption id="mwBg">Endstand 2026</caption>
<tbody id="mwBw"><tr id="mwCA"><th id="mwCQ" rowspan="2">Platz</th><th id="mwCg" rowspan="2">Verein</th>
<th colspan="2" id="mwCw">Tore</th><th rowspan="2">Zuschauer<sup about="#mwt5" class="mw-ref reference"
 id="cite_ref-1" rel="dc:references" typeof="mw:Extension/ref"><a href="./Beispiel#cite_note-1" id="mwDA">
<span class="mw-reflink-text"><span class="cite-bracket">[</span>1<span class="cite-bracket">]</span></span></a></sup></th></tr>
<tr id="mwDQ"><th>erzielt</th><th>erhalten</th></tr>
<tr><td>1</td><td><a rel="mw:WikiLink" href="./FC_Beispiel" title="FC Beispiel">FC Beispiel</a></td>
<td>71</td><td>30</td><td>1.234.567</td></tr>
<tr><td>2</td><td>SV Muster<span typeof="mw:Entity">&nbsp;</span>†</td><td>65</td><td>41</td><td>987.654,5</td></tr>
<tr><td>3</td><td><span class="sortkey" style="display:none">Z</span>Zeta<sup class="reference" id="cite_ref-a">
<a href="./Beispiel#cite_note-a">[a]</a></sup></td><td>60</td><td>44</td><td>—</td></tr>
</tbody></table>
<p>† Aufsteiger</p>
<table class="navbox" id="mwEA"><tbody><tr><td><table class="wikitable"><tbody><tr><th>x</th></tr>
<tr><td>y</td></tr></tbody></table></td></tr></tbody></table>
</section>
<section data-mw-section-id="2"><h2>Einzelnachweise</h2>
<div class="mw-references-wrap"><ol class="mw-references references" typeof="mw:Extension/references">
<li about="#cite_note-1" id="cite_note-1"><span class="mw-cite-backlink"><a href="./Beispiel#cite_ref-1"
 rel="mw:referencedBy"><span class="mw-linkback-text">↑ </span></a></span>
<span id="mw-reference-text-cite_note-1" class="mw-reference-text reference-text">Laut Verband, Stand Mai.</span></li>
<li id="cite_note-a"><span class="reference-text">Nach Entscheidung des Gerichts.</span></li>
</ol></div></section></body></html>"""


@pytest.fixture(scope="module")
def parsoid():  # type: ignore[no-untyped-def]
    return extract_tables(PARSOID, source=SRC, language="de")


def test_parsoid_multi_level_header_kept_as_levels(parsoid) -> None:  # type: ignore[no-untyped-def]
    t = parsoid.tables[0]
    assert t.header == [["Platz", "Verein", "Tore", "Tore", "Zuschauer"],
                        ["Platz", "Verein", "erzielt", "erhalten", "Zuschauer"]]
    assert t.columns == ["Platz", "Verein", "Tore - erzielt", "Tore - erhalten", "Zuschauer"]
    assert t.caption == "Endstand 2026"
    assert t.rows[0] == ["1", "FC Beispiel", "71", "30", "1.234.567"]


def test_parsoid_footnotes_separated_and_resolved(parsoid) -> None:  # type: ignore[no-untyped-def]
    t = parsoid.tables[0]
    assert t.rows[1][1] == "SV Muster" and t.rows[2][1] == "Zeta"  # nbsp, dagger, sort key, [a] gone
    assert "[1] Laut Verband, Stand Mai." in t.footnotes
    assert "[a] Nach Entscheidung des Gerichts." in t.footnotes
    assert "† Aufsteiger" in t.footnotes  # the legend under the table
    labels = {(m.row, m.col, m.label) for m in parsoid.markers[t.id]}
    assert {(0, 4, "[1]"), (3, 1, "†"), (4, 1, "[a]")} <= labels


def test_parsoid_column_types_use_page_language(parsoid) -> None:  # type: ignore[no-untyped-def]
    types = parsoid.tables[0].column_types
    assert types["Platz"] == "integer"
    assert types["Zuschauer"] == "decimal"  # 1.234.567 and 987.654,5 in German notation
    assert types["Verein"] == "text"


def test_infobox_is_not_a_wikitable_and_nested_wikitable_is_indexed(parsoid) -> None:  # type: ignore[no-untyped-def]
    assert [t.source.table_index for t in parsoid.tables] == [0, 1]
    assert parsoid.tables[1].rows == [["y"]]
    data = extract_tables(PARSOID, source=SRC, language="de", selector="data")
    # "data" mode: the infobox and the navbox wrapper are left out; the wikitable inside the navbox
    # is data by its own class, as in "wikitable" mode (real page 203-225 keeps its data table so)
    assert [(t.caption, t.rows) for t in data.tables] == [("Endstand 2026", parsoid.tables[0].rows), ("", [["y"]])]
    nav_only = PARSOID.replace('<table class="wikitable"><tbody><tr><th>x', '<table><tbody><tr><th>x')
    assert len(extract_tables(nav_only, source=SRC, language="de", selector="data").tables) == 1


def test_nested_table_in_a_cell_is_not_part_of_the_value() -> None:
    html = ("<table class='wikitable'><tr><th>a</th><th>b</th></tr><tr><td>1<table><tr><td>inner</td></tr>"
            "</table></td><td>2</td></tr></table>")
    res = extract_tables(html, source=SRC)
    assert res.tables[0].rows == [["1", "2"]]
    assert any("nested table" in w for w in res.warnings)


def test_row_headers_in_th_do_not_become_header_levels() -> None:
    html = ("<table class='wikitable'><tr><th>Name</th><th>Goals</th></tr>"
            "<tr><th>Ann</th><th>5</th></tr><tr><th>Bo</th><th>3</th></tr></table>")
    t = extract_tables(html, source=SRC).tables[0]
    assert t.header == [["Name", "Goals"]] and t.rows == [["Ann", "5"], ["Bo", "3"]]


def test_bold_first_row_is_a_header_and_plain_first_row_is_not() -> None:
    bold = "<table class='wikitable'><tr><td><b>Rank</b></td><td><b>Name</b></td></tr><tr><td>1</td><td>A</td></tr></table>"
    plain = "<table class='wikitable'><tr><td>1</td><td>A</td></tr><tr><td>2</td><td>B</td></tr></table>"
    assert extract_tables(bold, source=SRC).tables[0].header == [["Rank", "Name"]]
    t = extract_tables(plain, source=SRC).tables[0]
    assert t.header == [] and t.rows == [["1", "A"], ["2", "B"]]
    assert t.columns == ["column 1", "column 2"]


def test_line_breaks_kept_and_symbol_only_cell_kept() -> None:
    html = "<table class='wikitable'><tr><th>a</th><th>b</th></tr><tr><td>x<br>y</td><td>†</td></tr></table>"
    t = extract_tables(html, source=SRC).tables[0]
    assert t.rows == [["x\ny", "†"]]


def test_thead_rows_are_the_header() -> None:
    html = ("<table class='wikitable'><thead><tr><td>A</td><td>B</td></tr></thead>"
            "<tbody><tr><td>1</td><td>2</td></tr></tbody></table>")
    t = extract_tables(html, source=SRC).tables[0]
    assert t.header == [["A", "B"]] and t.rows == [["1", "2"]]


def test_cells_keep_spans_and_header_flags() -> None:
    html = ("<table class='wikitable'><tr><th colspan='2'>AB</th><th rowspan='2'>C</th></tr><tr><th>A</th><th>B</th></tr>"
            "<tr><td rowspan='2'>g</td><td>1</td><td>x</td></tr><tr><td>2</td><td>y</td></tr></table>")
    t = extract_tables(html, source=SRC).tables[0]
    assert t.header == [["AB", "AB", "C"], ["A", "B", "C"]]
    assert t.rows == [["g", "1", "x"], ["g", "2", "y"]]
    spans = {(c.row, c.col): (c.rowspan, c.colspan, c.header) for c in t.cells}
    assert spans[(0, 0)] == (1, 2, True) and spans[(0, 2)] == (2, 1, True) and spans[(2, 0)] == (2, 1, False)
    assert len(t.cells) == 9


def test_a_header_cell_spanning_every_column_is_the_title_not_a_header_level() -> None:
    html = ("<table class='wikitable'><tr><th colspan='3'>Climate data for Ilulissat</th></tr>"
            "<tr><th>Month</th><th>Jan</th><th>Feb</th></tr><tr><th>Mean °C</th><td>-16</td><td>-17</td></tr>"
            "<tr><th>Rain mm</th><td>12</td><td>11</td></tr></table>")
    t = extract_tables(html, source=SRC).tables[0]
    assert t.caption == "Climate data for Ilulissat"
    assert t.header == [["Month", "Jan", "Feb"]] and t.columns == ["Month", "Jan", "Feb"]
    assert t.rows == [["Mean °C", "-16", "-17"], ["Rain mm", "12", "11"]]
    assert [(c.row, c.col, c.text) for c in t.cells[:3]] == [(0, 0, "Month"), (0, 1, "Jan"), (0, 2, "Feb")]
    with_caption = html.replace("<tr>", "<caption>Weather</caption><tr>", 1)
    assert extract_tables(with_caption, source=SRC).tables[0].caption == "Weather — Climate data for Ilulissat"


SECTIONED = ("<table class='wikitable'><tr><th>Year</th><th>Competition</th><th>Pts</th><th></th></tr>"
             "<tr><th colspan='4'>Representing Poland</th></tr>"
             "<tr><td>2001</td><td>Europeans</td><td>10</td><td style='background:red'></td></tr>"
             "<tr><td>2002</td><td>Worlds</td><td>7</td><td style='background:blue'></td></tr>"
             "<tr><th colspan='4'>Representing Europe</th></tr>"
             "<tr><td>2003</td><td>World Cup</td><td>5</td><td style='background:red'></td></tr></table>")


def test_section_rows_become_row_groups_not_data_rows() -> None:
    result = extract_tables(SECTIONED, source=SRC)
    t = result.tables[0]
    assert t.group_column == "Section" and t.columns == ["Section", "Year", "Competition", "Pts"]
    assert t.rows == [["Representing Poland", "2001", "Europeans", "10"], ["Representing Poland", "2002", "Worlds", "7"],
                      ["Representing Europe", "2003", "World Cup", "5"]]  # the swatch column is gone too
    groups = [(c.row, c.rowspan, c.text, c.header) for c in t.cells if c.col == 0]
    assert groups == [(0, 1, "Section", True), (1, 2, "Representing Poland", True), (3, 1, "Representing Europe", True)]
    assert sum(int(r[3]) for r in t.rows) == 22
    assert any("2 full-width section row(s)" in w for w in result.warnings)
    assert any("1 decorative column" in w for w in result.warnings)
    assert profile_table(t).grouped_rows
    back = Table.from_proto(t.to_proto())
    assert back.group_column == "Section" and back.rows == t.rows
    html = render(t, "html").text  # each group one merged row-header cell over its rows
    assert '<th rowspan="2">Representing Poland</th><td>2001</td>' in html
    assert "<tr><td>2002</td><td>Worlds</td><td>7</td></tr>" in html


def test_a_swatch_column_filled_only_by_spanning_cells_is_dropped() -> None:
    html = ("<table class='wikitable'><tr><th colspan='2'>Party</th><th>Votes</th></tr>"
            "<tr><td style='background:red'></td><td>Red</td><td>10</td></tr>"
            "<tr><td colspan='3'>Not held</td></tr>"
            "<tr><td style='background:blue'></td><td>Blue</td><td>7</td></tr></table>")
    result = extract_tables(html, source=SRC)
    t = result.tables[0]
    assert t.header == [["Party", "Votes"]] and t.rows == [["Red", "10"], ["Not held", "Not held"], ["Blue", "7"]]
    assert [(c.text, c.colspan) for c in t.cells if c.row in (0, 2)] == [("Party", 1), ("Votes", 1), ("Not held", 2)]
    assert any("1 decorative column" in w for w in result.warnings)


def test_one_section_over_the_whole_body_is_the_caption() -> None:
    html = SECTIONED.split("<tr><th colspan='4'>Representing Europe")[0] + "</table>"
    t = extract_tables(html, source=SRC).tables[0]
    assert t.caption == "Representing Poland" and not t.group_column
    assert t.rows == [["2001", "Europeans", "10"], ["2002", "Worlds", "7"]]
    titled = html.replace("<tr>", "<tr><th colspan='4'>Results of A. Athlete</th></tr><tr>", 1)
    t = extract_tables(titled, source=SRC).tables[0]
    assert t.caption == "Results of A. Athlete — Representing Poland" and not t.group_column
    assert t.header == [["Year", "Competition", "Pts"]] and len(t.rows) == 2


def test_the_top_header_row_heads_the_first_section_when_the_body_has_sections() -> None:
    html = SECTIONED.replace("<tr><th colspan='4'>Representing Poland</th></tr>", "").replace(
        "<tr>", "<tr><th colspan='4'>Representing Poland</th></tr><tr>", 1)
    t = extract_tables(html, source=SRC).tables[0]
    assert t.caption == "" and t.header == [["Section", "Year", "Competition", "Pts"]]
    assert [r[0] for r in t.rows] == ["Representing Poland", "Representing Poland", "Representing Europe"]


def test_full_width_rows_under_each_data_row_are_that_rows_note() -> None:
    html = ("<table class='wikitable'><tr><th>No.</th><th>Title</th></tr>"
            "<tr><td>1</td><td>Pilot</td></tr><tr><td colspan='2'>The family moves.</td></tr>"
            "<tr><td>2</td><td>Return</td></tr><tr><td colspan='2'>They come back.</td></tr>"
            "<tr><td>3</td><td>End</td></tr></table>")
    result = extract_tables(html, source=SRC)
    t = result.tables[0]
    assert not t.group_column and t.caption == "" and t.columns == ["No.", "Title", "Note"]
    assert t.rows == [["1", "Pilot", "The family moves."], ["2", "Return", "They come back."], ["3", "End", ""]]
    assert [(c.row, c.col, c.text) for c in t.cells if c.col == 2] == [
        (0, 2, "Note"), (1, 2, "The family moves."), (2, 2, "They come back."), (3, 2, "")]
    assert any("2 full-width row(s) under single data rows read as their notes" in w for w in result.warnings)
    last = html.replace("</table>", "<tr><td colspan='2'>It ends.</td></tr></table>")
    result = extract_tables(last, source=SRC)
    assert result.tables[0].rows[-1] == ["3", "End", "It ends."]  # not taken for a footer row
    assert not result.tables[0].footnotes and not any("footer" in w for w in result.warnings)
    # a full-width row first in the body has no row above it: not a note; short, it opens a section
    first = html.replace("<tr><td>1</td><td>Pilot</td></tr>", "", 1)
    t = extract_tables(first, source=SRC).tables[0]
    assert t.columns == ["Section", "No.", "Title"] and [r[0] for r in t.rows] == ["The family moves.", "They come back."]
    long = first.replace("The family moves.", "The family moves to a farm in Oregon after the storm.")
    t = extract_tables(long, source=SRC).tables[0]
    assert t.columns == ["No.", "Title"] and len(t.rows) == 4  # long plain text: kept as rows


def test_a_long_full_width_data_cell_is_not_a_section_heading() -> None:
    html = ("<table class='wikitable'><tr><th>Season</th><th>Host</th></tr>"
            "<tr><td>1</td><td>A</td></tr><tr><td>2</td><td>B</td></tr>"
            "<tr><td colspan='2'>Persepolis won 1 – 0 on aggregate after extra time</td></tr>"
            "<tr><td>3</td><td>C</td></tr><tr><td>4</td><td>D</td></tr></table>")
    t = extract_tables(html, source=SRC).tables[0]
    assert not t.group_column and len(t.rows) == 5
    cancelled = html.replace("Persepolis won 1 – 0 on aggregate after extra time", "Cancelled (war)")
    t = extract_tables(cancelled, source=SRC).tables[0]
    assert not t.group_column and len(t.rows) == 5  # a short plain row among ungrouped rows is a note
    sectioned = cancelled.replace("<tr><td>1</td>", "<tr><td colspan='2'>Group A</td></tr><tr><td>1</td>", 1)
    t = extract_tables(sectioned, source=SRC).tables[0]
    assert t.group_column and [r[0] for r in t.rows] == ["Group A", "Group A", "Cancelled (war)", "Cancelled (war)"]


def test_furniture_classed_wikitable_is_skipped_in_every_mode_and_keeps_its_index() -> None:
    html = ("<table class='float-right infobox wikitable'><tr><th>Born</th><td>1900</td></tr></table>"
            "<table class='wikitable'><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>"
            "<table class='wikitable succession-box'><tr><th>Preceded by</th><th>Succeeded by</th></tr>"
            "<tr><td>X</td><td>Y</td></tr></table>")
    for selector in ("wikitable", "data"):
        result = extract_tables(html, source=SRC, selector=selector)
        assert [t.rows for t in result.tables] == [[["1", "2"]]], selector
    wiki = extract_tables(html, source=SRC)
    assert [t.source.table_index for t in wiki.tables] == [1]
    assert wiki.errors == ["table 0: is page furniture (class 'infobox'), not data",
                           "table 2: is page furniture (class 'succession-box'), not data"]


def test_a_header_repeated_at_the_bottom_is_not_a_data_row() -> None:
    head = "<tr><th>Pos</th><th>Team</th><th>Pts</th></tr>"
    html = (f"<table class='wikitable'>{head}<tr><td>1</td><td>Ajax</td><td>80</td></tr>"
            f"<tr><td>2</td><td>PSV</td><td>75</td></tr>{head}</table>")
    result = extract_tables(html, source=SRC)
    assert result.tables[0].rows == [["1", "Ajax", "80"], ["2", "PSV", "75"]]
    assert any("1 body row(s) repeating the header" in w for w in result.warnings)
    as_data = html.replace(head + "</table>", "<tr><td>Pos</td><td>Team</td><td>Pts</td></tr></table>")
    assert len(extract_tables(as_data, source=SRC).tables[0].rows) == 3  # plain cells are data


FURNITURE_PAGE = (  # each furniture box is larger than the data table, so a size rule would pick it if kept
    "<table class='float-right infobox wikitable sortable'>"
    + "".join(f"<tr><th>Field {i}</th><td>value {i}</td></tr>" for i in range(8)) + "</table>"
    "<table class='wikitable sortable'><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>"
    "<table class='wikitable succession-box sortable'><tr><th>Preceded by</th><th>Title</th><th>Succeeded by</th></tr>"
    + "".join(f"<tr><td>P{i}</td><td>T{i}</td><td>S{i}</td></tr>" for i in range(4)) + "</table>"
    "<table class='navbox wikitable sortable'>"
    + "".join(f"<tr><th>Group {i}</th><td>A · B · C</td><td>D · E</td></tr>" for i in range(6)) + "</table>"
)


@pytest.mark.parametrize("selector", ["wikitable", "sortable", "data"])
@pytest.mark.parametrize("rule", ["first", "largest", "all", "index"])
def test_infobox_succession_box_and_navbox_are_excluded_under_every_selector_and_rule(selector: str, rule: str) -> None:
    result = extract_tables(FURNITURE_PAGE, source=SRC, selector=selector)
    assert [t.rows for t in result.tables] == [[["1", "2"]]], (selector, result.errors)
    if selector != "data":  # a class-token selector reports each furniture table it matched, by index
        assert [e.split(":")[0] for e in result.errors] == ["table 0", "table 2", "table 3"]
        assert all("page furniture" in e for e in result.errors)
    index = result.tables[0].source.table_index
    kept = select_per_page(result.tables, rule=rule, index=index if rule == "index" else None)
    assert [t.rows for t in kept] == [[["1", "2"]]]


def test_furniture_is_excluded_from_html_files_too(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text(f"<html><body>{FURNITURE_PAGE}</body></html>", encoding="utf-8")
    for selector in ("data", "wikitable"):
        items = list(LocalFilesSource(LocalFilesConfig(location=str(tmp_path), html_selector=selector)).fetch())
        tables = [t for item in items if isinstance(item, Fetched) for t in item.tables]
        assert [t.rows for t in tables] == [[["1", "2"]]], selector
