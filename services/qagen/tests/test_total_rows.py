"""Tables with a summary row ("Total", "الإجمالي") get no whole-table questions: over such a table a
superlative, count, sum or average is ambiguous ("Which Opponent has the highest Played?" -> "Total").
Questions about single rows and pairs of rows are still asked. Real tables from ../shared/data."""

from __future__ import annotations

import csv
import random

import pytest
from livetab.ids import table_id
from livetab.paths import shared_data
from livetab.tables import Source, Table
from livetab_qagen import generate
from livetab_qagen.families import reasoning
from livetab_qagen.families.base import Context
from livetab_qagen.frame import Frame
from livetab_qagen.templates import load_locale
from realtables import arabic_tables

WHOLE_TABLE_OPERATIONS = {"superlative", "ordinal", "count", "aggregation", "unique"}


def _wiki(rel: str) -> Table:
    with (shared_data() / rel).open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, escapechar="\\"))
    return Table(id=table_id(f"data:{rel}", "", 0), source=Source(kind="wtq", uri=f"data:{rel}"),
                 header=[rows[0]], rows=rows[1:])


def _arabic(example_id: str) -> Table:
    return next(t for t in arabic_tables() if t.source.uri == f"data:tata/{example_id}")


def _without_total(t: Table) -> Table:
    frame = Frame(t)
    rows = [r for i, r in enumerate(t.rows) if i not in frame.total_rows]
    return Table(id=t.id + "-body", source=t.source, header=t.header, rows=rows, language=t.language)


TABLES = {
    # Rugby results by opponent, the last row "Total,210,176,32,2,83.10%"
    "opponents": lambda: _wiki("wiki_html_more/tables/203-506.csv"),
    # A DHS survey table (TaTA, Arabic) whose last row is "الإجمالي"
    "arabic": lambda: _arabic("FR229-ar-22"),
}


@pytest.mark.parametrize("name", list(TABLES))
def test_the_total_row_is_recognised(name: str) -> None:
    t = TABLES[name]()
    frame = Frame(t)
    assert len(frame.total_rows) == 1
    (r,) = frame.total_rows
    assert frame.grid[r][0] in ("Total", "الإجمالي")
    ctx = Context(frame, load_locale(t.language), random.Random(0))
    assert not reasoning.whole_table_ok(ctx)
    assert reasoning.whole_table_ok(Context(Frame(_without_total(t)), load_locale(t.language), random.Random(0)))


@pytest.mark.parametrize("name", list(TABLES))
def test_no_whole_table_question_over_a_table_with_a_total_row(name: str) -> None:
    t = TABLES[name]()
    total = next(Frame(t).grid[r][0] for r in Frame(t).total_rows)
    asked = 0
    for seed in range(3):
        result = generate(t, families=["direct", "reasoning", "fact", "mcq"], per_family=6, seed=seed)
        asked += len(result.questions)
        whole = [q.text for q in result.questions
                 if q.scope == "full_table" or q.operation in WHOLE_TABLE_OPERATIONS]
        assert not whole, f"whole-table questions over a table with a {total!r} row: {whole}"
    assert asked >= 20  # single rows and pairs are still asked


def test_without_its_total_row_the_same_table_gets_whole_table_questions() -> None:
    """The contrast that shows the rule is what withholds them (not a table too poor to ask about)."""
    t = _without_total(TABLES["opponents"]())
    ops = {q.operation for seed in range(3)
           for q in generate(t, families=["reasoning", "mcq"], per_family=6, seed=seed).questions}
    assert ops & WHOLE_TABLE_OPERATIONS, ops
