"""Property-based fuzzing of the HTML extractor: thousands of generated pages, no unhandled exception.

Three generators: structured table markup (random sequences of table parts, spans with odd values,
markers, hidden text, unclosed and stray tags), raw text built from HTML-ish fragments and arbitrary
characters, and well-formed tables with the structure people write into them (title rows at the top
of the header, full-width section rows and notes in the body, colour-swatch columns, colspans that run
past the table, furniture classes). For every input the extractor must return, every table it returns
must be a rectangular grid whose original cells lie inside it, and every table of the input that it
does not return, and every table cleaning rejects, comes with a reason.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from livetab.render import render
from livetab.tables import Source, Table
from livetab_scraper.clean import clean_table, drop_empty
from livetab_scraper.extract import ExtractResult, extract_tables
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

# A structured table: title rows, then a header row, then body rows that are data rows (some cells
# empty, as swatches) or full-width rows (section headings or notes, <th> or <td>, short or long).
SECTION_TEXTS = ["Representing Poland", "First half", "", "Grand Slam tournaments",
                 "Persepolis won 1 – 0 on aggregate after extra time in Tehran", "<b>Group A</b>", "2012"]
TITLE_TEXTS = ["Climate data for Ilulissat", "", "Players transferred in", "Key"]
EXTRA_SPAN = [0, 0, 0, 1, 3, -1]
CLASSES = ["wikitable", "wikitable", "wikitable sortable", "wikitable succession-box", "float-right infobox wikitable"]
BODY_ROW = st.one_of(
    st.tuples(st.just("data"), st.lists(st.sampled_from(["1", "Alice", "", "2,300", "—", "x"]), min_size=1, max_size=6)),
    st.tuples(st.just("full"), st.tuples(st.sampled_from(SECTION_TEXTS), st.booleans(), st.sampled_from(EXTRA_SPAN))),
)
SHAPED_TABLE = st.tuples(
    st.integers(1, 6),  # width
    st.lists(st.tuples(st.sampled_from(TITLE_TEXTS), st.sampled_from(EXTRA_SPAN)), max_size=2),
    st.booleans(),  # has a header row
    st.lists(BODY_ROW, max_size=10),
    st.sampled_from(CLASSES),
    st.booleans(),  # has a caption
)


def write_shaped(tables: list[tuple[int, list[tuple[str, int]], bool, list[tuple[str, object]], str, bool]]) -> str:
    out: list[str] = []
    for width, titles, has_header, body, cls, caption in tables:
        out.append(f"<table class='{cls}'>" + ("<caption>Results</caption>" if caption else ""))
        for text, extra in titles:
            out.append(f"<tr><th colspan='{width + extra}'>{text}</th></tr>")
        if has_header:
            out.append("<tr>" + "".join(f"<th>H{c}</th>" for c in range(width)) + "</tr>")
        for kind, spec in body:
            if kind == "data":
                values = list(spec)  # type: ignore[call-overload]
                out.append("<tr>" + "".join(f"<td style='background:red'>{v}</td>" for v in values[:width]) + "</tr>")
            else:
                text, th, extra = spec  # type: ignore[misc]
                tag = "th" if th else "td"
                out.append(f"<tr><{tag} colspan='{width + extra}'>{text}</{tag}></tr>")
        out.append("</table>")
    return "".join(out)


SHAPED = st.lists(SHAPED_TABLE, min_size=1, max_size=3)

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


def run(html: str) -> ExtractResult:
    res = extract_tables(html, source=SRC, max_slots=4000)
    assert res.tables or res.errors
    assert all(e.strip() for e in res.errors)
    for t in res.tables:
        check(t)
        check(drop_empty(t))
        profile_table(t)
        cleaned = clean_table(t, min_rows=1, min_cols=1, min_non_empty=0, max_empty_ratio=1.0)
        if isinstance(cleaned, Table):
            check(cleaned)
            assert not cleaned.group_column or cleaned.columns[0] == cleaned.group_column
        else:
            assert cleaned.reason.strip() and cleaned.table_id == t.id
        strict = clean_table(t)  # the default thresholds: kept, or rejected with a reason
        assert isinstance(strict, Table) or strict.reason.strip()
        render(t, "html+json+markdown+csv+text", max_rows=3)
    return res


FUZZ = dict(deadline=None, derandomize=True, database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@settings(max_examples=1000, **FUZZ)  # type: ignore[arg-type]
@given(STRUCTURED)
def test_structured_table_markup(html: str) -> None:
    run(html)


@settings(max_examples=300, **FUZZ)  # type: ignore[arg-type]
@given(SHAPED)
def test_tables_with_title_and_section_rows(tables: list[tuple[int, list[tuple[str, int]], bool,
                                                               list[tuple[str, object]], str, bool]]) -> None:
    res = run(write_shaped(tables))
    # every generated table is extracted or skipped with a reason that names it
    skipped = {int(e.split(":")[0].split()[1]) for e in res.errors if e.startswith("table ")}
    kept = {t.source.table_index for t in res.tables}
    assert kept | skipped == set(range(len(tables))) and not kept & skipped, (res.errors, kept)
    for t in res.tables:
        spec = tables[t.source.table_index]
        assert "infobox" not in spec[4] and "succession-box" not in spec[4]
        profile = profile_table(t)
        if t.group_column:
            assert t.columns[0] == t.group_column and profile.grouped_rows
            h = len(t.header)
            group_cells = [c for c in t.cells if c.col == 0 and c.row >= h]
            assert sum(c.rowspan for c in group_cells) == t.n_rows  # every body row has its group
            assert [r[0] for r in t.rows] == [c.text for c in group_cells for _ in range(c.rowspan)]
        if len(t.header) > 0 and t.n_cols >= 2:  # a title row is never a header level of every column
            assert not any(len(set(level)) == 1 and level[0] in TITLE_TEXTS[:1] for level in t.header)


@settings(max_examples=1000, **FUZZ)  # type: ignore[arg-type]
@given(RAW)
def test_raw_html_fragments(html: str) -> None:
    run(html)
