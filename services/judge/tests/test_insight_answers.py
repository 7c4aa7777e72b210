"""Insight answers in the judge handler: routed past the rule judge to the insight judge, claims executed
over the question's real table (LoTNLG's world golf championships, read from the store once per batch),
per-insight labels recorded; without an LLM insight judge the claims alone decide, and an answer none of
whose insights could be decided is `not_judged` — never wrong.

The LLM side of the insight judge is a scripted reply here (what a judge says is not under test; the
model-marked test in tests/integration runs the real local model as the judge)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from livetab.bus import HandlerContext
from livetab.ids import judge_name, judgment_id
from livetab.models.base import Completion, GenerateRequest, ModelError
from livetab.paths import shared_data
from livetab.records import question_row, table_row
from livetab.settings import JudgeSettings, ModelSettings
from livetab.store import open_store, schema
from livetab.tables import Source, Table
from livetab.v1 import inference_pb2, judgment_pb2, question_pb2
from livetab_judge.handler import JudgeHandler
from livetab_judge.insight_answers import answer_verdict

GOLF = "2-1458666-4.html.csv"  # world golf championships: nation, total wins, team wins, individual wins, ...


def golf_table() -> Table:
    for line in (shared_data() / "lotnlg" / "lotnlg_test_100tables.jsonl").open():
        r = json.loads(line)
        if r["csv_id"] == GOLF:
            return Table(id="tab_golf", source=Source(kind="lotnlg", title=r["title"]), header=[r["table"][0]],
                         rows=r["table"][1:], caption=r["title"])
    raise AssertionError("LoTNLG table missing")


class Scripted:
    """Stands in for the judge model's replies; records the statements it was asked about."""

    name = "scripted"

    def __init__(self, reply: str | None) -> None:
        self.reply = reply
        self.asked: list[str] = []

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        self.asked.append(str(request.messages[-1].content).split("Statement: ")[1].split("\n")[0])
        if self.reply is None:
            raise ModelError("connection refused", retryable=True)
        return [Completion(text=self.reply)]


