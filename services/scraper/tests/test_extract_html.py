"""Extraction details: Parsoid HTML, header levels, footnotes, captions, nested tables, selectors."""

from __future__ import annotations

import pytest
from livetab.tables import Source
from livetab_scraper.extract import extract_tables

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
    # "data" mode: infobox and the navbox (and what is inside it) are left out
    assert [t.caption for t in data.tables] == ["Endstand 2026"]


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
    html = ("<table class='wikitable'><tr><th colspan='2'>AB</th></tr><tr><th>A</th><th>B</th></tr>"
            "<tr><td rowspan='2'>g</td><td>1</td></tr><tr><td>2</td></tr></table>")
    t = extract_tables(html, source=SRC).tables[0]
    assert t.header == [["AB", "AB"], ["A", "B"]]
    assert t.rows == [["g", "1"], ["g", "2"]]
    spans = {(c.row, c.col): (c.rowspan, c.colspan, c.header) for c in t.cells}
    assert spans[(0, 0)] == (1, 2, True) and spans[(2, 0)] == (2, 1, False)
    assert len(t.cells) == 6
