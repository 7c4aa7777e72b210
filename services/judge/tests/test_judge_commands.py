"""Re-judging as a command: a JudgeCommand on its topic makes the judge service judge a run's stored answers
(only the missing ones, or all with `again`) through the results path, over the in-process bus and SQLite."""

from __future__ import annotations

from pathlib import Path

from livetab import topics
from livetab.bus import HandlerContext, InProcBus, Outgoing, Worker
from livetab.ids import judgment_id
from livetab.questions import Gold, Question
from livetab.records import question_row, result_row
from livetab.settings import JudgeSettings, Settings
from livetab.store import open_store, schema
from livetab.v1 import inference_pb2, judgment_pb2, release_pb2
from livetab_judge.commands import JudgeCommandHandler
from livetab_judge.handler import JudgeHandler


def _drain(workers: list[Worker]) -> None:
    while sum(w.run_once() for w in workers):
        pass


def _verdicts(store: object) -> dict[str, str]:
    return {r["request_id"]: r["verdict"] for r in store.select(schema.judgments)}  # type: ignore[attr-defined]


def test_judge_command_judges_missing_then_all_again(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'judge.db'}")
    q = Question(id="q1", table_id="t1", family="reasoning", text="How many goals in total?",
                 gold=Gold(kind="number", number=42.0, text="42"))
    store.upsert(schema.questions, [question_row(q.to_proto())])
    results = [inference_pb2.InferenceResult(id=f"req-{i}", run_id="run-a", question_id="q1", model="m",
                                             sample_index=i, response=answer)
               for i, answer in enumerate(["42", "41", "forty-one"])]
    other = inference_pb2.InferenceResult(id="req-other", run_id="run-b", question_id="q1", model="m", response="42")
    store.upsert(schema.results, [result_row(r) for r in [*results, other]])
    ctx = HandlerContext(store=store, settings=Settings())
    judge = JudgeHandler(JudgeSettings())
    judge.handle_batch(results[:1], ctx)  # one answer of run-a is judged already
    assert _verdicts(store) == {"req-0": "correct"}

    bus = InProcBus()
    workers = [Worker(judge, bus, ctx, poll_timeout_s=0), Worker(JudgeCommandHandler(judge), bus, ctx, poll_timeout_s=0)]

    def command(cid: str, again: bool) -> list[judgment_pb2.Judgment]:
        seen = len(bus.records(topics.JUDGMENTS))
        cmd = release_pb2.JudgeCommand(id=cid, run_ids=["run-a"], again=again)
        bus.publish(Outgoing(topics.JUDGE_COMMANDS, cmd, key=cid, message_id=cid))
        _drain(workers)
        return [judgment_pb2.Judgment.FromString(r.value) for r in bus.records(topics.JUDGMENTS)[seen:]]

    published = command("c1", again=False)
    assert sorted(j.request_id for j in published) == ["req-1", "req-2"]  # the missing ones only, not run-b's
    assert _verdicts(store) == {"req-0": "correct", "req-1": "incorrect", "req-2": "incorrect"}
    assert command("c2", again=False) == []  # nothing missing: nothing judged, nothing published

    # the gold is corrected in the store; re-judging replaces the judgments under the same ids
    fixed = Question(id="q1", table_id="t1", family="reasoning", text="How many goals in total?",
                     gold=Gold(kind="number", number=41.0, text="41"))
    store.upsert(schema.questions, [question_row(fixed.to_proto())])
    published = command("c3", again=True)
    assert sorted(j.id for j in published) == sorted(judgment_id(r.id, judge.name) for r in results)
    assert _verdicts(store) == {"req-0": "incorrect", "req-1": "correct", "req-2": "correct"}
    assert store.count(schema.judgments) == 3  # replaced, not added
    assert workers[1].stats.dead_lettered == 0
    store.close()
