"""Real tables from the shared data set for the inference tests (WikiTableQuestions, TabFact, TaTA Arabic)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from livetab.paths import shared_data
from livetab.questions import Gold, Question
from livetab.records import question_row, table_row
from livetab.store import open_store, schema
from livetab.tables import Source, Table

__all__ = ["arabic_table", "one_question_store", "tabfact_table", "wtq_table"]


def wtq_table(index: int = 0) -> tuple[Table, dict[str, object]]:
    """The table of the index-th WikiTableQuestions test question, with that question's record."""
    root = shared_data() / "wtq"
    with (root / "questions.jsonl").open(encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i == index:
                record = json.loads(line)
                break
    with (root / str(record["table_csv"])).open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, escapechar="\\"))
    table = Table(id=f"wtq-{record['id']}", source=Source(kind="wtq", uri=str(record["table_csv"]),
                                                          title="WikiTableQuestions"),
                  header=[rows[0]], rows=rows[1:])
    return table, record


def one_question_store(path: Path) -> tuple[Any, Question]:
    """A SQLite store at `path` holding the first WikiTableQuestions table and one question on it ("q0")."""
    store = open_store(f"sqlite:///{path}")
    table, record = wtq_table(0)
    store.upsert(schema.tables, [table_row(table.to_proto())])
    q = Question(id="q0", table_id=table.id, family="direct", text=str(record["question"]),
                 gold=Gold(kind="text", text="x"))
    store.upsert(schema.questions, [question_row(q.to_proto())])
    return store, q


def arabic_table(index: int = 0) -> Table:
    with (shared_data() / "arabic" / "tata_ar_dev_test.jsonl").open(encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i == index:
                record = json.loads(line)
                break
    grid = json.loads(record["table_data"]) if isinstance(record["table_data"], str) else record["table_data"]
    cells = [[str(c) for c in row] for row in grid]
    return Table(id=f"tata-{index}", source=Source(kind="tata", title=str(record.get("title", ""))),
                 header=[cells[0]], rows=cells[1:], language="ar", caption=str(record.get("title", "")))



def tabfact_table(name: str) -> Table:
    """A TabFact table (`#`-separated, first row the header)."""
    path = shared_data() / "tabfact" / "all_csv" / name
    rows = [line.rstrip("\n").split("#") for line in path.open(encoding="utf-8") if line.strip()]
    return Table(id=f"tabfact-{name}", source=Source(kind="tabfact", uri=name, title=name),
                 header=[rows[0]], rows=rows[1:])
