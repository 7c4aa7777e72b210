"""Property-based fuzzing of the HTML extractor: thousands of generated pages, no unhandled exception.

Two generators: structured table markup (random sequences of table parts, spans with odd values,
markers, hidden text, unclosed and stray tags) and raw text built from HTML-ish fragments and arbitrary
characters. For every input the extractor must return, and every table it returns must be a
rectangular grid whose original cells lie inside it.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from livetab.render import render
from livetab.tables import Source, Table
from livetab_scraper.clean import clean_table, drop_empty
from livetab_scraper.extract import extract_tables
from livetab_scraper.profile import profile_table

SRC = Source(kind="wikipedia", uri="https://en.wikipedia.org/wiki/Fuzz", revision="7")

SPANS = ["1", "2", "3", "0", "-1", "abc", "", "99999999999", "2.5", " 4", "1000", "65535"]
WORDS = ["Year", "1,234.5", "—", "n/a", "12 May 2013", "4:24.6", "45%", "$3 million", "x", "Ωμέγα", "جدول", " "]
OPENERS = ["<table class='wikitable'>", "<table class='wikitable sortable'>", "<table class='navbox'>",
           "<table class='WIKITABLE'>", "<table>"]
ROW_STARTS = ["<tr>", "<tr>", "<thead><tr>", "<tbody><tr>", "<tfoot><tr>", "", "<caption>cap</caption><tr>"]
CELL_OPENERS = ["<td>", "<td>", "<th>", "<th>", "<TD>", "<th scope=col>",
                *[f"<td rowspan='{v}'>" for v in SPANS], *[f"<th colspan='{v}'>" for v in SPANS],
                *[f"<td rowspan='{a}' colspan='{b}'>" for a, b in zip(SPANS, reversed(SPANS), strict=True)]]
CONTENT = [*WORDS, "<br>", "<b>", "</b>", "†", "<sup class='reference'><a href='#cite_note-1'>[1]</a></sup>",
           "<sup>[a]</sup>", "<span style='display:none'>hidden</span>", "<span class='sortkey'>k</span>",
           "&nbsp;", "&#0;", "<!-- c -->", "<table><tr><td>in</td></tr></table>", "</td>", "<tr>", "</table>",
           "<p>para</p>", "<div>", "</tr>"]
TAILS = ["</table>", "</table>", "", "</table></table>",
         "</table><ol class='references'><li id='cite_note-1'>note <b>text</b></li></ol>"]
TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)


def _pick(options: list[str], i: int) -> str:
    return options[i % len(options)]


# A cell: (opener, content fragments or free text, closed?); a row: (start, cells, closed?); a table:
# (opener, rows, tail). Integers index the vocabularies above, so drawing an input is cheap.
CELL = st.tuples(st.integers(0, 99), st.lists(st.one_of(st.integers(0, 99), TEXT), max_size=3), st.booleans())
ROW = st.tuples(st.integers(0, 99), st.lists(CELL, max_size=5), st.booleans())
TABLE = st.tuples(st.integers(0, 99), st.lists(ROW, max_size=6), st.integers(0, 99))


def write(tables: list[tuple[int, list[tuple[int, list[tuple[int, list[int | str], bool]], bool]], int]]) -> str:
    out: list[str] = []
    for opener, rows, tail in tables:
        out.append(_pick(OPENERS, opener))
        for start, cells, row_closed in rows:
            out.append(_pick(ROW_STARTS, start))
            for cell_opener, content, closed in cells:
                tag = _pick(CELL_OPENERS, cell_opener)
                out.append(tag)
                out.extend(_pick(CONTENT, c) if isinstance(c, int) else c for c in content)
                if closed:
                    out.append("</th>" if tag.lower().startswith("<th") else "</td>")
            if row_closed:
                out.append("</tr>")
        out.append(_pick(TAILS, tail))
    return "".join(out)


STRUCTURED = st.lists(TABLE, min_size=1, max_size=3).map(write)

RAW = st.lists(st.one_of(
    st.sampled_from(["<table class='wikitable'>", "<tr>", "<td>", "<th>", "</table>", "</tr>", "<td rowspan=3>",
                     "<th colspan=2>", "<", ">", "&", "&#x", "<![CDATA[", "<?xml ?>", "\x00", "</", "<sup"]),
    TEXT,
), max_size=40).map("".join)


def check(t: Table) -> None:
    width = t.n_cols
    assert all(len(r) == width for r in [*t.header, *t.rows])
    n = len(t.header) + len(t.rows)
    for c in t.cells:
        assert 0 <= c.col < width and c.col + c.colspan <= width
        assert 0 <= c.row < n and c.row + c.rowspan <= n


def run(html: str) -> None:
    res = extract_tables(html, source=SRC, max_slots=4000)
    assert res.tables or res.errors
    for t in res.tables:
        check(t)
        check(drop_empty(t))
        profile_table(t)
        cleaned = clean_table(t, min_rows=1, min_cols=1, min_non_empty=0, max_empty_ratio=1.0)
        if isinstance(cleaned, Table):
            check(cleaned)
        render(t, "html+json+markdown+csv+text", max_rows=3)


FUZZ = dict(deadline=None, derandomize=True, database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@settings(max_examples=1000, **FUZZ)  # type: ignore[arg-type]
@given(STRUCTURED)
def test_structured_table_markup(html: str) -> None:
    run(html)


@settings(max_examples=1000, **FUZZ)  # type: ignore[arg-type]
@given(RAW)
def test_raw_html_fragments(html: str) -> None:
    run(html)
