"""A redelivered inference result (the bus delivers at least once) is judged into the same judgment row:
the judgment id is a content id of the request and the judge, so the second pass upserts, never adds."""

from __future__ import annotations

from pathlib import Path

from livetab.bus import HandlerContext
from livetab.ids import judgment_id
from livetab.questions import Gold, Question
from livetab.records import question_row
from livetab.settings import JudgeSettings, Settings
from livetab.store import open_store, schema
from livetab.v1 import inference_pb2, judgment_pb2
from livetab_judge.handler import JudgeHandler


def test_judging_a_result_twice_keeps_one_judgment(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'judge.db'}")
    q = Question(id="q1", table_id="t1", family="reasoning", text="How many goals in total?",
                 gold=Gold(kind="number", number=42.0, text="42"))
    store.upsert(schema.questions, [question_row(q.to_proto())])
    ctx = HandlerContext(store=store, settings=Settings())
    results = [inference_pb2.InferenceResult(id=f"req-{i}", run_id="run", question_id="q1", model="m",
                                             sample_index=i, response=answer)
               for i, answer in enumerate(["42", "41"])]

    first = JudgeHandler(JudgeSettings()).handle_batch(results, ctx)
    second = JudgeHandler(JudgeSettings()).handle_batch(list(reversed(results)), ctx)  # redelivered, reordered
    ids = [o.message.id for o in first]
    assert ids == [judgment_id("req-0", "rule"), judgment_id("req-1", "rule")]
    assert sorted(o.message.id for o in second) == sorted(ids)
    assert [o.message_id for o in first] == ids  # downstream dedup keys on the same id
    verdicts = {o.message.request_id: o.message.verdict for o in first}
    assert verdicts == {"req-0": "correct", "req-1": "incorrect"}
    assert store.count(schema.judgments) == 2
    assert all(isinstance(o.message, judgment_pb2.Judgment) for o in first + second)
    store.close()
