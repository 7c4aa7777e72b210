"""Bad input gives a recorded reason (or a repaired table with warnings), never an exception."""

from __future__ import annotations

from livetab.paths import shared_data
from livetab.tables import Source, Table
from livetab_scraper.extract import extract_tables

SRC = Source(kind="wikipedia", uri="https://en.wikipedia.org/wiki/Test", revision="1")
PAGE = shared_data() / "wiki_html" / "pages" / "203-514.html"


def rectangular(t: Table) -> bool:
    width = t.n_cols
    return all(len(r) == width for r in [*t.header, *t.rows]) and all(
        0 <= c.row and 0 <= c.col < width and c.col + c.colspan <= width
        and c.row + c.rowspan <= len(t.header) + len(t.rows) for c in t.cells)


def test_empty_page() -> None:
    for html in ("", "   \n ", b""):
        res = extract_tables(html, source=SRC)
        assert res.tables == [] and res.errors == ["page is empty"]


def test_page_without_tables() -> None:
    res = extract_tables("<html><body><p>No tables here.</p></body></html>", source=SRC)
    assert res.tables == [] and res.errors == ["page has no tables matching 'wikitable'"]


def test_binary_garbage_and_non_utf8_bytes() -> None:
    for data in (b"\x00\xff\xfe\x00garbage\x00", "<table class=wikitable><tr><td>\udcff</td></tr></table>",
                 "<?xml version='1.0' encoding='latin-1'?><table class='wikitable'><tr><td>é</td></tr></table>"):
        res = extract_tables(data, source=SRC)
        assert res.tables or res.errors


def test_malformed_html_is_repaired() -> None:
    html = ("<table class=wikitable><tr><th>a<th>b<tr><td>1<td>2</tr><td>3</td><td>4"
            "</table></td></div><tr><td>stray</td></tr>")
    res = extract_tables(html, source=SRC)
    t = res.tables[0]
    assert t.header == [["a", "b"]] and t.rows[0] == ["1", "2"]
    assert rectangular(t)


def test_truncated_real_page() -> None:
    html = PAGE.read_text(encoding="utf-8")
    full = extract_tables(html, source=SRC)
    for cut in (len(html) // 3, len(html) // 2, len(html) - 2000):
        res = extract_tables(html[:cut], source=SRC)
        assert res.tables or res.errors
        assert all(rectangular(t) for t in res.tables)
        assert len(res.tables) <= len(full.tables)


def test_inconsistent_spans_are_repaired_and_reported() -> None:
    html = ("<table class='wikitable'><tr><th>a</th><th>b</th><th>c</th></tr>"
            "<tr><td>1</td><td rowspan='9'>long</td><td colspan='abc'>y</td></tr>"
            "<tr><td colspan='3'>wide</td></tr>"
            "<tr><td rowspan='-2' colspan='0'>neg</td></tr></table>")
    res = extract_tables(html, source=SRC)
    t = res.tables[0]
    assert rectangular(t)
    assert t.rows == [["1", "long", "y"], ["wide", "long", "wide"], ["neg", "long", ""]]
    text = " ".join(res.warnings)
    assert "clipped" in text and "overlapping" in text and "malformed" in text


def test_enormous_spans_give_a_reason() -> None:
    rows = "".join("<tr><td>x</td></tr>" for _ in range(50))
    html = f"<table class='wikitable'><tr><td rowspan='65534' colspan='1000'>big</td></tr>{rows}</table>"
    res = extract_tables(html, source=SRC, max_slots=10_000)
    assert res.tables == [] and "slots" in res.errors[0]


def test_header_only_table_gives_a_reason() -> None:
    res = extract_tables("<table class='wikitable'><tr><th>a</th></tr></table>", source=SRC)
    assert res.tables == [] and "no body rows" in res.errors[0]


def test_deeply_nested_markup_does_not_crash() -> None:
    html = "<table class='wikitable'><tr><th>a</th></tr><tr><td>" + "<span>" * 5000 + "x" + "</span>" * 5000
    html += "</td></tr></table>"
    res = extract_tables(html, source=SRC)
    assert res.tables or res.errors


def test_fifty_megabyte_page() -> None:
    table = PAGE.read_text(encoding="utf-8")
    filler = "<p>" + "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 20 + "</p>\n"
    n = (50 * 1024 * 1024 - len(table)) // len(filler) + 1
    html = table + filler * n
    assert len(html) >= 50 * 1024 * 1024
    res = extract_tables(html, source=SRC)
    alone = extract_tables(table, source=SRC)
    assert len(alone.tables) >= 5
    assert [t.rows for t in res.tables] == [t.rows for t in alone.tables]
    limited = extract_tables(html, source=SRC, max_bytes=10 * 1024 * 1024)
    assert limited.tables == [] and "over the limit" in limited.errors[0]
