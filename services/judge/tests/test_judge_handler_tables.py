"""The judge handler gives the rule judge each question's table, read from the store once per batch:
an answer that lists other values of the asked column is then wrong, not uncertain, and a surname
that only the gold's row has is enough. Real store (SQLite), real handler, no LLM judges."""

from __future__ import annotations

from pathlib import Path

from livetab.bus import HandlerContext
from livetab.questions import Gold, Question
from livetab.records import question_row, table_row
from livetab.settings import Settings
from livetab.store import Store, open_store, schema
from livetab.tables import Source, Table
from livetab.v1 import inference_pb2
from livetab_judge.handler import JudgeHandler

from tests.support.queries import statements

MEDALS = Table(id="t-medals", source=Source(kind="test"), header=[["Rank", "Nation", "Gold"]],
               rows=[["1", "France", "14"], ["2", "Italy", "12"], ["3", "Spain", "4"], ["4", "Greece", "3"]])
DRAFT = Table(id="t-draft", source=Source(kind="test"), header=[["Round", "Name", "Position"]],
              rows=[["1", "Brian Urlacher", "S"], ["2", "Mike Brown", "S"], ["3", "Dez White", "WR"]])


def _store(tmp_path: Path) -> Store:
    store = open_store(f"sqlite:///{tmp_path / 'judge.db'}")
    store.upsert(schema.tables, [table_row(t.to_proto()) for t in (MEDALS, DRAFT)])
    questions = [
        Question(id="q-medals", table_id=MEDALS.id, family="direct", text="which nation won 12 gold medals?",
                 gold=Gold(kind="text", text="Italy")),
        Question(id="q-draft", table_id=DRAFT.id, family="direct", text="who was drafted in the first round?",
                 gold=Gold(kind="text", text="Brian Urlacher")),
        Question(id="q-orphan", table_id="no-such-table", family="direct", text="which nation won 12 gold medals?",
                 gold=Gold(kind="text", text="Italy")),
    ]
    store.upsert(schema.questions, [question_row(q.to_proto()) for q in questions])
    return store


def _result(n: int, question_id: str, response: str) -> inference_pb2.InferenceResult:
    return inference_pb2.InferenceResult(id=f"r{n}", run_id="run", question_id=question_id, model="m",
                                         response=response)


def test_the_rule_judge_reads_each_questions_table(tmp_path: Path) -> None:
    store = _store(tmp_path)
    ctx = HandlerContext(store=store, settings=Settings())
    handler = JudgeHandler()
    results = [
        _result(0, "q-medals", "Spain, Italy, Greece won gold."),  # other nations of the column listed
        _result(1, "q-medals", "Italy won 12 gold medals."),
        _result(2, "q-draft", "Urlacher was drafted in the first round."),  # only his row has "Urlacher"
        _result(3, "q-orphan", "Spain, Italy, Greece won gold."),  # no table in the store: cannot tell
    ]
    with statements(store, "SELECT") as reads:
        out = handler.handle_batch(results, ctx)
    verdicts = {o.message.request_id: o.message.verdict for o in out}
    assert verdicts == {"r0": "incorrect", "r1": "correct", "r2": "correct", "r3": "uncertain"}
    assert "another value of the asked column" in next(o.message.rationale for o in out if o.message.request_id == "r0")
    # questions and their tables: one read each for the whole batch
    assert sum("FROM questions" in s for s in reads) == 1 and sum("FROM tables" in s for s in reads) == 1, reads