class CountingStore:
    """The real store, counting reads of the tables table."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.table_reads = 0

    def get_many(self, table: Any, keys: Any) -> Any:
        if table is schema.tables:
            self.table_reads += 1
        return self.inner.get_many(table, keys)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.fixture
def store(tmp_path: Path) -> Any:
    s = open_store("sqlite:///" + str(tmp_path / "j.db"))
    s.upsert(schema.tables, [table_row(golf_table().to_proto())])
    qs = [
        question_pb2.Question(id="q_ins1", table_id="tab_golf", family="insight", operation="count",
                              text="Write one insight.", gold=question_pb2.Gold(kind="free", text="ref"),
                              release="r"),
        question_pb2.Question(id="q_ins2", table_id="tab_golf", family="insight", operation="choice",
                              text="Write insights.", gold=question_pb2.Gold(kind="free", text="ref"), release="r"),
        question_pb2.Question(id="q_gone", table_id="tab_missing", family="insight", text="Write one insight.",
                              gold=question_pb2.Gold(kind="free", text="ref"), release="r"),
        question_pb2.Question(id="q_direct", table_id="tab_golf", family="direct", text="Total wins of fiji?",
                              gold=question_pb2.Gold(kind="number", number=1, text="1"), release="r"),
    ]
    s.upsert(schema.questions, [question_row(q) for q in qs])
    yield CountingStore(s)
    s.close()


def result(qid: str, response: str, *, error: str = "") -> inference_pb2.InferenceResult:
    return inference_pb2.InferenceResult(id=f"req_{qid}", run_id="run1", question_id=qid, model="m",
                                         response=response, error=error)


CLAIMED = (
    # supported: England and Australia both have 5 total wins
    'England has as many total wins as Australia. <claim>{"op": "comparative", "column": "total wins", '
    '"key": "nation", "a": "england", "b": "australia", "relation": "="}</claim>\n'
    # refuted: 5 nations have exactly 1 team win (united states, england, germany, japan, wales)
    '- Three nations have one team win. <claim>{"op": "count", "filter": {"team wins": 1}, "value": 3}</claim>\n'
    # no claim: the LLM judge decides
    "3. The United States has the most individual wins.\n")


def by_id(out: list[Any]) -> dict[str, judgment_pb2.Judgment]:
    return {o.message.question_id: o.message for o in out}


def test_insight_answers_go_to_the_insight_judge_with_claims_executed(store: CountingStore) -> None:
    settings = JudgeSettings(insight_judge=ModelSettings(name="ij", backend="openai", base_url="http://127.0.0.1:9"))
    handler = JudgeHandler(settings)
    assert handler.insights is not None
    scripted = Scripted('{"label": "True", "category": "none", "justification": "31 is the largest"}')
    handler.insights.judge.backend = scripted  # type: ignore[assignment]
    ctx = HandlerContext(store=store, settings=None)
    out = handler.handle_batch([result("q_ins1", CLAIMED), result("q_ins2", "Fiji has one total win."),
                                result("q_direct", "1")], ctx)
    got = by_id(out)
    assert store.table_reads == 1  # one read for the batch, however many insight answers

    ins = got["q_ins1"]
    labels = [(i.label, i.category, i.decided_by, i.claim_status) for i in ins.insights]
    assert labels == [("factual", "", "claim", "supported"), ("not_factual", "incorrect", "claim", "refuted"),
                      ("factual", "", "llm", "")]
    assert [i.sentence for i in ins.insights] == ["England has as many total wins as Australia.",
                                                   "Three nations have one team win.",
                                                   "The United States has the most individual wins."]
    assert ins.insights[1].claim_detail.startswith("5 ")  # the executed count
    assert ins.insights[2].justification == "31 is the largest"
    assert scripted.asked == ["The United States has the most individual wins.", "Fiji has one total win."]
    assert ins.verdict == "incorrect" and ins.score == pytest.approx(2 / 3)
    assert ins.rationale.startswith("[insight:ij@0.0] 2/3 insight(s) factual; not factual: incorrect 1")
    assert (got["q_ins2"].verdict, got["q_ins2"].score) == ("correct", 1.0)
    # the QA answer still goes through the rule judge
    assert got["q_direct"].verdict == "correct" and not got["q_direct"].insights
    assert got["q_direct"].rationale.startswith("[rule]")
    # the judge is named for its insight judge; the stored rows carry verdict, score and family
    assert ins.judge == judge_name(settings) == "rule|insight:ij@0.0"
    rows = store.get_many(schema.judgments, [judgment_id("req_q_ins1", ins.judge)])
    row = next(iter(rows.values()))
    assert (row["family"], row["verdict"], row["score"]) == ("insight", "incorrect", pytest.approx(2 / 3))
    assert judgment_pb2.Judgment.FromString(row["payload"]).insights == ins.insights


def test_without_an_llm_judge_claims_decide_and_unclaimed_answers_are_not_judged(store: CountingStore) -> None:
    handler = JudgeHandler(JudgeSettings())
    assert handler.insights is not None and handler.insights.judge.backend is None
    supported = CLAIMED.splitlines()[0]
    out = handler.handle_batch([result("q_ins1", CLAIMED), result("q_direct", "2"),
                                result("q_ins2", "", error="model error: boom"),
                                result("q_gone", "Fiji has one total win.\nItaly has one total win.")],
                               HandlerContext(store=store, settings=None))
    got = by_id(out)
    # the claims decide what they can: one supported, one refuted; the sentence without a claim stays undecided
    ins = got["q_ins1"]
    assert [(i.label, i.category, i.decided_by, i.claim_status) for i in ins.insights] == [
        ("factual", "", "claim", "supported"), ("not_factual", "incorrect", "claim", "refuted"),
        ("undecided", "", "none", "")]
    assert (ins.verdict, ins.score) == ("incorrect", pytest.approx(1 / 3))
    assert ins.rationale.startswith("[insight:claims] 1/3 insight(s) factual; not factual: incorrect 1; 1 undecided")
    assert ins.judge == judge_name(JudgeSettings()) == "rule"
    assert got["q_direct"].verdict == "incorrect"  # QA answers are judged as before
    assert got["q_ins2"].verdict == "error"  # a failed model call stays an error
    assert got["q_gone"].verdict == "error"  # so does a missing table
    assert store.table_reads == 1  # the batch's tables, read once for the rule judge and the claims

    # an answer none of whose insights could be decided is not judged (never wrong), its insights recorded
    out = handler.handle_batch([result("q_ins1", "Fiji has one total win.\nItaly won once."),
                                result("q_ins2", supported + "\nJapan won once.")],
                               HandlerContext(store=store, settings=None))
    got = by_id(out)
    plain = got["q_ins1"]
    assert (plain.verdict, plain.score) == ("not_judged", 0.0)
    assert "no insight carries a claim" in plain.rationale and "no LLM insight judge" in plain.rationale
    assert [i.label for i in plain.insights] == ["undecided", "undecided"]
    # one decided and one not: judged, uncertain (nothing refuted, something undecided)
    assert (got["q_ins2"].verdict, got["q_ins2"].score) == ("uncertain", 0.5)
    # a claim that cannot run on the table decides nothing
    bad = 'Fiji leads. <claim>{"op": "count", "filter": {"no such column": 1}, "value": 1}</claim>'
    [o] = handler.handle_batch([result("q_ins1", bad)], HandlerContext(store=store, settings=None))
    assert o.message.verdict == "not_judged" and o.message.insights[0].claim_status == "invalid"


def test_claims_only_judges_every_claim_of_a_long_answer(store: CountingStore) -> None:
    handler = JudgeHandler(JudgeSettings(insight_max_per_answer=2))  # the cap bounds LLM calls, not claims
    line = CLAIMED.splitlines()[0]
    [o] = handler.handle_batch([result("q_ins2", "\n".join([line] * 5))], HandlerContext(store=store, settings=None))
    assert ([i.label for i in o.message.insights], o.message.verdict) == (["factual"] * 5, "correct")


def test_an_llm_judge_is_the_default_insight_judge_and_failures_stay_undecided(store: CountingStore) -> None:
    settings = JudgeSettings(llm_judges=[ModelSettings(name="a", backend="openai", base_url="http://127.0.0.1:9"),
                                         ModelSettings(name="b", backend="openai", base_url="http://127.0.0.1:9")],
                             llm_temperatures=[0.3, 0.0])
    assert settings.insight_model() == (settings.llm_judges[0], 0.3)
    handler = JudgeHandler(settings)
    assert handler.insights is not None and handler.insights.judge.name == "a@0.3"
    assert handler.insights.judge.backend is handler.cascade.judges[0].backend  # one backend, loaded once
    assert judge_name(settings) == "cascade:a@0.3+b@0.0"  # unchanged: the insight judge is part of the cascade
    handler.insights.judge.backend = Scripted(None)  # type: ignore[assignment]  # the judge is unreachable
    out = handler.handle_batch([result("q_ins1", CLAIMED), result("q_gone", "Fiji won.")],
                               HandlerContext(store=store, settings=None))
    got = by_id(out)
    ins = got["q_ins1"]
    assert [i.label for i in ins.insights] == ["factual", "not_factual", "undecided"]
    assert "connection refused" in ins.insights[2].justification
    assert ins.verdict == "incorrect"  # one claim was refuted whatever the judge says
    assert got["q_gone"].verdict == "error" and "tab_missing" in got["q_gone"].rationale


def test_per_answer_cap_and_empty_answers(store: CountingStore) -> None:
    settings = JudgeSettings(insight_judge=ModelSettings(name="ij", backend="openai", base_url="http://127.0.0.1:9"),
                             insight_max_per_answer=2)
    handler = JudgeHandler(settings)
    assert handler.insights is not None
    scripted = Scripted("True")
    handler.insights.judge.backend = scripted  # type: ignore[assignment]
    out = handler.handle_batch([result("q_ins1", "Fiji won once.\nItaly won once.\nJapan won once."),
                                result("q_ins2", "  \n")], HandlerContext(store=store, settings=None))
    got = by_id(out)
    assert [i.label for i in got["q_ins1"].insights] == ["factual", "factual", "undecided"]
    assert len(scripted.asked) == 2 and got["q_ins1"].verdict == "uncertain"
    assert "1 beyond the per-answer cap" in got["q_ins1"].rationale
    assert (got["q_ins2"].verdict, got["q_ins2"].score, len(got["q_ins2"].insights)) == ("incorrect", 0.0, 0)


@pytest.mark.parametrize(("labels", "verdict", "score"), [
    ([], "incorrect", 0.0),
    (["factual", "factual"], "correct", 1.0),
    (["factual", "undecided"], "uncertain", 0.5),
    (["undecided", "not_factual", "factual"], "incorrect", 1 / 3),
])
def test_answer_verdict(labels: list[str], verdict: str, score: float) -> None:
    got = answer_verdict([judgment_pb2.InsightLabel(label=lab) for lab in labels])
    assert got == (verdict, pytest.approx(score))
