"""Section rows of a real Wikipedia table, from the scraper's extraction to the questions qagen asks.

Łukasz Kubot's performance timeline (WikiTableQuestions page 204-153) has full-width rows "Grand Slam
tournaments" and "Career statistics". The scraper reads them as row groups (the `Section` column);
the table travels as protobuf; qagen's frame then counts seven data rows, not nine, and a sum over a
column adds the numbers of data rows only.
"""

from __future__ import annotations

import json

from livetab.paths import shared_data
from livetab.tables import Source, Table
from livetab_qagen.frame import Frame
from livetab_qagen.programmatic import generate
from livetab_scraper.extract import extract_tables

PAGE = shared_data() / "wiki_html_more" / "pages" / "204-153"
SECTIONS = ("Grand Slam tournaments", "Career statistics")


def _table() -> Table:
    meta = json.loads(PAGE.with_suffix(".json").read_text(encoding="utf-8"))
    result = extract_tables(PAGE.with_suffix(".html").read_text(encoding="utf-8"),
                            source=Source(kind="wikipedia", uri=str(meta["url"]), revision=str(meta["revision"])))
    table = next(t for t in result.tables if t.source.table_index == 6)
    return Table.from_proto(table.to_proto())  # as qagen receives it


def test_section_rows_reach_qagen_as_an_attribute_not_as_rows() -> None:
    table = _table()
    assert table.group_column == "Section"
    frame = Frame(table)
    assert frame.n_rows == 7 and frame.data_rows == list(range(7))
    assert [r for r in frame.grid if any(v in SECTIONS for v in r[1:])] == []
    section = frame.names.index("Section")
    assert sum(frame.grid[r][section] == "Grand Slam tournaments" for r in frame.data_rows) == 5
    ranking = next(r for r in frame.grid if r[1] == "Year End Ranking")
    year_2013 = frame.names.index("2013")
    assert ranking[year_2013] == "72"
    assert frame.kinds[year_2013] == "text"  # "1R", "QF", "0–0": a section heading no longer decides it


def test_no_generated_question_treats_a_section_heading_as_a_row_value() -> None:
    result = generate(_table(), seed=1, per_family=3)
    assert result.questions
    for q in result.questions:
        said = " ".join([q.text, q.gold.text, *q.gold.items, *q.options])
        if any(s in said for s in SECTIONS):  # only ever as the value of the Section attribute
            assert "Section" in q.derivation or "section" in q.text.lower(), (q.text, q.gold.text, q.derivation)
