"""The LLM-assisted path, driven by scripted backends (fault and measurement scaffolding: they return
fixed replies so that every branch — keep, review, discard, too simple, bad JSON, wrong program,
malicious program — is exercised deterministically). The real local model runs in test_llm_path_model.py."""

from __future__ import annotations

import asyncio
import csv
import functools
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from livetab import review
from livetab.models.base import Completion, GenerateRequest, ModelError
from livetab.paths import shared_data
from livetab.store import open_store, schema
from livetab.tables import Source, Table
from livetab_qagen.llm_path import Enqueue, LlmPathConfig, gold_from_value, parse_proposal, run_llm_path


def wtq_table(rel: str) -> Table:
    path = shared_data() / "wtq" / rel
    with path.open(encoding="utf-8", newline="") as f:
        grid = list(csv.reader(f, escapechar="\\"))
    return Table(id=f"wtq:{rel}", source=Source(kind="wtq", uri=rel), header=[grid[0]], rows=grid[1:],
                 caption="Tallest structures by year")


class Scripted:
    """Replies chosen by a function of (request, trial index)."""

    def __init__(self, name: str, reply: Callable[[GenerateRequest, int], str]) -> None:
        self.name = name
        self.reply = reply
        self.calls = 0

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        self.calls += 1
        assert request.messages[0].role == "system"
        return [Completion(text=self.reply(request, i)) for i in range(max(1, request.sampling.n))]


def generator(question: str, answer: str, program: str) -> Scripted:
    reply = "Sure! ```json\n" + json.dumps({"question": question, "answer": answer, "program": program}) + "\n```"
    return Scripted("gen", lambda _r, _i: reply)


def answers(*texts: str) -> Scripted:
    return Scripted("val", lambda _r, i: texts[i % len(texts)])


GOOD = generator("Which country is Lincoln Cathedral in?", "England",
                 "df.loc[df['Name'] == 'Lincoln Cathedral', 'Country'].iloc[0]")
TABLE_REL = "csv/203-csv/39.csv"


def run(gen: Scripted, val: Scripted, simple: Scripted | None, queue: Enqueue | None = None, k: int = 4):
    table = wtq_table(TABLE_REL)
    cfg = LlmPathConfig(k_validator=k, k_simplicity=k)
    return asyncio.run(run_llm_path(table, generator=gen, validator=val, simplicity=simple, queue=queue, config=cfg))


def test_validated_difficult_question_is_kept() -> None:
    res = run(GOOD, answers("England", "england.", "England", "France"), answers("France", "Egypt", "England", "x"))
    p = res.proposals[0]
    assert p.outcome == "kept", p.decisions
    q = p.question
    assert q is not None and q.status == "verified" and q.verification.passed
    assert q.gold.kind == "text" and q.gold.text == "England"
    assert (q.verification.validator_correct, q.verification.validator_trials) == (3, 4)
    assert (q.verification.simplicity_correct, q.verification.simplicity_trials) == (1, 4)
    assert q.verification.decisions == p.decisions and len(p.decisions) == 4
    assert q.difficulty == "hard" and "Lincoln Cathedral" in q.derivation


def test_partly_validated_question_goes_to_the_review_queue(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'q.db'}")
    queue = functools.partial(review.add, store)
    res = run(GOOD, answers("England", "Wales", "England", "no idea"), answers("x"), queue)
    p = res.proposals[0]
    assert p.outcome == "review" and p.question is not None and p.question.status == "review"
    assert p.decisions[-1] == "review queue: added"
    pending = review.items(store, status=review.PENDING)
    assert [i.question.id for i in pending] == [p.question.id] and pending[0].reason == "validator 2/4"
    assert pending[0].question.status == "review" and pending[0].question.verification.decisions  # how it got there
    assert not queue(p.question, "again")  # queued once: a redelivered table does not queue it twice
    approved = review.decide(store, p.question.id, review.ACCEPTED, reviewer="amira", note="checked in the table")
    assert approved.status == "verified" and approved.verification.decisions[-1] == (
        "human review: accepted by amira: checked in the table")
    assert review.items(store, status=review.PENDING) == [] and review.get(store, p.question.id).reviewer == "amira"
    assert store.get(schema.questions, p.question.id)["status"] == "verified"
    store.close()


def test_never_validated_question_is_discarded() -> None:
    res = run(GOOD, answers("France"), answers("England"))
    assert res.proposals[0].outcome == "discarded"
    assert res.proposals[0].question.status == "discarded"  # type: ignore[union-attr]
    assert "0/4 correct -> discard" in res.proposals[0].decisions[-1]


def test_simplicity_filter_removes_questions_a_small_model_gets_right() -> None:
    res = run(GOOD, answers("England"), answers("England", "England", "England", "France"))
    p = res.proposals[0]
    assert p.outcome == "too_simple" and "too simple" in p.decisions[-1]
    assert p.question is not None and p.question.verification.simplicity_correct == 3


@pytest.mark.parametrize("reply, why", [
    ("I cannot do that.", "no JSON object"),
    ('{"question": "How many?", "answer": "3"}', "lacks program"),
    ('{"question": "How many?", "answer": "3", "program": ', "could be decoded"),
])
def test_unusable_generator_replies_are_recorded(reply: str, why: str) -> None:
    res = run(Scripted("gen", lambda _r, _i: reply), answers("x"), None)
    p = res.proposals[0]
    assert p.outcome == "invalid" and why in p.decisions[0] and p.question is None


def test_program_that_does_not_reproduce_the_answer_is_rejected() -> None:
    gen = generator("How many structures are listed?", "12", "len(df)")
    res = run(gen, answers("12"), None)
    assert res.proposals[0].outcome == "mismatch"
    assert "program gives '14', not the proposed '12'" in res.proposals[0].decisions[-1]


@pytest.mark.parametrize("program, expect", [
    ("while True:\n    pass", "timeout"),
    ("open('/etc/passwd').read()", "open"),
    ("import os\nos.system('id')", "import os is not allowed"),
    ("__import__('os').listdir('/')", "not allowed"),
])
def test_malicious_derivations_are_stopped_by_the_sandbox(program: str, expect: str) -> None:
    gen = generator("How many rows?", "14", program)
    val = answers("14")
    res = asyncio.run(run_llm_path(wtq_table(TABLE_REL), generator=gen, validator=val,
                                   config=LlmPathConfig(sandbox_timeout_s=1)))
    p = res.proposals[0]
    assert p.outcome == "sandbox_failed" and expect in p.decisions[-1], p.decisions
    assert val.calls == 0  # nothing after the sandbox ran


def test_generator_failure_is_recorded() -> None:
    def boom(_r: GenerateRequest, _i: int) -> str:
        raise ModelError("503 from endpoint", retryable=True)

    res = run(Scripted("gen", boom), answers("x"), None)
    assert res.proposals[0].outcome == "model_error" and "503" in res.proposals[0].decisions[0]


def test_numeric_answers_and_k_scaling() -> None:
    gen = generator("How many structures are listed?", "14 structures", "len(df)")
    res = run(gen, answers("14", "15"), None, k=2)  # 1 of 2 -> review (keep needs 2 of 2)
    p = res.proposals[0]
    assert p.outcome == "review" and p.question is not None and p.question.gold.number == 14


def test_helpers() -> None:
    assert parse_proposal('x {"a": 1} {"question": "q", "answer": 2, "program": "1+1"}')[0] is not None
    assert gold_from_value(True).kind == "boolean" and gold_from_value("1,200").number == 1200
    assert gold_from_value(["a", "b"]).items == ["a", "b"] and gold_from_value(2.5).text == "2.5"
