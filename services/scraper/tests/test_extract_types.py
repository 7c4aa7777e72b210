"""Typed columns and numbers in the page language; the structure profile (TeleTables' dimensions)."""

from __future__ import annotations

import pytest
from livetab.numbers import parse_number
from livetab.render import unique_columns
from livetab.tables import Cell, Source, Table
from livetab_scraper.coltypes import detect_column_types, value_type
from livetab_scraper.extract import extract_tables
from livetab_scraper.profile import profile_table, size_class

SRC = Source(kind="test", uri="mem://p", revision="1")


@pytest.mark.parametrize(("text", "lang", "value"), [
    ("1,234", "en", 1234.0), ("1,234.5", "en", 1234.5), ("1.234", "de", 1234.0), ("1.234,5", "de", 1234.5),
    ("1 234,5", "fr", 1234.5), ("1\u202f234,5", "fr", 1234.5), ("1\u00a0234", "ru", 1234.0), ("12,5", "sv", 12.5),
    ("−3", "en", -3.0), ("+7", "en", 7.0), ("45%", "en", 45.0), ("$3 million", "en", 3e6), ("€1,5 Mio.", "de", 1.5e6),
    ("١٢٣٫٥", "ar", 123.5), ("1.234.567", "nl", 1234567.0), ("0.5", "en", 0.5), (".5", "en", 0.5),
])
def test_parse_number(text: str, lang: str, value: float) -> None:
    assert parse_number(text, lang, units=True) == pytest.approx(value)


@pytest.mark.parametrize(("text", "lang"), [
    ("1,5", "en"), ("1.5.3", "en"), ("12 May", "en"), ("abc", "en"), ("", "en"), ("1,23", "en"), ("2-1", "en"),
])
def test_not_numbers(text: str, lang: str) -> None:
    assert parse_number(text, lang, units=True) is None


@pytest.mark.parametrize(("text", "kind"), [
    ("1,234", "integer"), ("3.25", "decimal"), ("45%", "percentage"), ("$1,200", "currency"), ("€ 30", "currency"),
    ("2013-05-12", "date"), ("May 12, 2013", "date"), ("12 May 2013", "date"), ("August 31", "date"),
    ("12.05.2013", "date"), ("4:24:38.6", "duration"), ("1:05", "duration"), ("3 min", "duration"),
    ("Lord High Steward", "text"), ("18 mm", "text"),
    # cells from the real data whose type the shared number reader settles: space-grouped thousands,
    # a sign set apart, a footnote mark, a trailing point; heights in metres are not millions
    ("1 006 293", "integer"), ("+ 0.48", "decimal"), ("- 2", "integer"), ("5*", "integer"), ("12.", "integer"),
    ("5.05 m", "text"), ("$5m", "currency"), ("2009 2009", "text"),
])
def test_value_types(text: str, kind: str) -> None:
    assert value_type(text, "en") == kind


def test_column_types_tolerate_nulls_and_keep_text() -> None:
    t = Table(id="x", source=SRC, header=[["Year", "Score", "Score", "Note"]],
              rows=[["2001", "1.5", "3", "a"], ["2002", "—", "4", "b"], ["2003", "2", "n/a", ""]])
    assert unique_columns(t.columns) == ["Year", "Score", "Score (2)", "Note"]
    types = detect_column_types(t)
    assert types == {"Year": "integer", "Score": "decimal", "Score (2)": "integer", "Note": "text"}
    assert t.rows[1][1] == "—"  # detection never changes the cells


def test_size_classes() -> None:
    assert size_class(5, 4) == "small" and size_class(6, 4) == "medium" and size_class(5, 5) == "medium"
    assert size_class(21, 3) == "large" and size_class(10, 9) == "large" and size_class(20, 8) == "medium"


def test_profile_of_a_technical_table() -> None:
    html = """<table class='wikitable'>
    <tr><th rowspan=2>Mode</th><th colspan=2>Bits</th><th rowspan=2>Rate</th><th rowspan=2>Notes</th></tr>
    <tr><th>b0-b3</th><th>b4</th></tr>
    <tr><td rowspan=2>QPSK</td><td>0101</td><td>1</td><td>R = 2^n / 4</td>
        <td>used when the channel quality indicator reported by the terminal is low<sup class=reference>[1]</sup></td></tr>
    <tr><td>0110</td><td>0</td><td>1.5</td><td>fallback</td></tr>
    <tr><td>16QAM</td><td>1001</td><td>1</td><td>3</td><td>normal</td></tr>
    </table>"""
    t = extract_tables(html, source=SRC).tables[0]
    p = profile_table(t)
    assert (p.size_class, p.multi_level_header, p.grouped_rows, p.footnotes) == ("medium", True, True, True)
    assert p.content_types == ["numeric", "prose", "categorical", "math", "bits"]
    assert (p.n_rows, p.n_cols) == (3, 5)


def test_profile_of_a_plain_table() -> None:
    rows = [[f"Player {i}", str(i)] for i in range(30)]
    cells = [Cell(r, c, v) for r, row in enumerate(rows) for c, v in enumerate(row)]
    p = profile_table(Table(id="y", source=SRC, header=[], rows=rows, cells=cells))
    assert (p.size_class, p.multi_level_header, p.grouped_rows, p.footnotes) == ("large", False, False, False)
    assert p.content_types == ["numeric"]
