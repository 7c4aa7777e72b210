"""Property-based fuzzing of the HTML extractor: thousands of generated pages, no unhandled exception.

Two generators: structured table markup (random nesting of table parts, spans with odd values,
markers, hidden text, unclosed tags) and raw text built from HTML-ish fragments and arbitrary
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

SPAN_VALUES = st.sampled_from(["1", "2", "3", "0", "-1", "abc", "", "99999999999", "2.5", " 4", "1000", "65535"])
TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
WORDS = st.sampled_from(["Year", "1,234.5", "—", "n/a", "12 May 2013", "4:24.6", "45%", "$3 million", "x", ""])


@st.composite
def cells(draw: st.DrawFn) -> str:
    tag = draw(st.sampled_from(["td", "th", "td", "TD", "th scope=col"]))
    attrs = ""
    if draw(st.booleans()):
        attrs += f" rowspan='{draw(SPAN_VALUES)}'"
    if draw(st.booleans()):
        attrs += f" colspan='{draw(SPAN_VALUES)}'"
    inner = draw(st.lists(st.one_of(
        WORDS, TEXT,
        st.just("<br>"), st.just("<sup class='reference'><a href='#cite_note-1'>[1]</a></sup>"),
        st.just("<span style='display:none'>hidden</span>"), st.just("<b>"), st.just("</b>"),
        st.just("†"), st.just("<table><tr><td>in</td></tr></table>"), st.just("<sup>[a]</sup>"),
        st.just("&nbsp;"), st.just("&#0;"), st.just("<!-- c -->"), st.just("</td>"), st.just("<tr>"),
    ), max_size=5))
    close = draw(st.sampled_from([f"</{tag.split()[0]}>", ""]))
    return f"<{tag}{attrs}>{''.join(inner)}{close}"


@st.composite
def pages(draw: st.DrawFn) -> str:
    parts: list[str] = [draw(st.sampled_from(["", "<html><body>", "<p>intro</p>", "<!DOCTYPE html>"]))]
    for _ in range(draw(st.integers(1, 3))):
        cls = draw(st.sampled_from(["wikitable", "wikitable sortable", "navbox", "WIKITABLE", ""]))
        parts.append(f"<table class='{cls}'>")
        if draw(st.booleans()):
            parts.append(f"<caption>{draw(TEXT)}</caption>")
        for _ in range(draw(st.integers(0, 5))):
            section = draw(st.sampled_from(["", "<thead>", "<tbody>", "<tfoot>"]))
            parts.append(section + "<tr>" + "".join(draw(st.lists(cells(), max_size=5))))
            parts.append(draw(st.sampled_from(["</tr>", ""])))
        parts.append(draw(st.sampled_from(["</table>", "", "</table></table>"])))
    parts.append(draw(st.sampled_from(["", "<ol class='references'><li id='cite_note-1'>note</li></ol>"])))
    return "".join(parts)


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
    res = extract_tables(html, source=SRC)
    assert res.tables or res.errors
    for t in res.tables:
        check(t)
        check(drop_empty(t))
        profile_table(t)
        cleaned = clean_table(t, min_rows=1, min_cols=1, min_non_empty=0, max_empty_ratio=1.0)
        if isinstance(cleaned, Table):
            check(cleaned)
        render(t, "html+json+markdown+csv+text", max_rows=3)


FUZZ = settings(max_examples=1500, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FUZZ
@given(pages())
def test_structured_table_markup(html: str) -> None:
    run(html)


@FUZZ
@given(RAW)
def test_raw_html_fragments(html: str) -> None:
    run(html)
