"""Math word problems travel as their own message: the scraper's gsm8k source publishes `MathProblem`s on
livetab.problems.v1 (no fake one-row table), qagen's math flow reads them and publishes Z3-checked math
questions over derived tables; a problem whose final answer contradicts its solution is recorded as a
failure. Over the in-process bus and SQLite, with the demo's real GSM8K problems."""

from __future__ import annotations

from pathlib import Path

import pytest
from livetab.bus import HandlerContext, InProcBus, Outgoing, Worker
from livetab.gsm8k import from_message, iter_problems, to_message
from livetab.records import load_question
from livetab.settings import Settings
from livetab.store import open_store, schema
from livetab.topics import PROBLEMS, QUESTIONS, SCRAPES, TABLES, by_name
from livetab.v1 import math_pb2, question_pb2, table_pb2
from livetab_qagen.handler import QagenHandler
from livetab_scraper.handler import ScraperHandler

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "deploy" / "sample" / "gsm8k" / "problems.jsonl"


def test_problem_message_round_trips_through_the_one_reader() -> None:
    (_, p), *_ = iter_problems(SAMPLE)
    assert not isinstance(p, str)
    m = to_message(p, release="r", licence="MIT", attribution="GSM8K")
    assert by_name(PROBLEMS).message is math_pb2.MathProblem
    assert (m.id, m.text, m.answer.final, m.source.index, m.source.kind) == (p.id, p.question, p.final_answer,
                                                                             p.index, "gsm8k")
    assert "####" in m.answer.solution and from_message(m) == p
    m.answer.final = "999999"
    with pytest.raises(ValueError, match="disagrees with the solution"):
        from_message(m)


def test_gsm8k_problems_flow_as_messages_into_math_questions(tmp_path: Path) -> None:
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()[:2]
    src = tmp_path / "problems.jsonl"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    store = open_store(f"sqlite:///{tmp_path / 'm.db'}")
    bus = InProcBus()
    ctx = HandlerContext(store=store, settings=Settings())
    workers = [Worker(ScraperHandler(), bus, ctx, poll_timeout_s=0), Worker(QagenHandler(), bus, ctx, poll_timeout_s=0)]
    cmd = table_pb2.ScrapeCommand(id="s1", source="gsm8k", location=str(src), release="math-r", language="en")
    bus.publish(Outgoing(SCRAPES, cmd, key=cmd.id, message_id=cmd.id))
    while sum(w.run_once() for w in workers):
        pass

    problems = [math_pb2.MathProblem.FromString(r.value) for r in bus.records(PROBLEMS)]
    assert len(problems) == 2 and bus.records(TABLES) == []  # no fake problem table on the tables topic
    for m in problems:
        assert m.release == "math-r" and m.language == "en" and m.source.licence == "MIT"
        assert "GSM8K" in m.source.attribution and m.source.uri == f"gsm8k:{m.id}" and m.source.revision
    questions = [question_pb2.Question.FromString(r.value) for r in bus.records(QUESTIONS)]
    assert questions and {q.family for q in questions} <= {"math", "imperfect"}
    assert all(q.release == "math-r" for q in questions)
    stored_tables = {r["id"] for r in store.select(schema.tables)}
    assert {q.table_id for q in questions} <= stored_tables  # every question's derived table can be found
    for row in store.select(schema.tables):  # only derived tables, citing GSM8K: no one-row problem table stored
        t = table_pb2.Table.FromString(row["payload"])
        assert t.source.kind == "gsm8k" and t.source.licence == "MIT" and "GSM8K" in t.source.attribution
        assert len(t.rows) > 1 or t.header[0].values != ["id", "question", "answer", "final_answer"]
    q = load_question(store.get(schema.questions, questions[0].id))
    assert q is not None and q.status == "verified"
    assert workers[1].stats.dead_lettered == 0

    # a problem whose final answer contradicts its solution: a recorded failure, no question, no dead letter
    bad = math_pb2.MathProblem()
    bad.CopyFrom(problems[0])
    bad.id, bad.answer.final = "gsm8k-bad", "123456"
    bus.publish(Outgoing(PROBLEMS, bad, key=bad.id, message_id=bad.id))
    before = len(bus.records(QUESTIONS))
    while sum(w.run_once() for w in workers):
        pass
    assert len(bus.records(QUESTIONS)) == before and workers[1].stats.dead_lettered == 0
    [failure] = [f for f in store.select(schema.failures) if f["entity"] == "gsm8k-bad"]
    assert "disagrees with the solution" in failure["reason"] and failure["release"] == "math-r"
    store.close()
