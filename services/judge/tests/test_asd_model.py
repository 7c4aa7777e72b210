"""ASD end to end with two real local judge models (the same SmolLM2 GGUF at two temperatures) over real
WikiTableQuestions answers from GPT-4 and Llama-2-70B, and the cascade with the real rule judge in front.

The 135M model rarely follows the output format; these tests check that parsing survives that, that
the deliberation happens exactly on the conflicts and is recorded, and that no judge's reasoning
reaches the other judge's prompt.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from pathlib import Path

import pytest
from livetab.models.base import Completion, GenerateRequest, SamplingParams
from livetab.paths import shared_data
from livetab.questions import Gold, Question
from livetab.v1 import judgment_pb2
from livetab_judge.asd import build_deliberation_messages, final_label, run_asd
from livetab_judge.cascade import Cascade, CascadeCase
from livetab_judge.llm_judge import ERROR, FALSE, TRUE, UNPARSED, JudgeItem, LLMJudge

pytestmark = pytest.mark.model
log = logging.getLogger(__name__)
MAX_TOKENS = 48


class Recording:
    """A real backend under another name, recording the prompts sent through it."""

    def __init__(self, inner: object, name: str) -> None:
        self.inner = inner
        self.name = name
        self.prompts: list[str] = []

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        self.prompts.append(_text(request))
        return await self.inner.generate(request)  # type: ignore[attr-defined, no-any-return]


def _text(request: GenerateRequest) -> str:
    return "\n".join(str(m.content) for m in request.messages)


def wtq_records() -> list[dict[str, object]]:
    with (shared_data() / "wtq" / "questions.jsonl").open() as f:
        return [json.loads(line) for line in f]


def wtq_question(r: dict[str, object]) -> Question:
    answers = [str(a) for a in r["answers"]]  # type: ignore[attr-defined]
    if len(answers) > 1:
        gold = Gold(kind="list", items=answers, text="; ".join(answers))
    elif r["target_canon_type"] == "number":
        gold = Gold(kind="number", number=float(str(r["target_canon"])), text=answers[0])
    else:
        gold = Gold(kind="text", text=answers[0])
    return Question(id=str(r["id"]), table_id=str(r["table_csv"]), family="direct", text=str(r["question"]),
                    gold=gold)


@pytest.fixture(scope="module")
def local_model() -> object:
    from livetab.models.llama_local import LlamaLocalBackend

    return LlamaLocalBackend()


def _judges(local_model: object) -> tuple[LLMJudge, LLMJudge, Recording, Recording]:
    cold, hot = Recording(local_model, "smollm2@0.0"), Recording(local_model, "smollm2@1.0")
    j1 = LLMJudge(cold, sampling=SamplingParams(temperature=0.0, max_tokens=MAX_TOKENS, seed=1))
    j2 = LLMJudge(hot, sampling=SamplingParams(temperature=1.0, top_p=0.95, max_tokens=MAX_TOKENS, seed=7))
    return j1, j2, cold, hot


def test_asd_end_to_end_on_real_wtq_answers(local_model: object, tmp_path: Path) -> None:
    items = []
    for r in wtq_records()[:3]:
        q = wtq_question(r)
        for model, out in r["llm_outputs"].items():  # type: ignore[attr-defined]
            items.append(JudgeItem.from_question(f"{r['id']}:{model}", q, str(out)))
    items = items[:5]
    j1, j2, cold, hot = _judges(local_model)
    res = asyncio.run(run_asd([j1, j2], items, rule="agree-else-uncertain"))

    # independent labels, whatever the small model wrote: parsed or recorded as unparsed, never a crash
    for it in res.items:
        assert set(it.initial.values()) <= {TRUE, FALSE, UNPARSED}, it.initial
    assert not any(ERROR in it.initial.values() for it in res.items)
    conflicted = [it.item_id for it in res.items
                  if len(set(it.initial.values())) > 1 or any(v not in (TRUE, FALSE) for v in it.initial.values())]
    assert [c.item_id for c in res.conflicts] == conflicted
    assert conflicted, "the two judges agreed everywhere: no deliberation to show"

    # one pass per judge, only on the conflicts, three at a time; every round recorded
    for it in res.items:
        if it.item_id in conflicted:
            assert sorted(r.judge for r in it.rounds) == ["Judge1", "Judge2"]
        else:
            assert it.rounds == []
        assert it.final == final_label(it.revised, "agree-else-uncertain", ["Judge1", "Judge2"])
    n_batches = math.ceil(len(conflicted) / 3)
    by_id = {it.item_id: it for it in items}
    for alias, rec in (("Judge1", cold), ("Judge2", hot)):
        delib = rec.prompts[len(items):]
        assert len(rec.prompts) == len(items) + n_batches
        # the deliberation prompts are exactly: rubric, items, own label, peer LABEL; nothing else
        for b, prompt in enumerate(delib):
            chunk = res.conflicts[3 * b:3 * b + 3]
            peer = "Judge2" if alias == "Judge1" else "Judge1"
            batch = [(by_id[c.item_id], c.labels[alias], _shown(c.labels[peer])) for c in chunk]
            expected = "\n".join(str(m.content) for m in build_deliberation_messages(alias, batch))
            assert prompt == expected
    # and the peer's own reply (its reasoning) appears in none of them, where it is not just an echo
    for it in res.items:
        peer_just = it.justifications.get("Judge2", "")
        echo = any(peer_just in x for x in (by_id[it.item_id].question, by_id[it.item_id].response,
                                            by_id[it.item_id].gold))
        if len(peer_just) >= 12 and not echo:
            assert all(peer_just not in p for p in cold.prompts[len(items):])

    # the record: DeliberationRound protos in a Judgment, and a JSON log of every round
    j = judgment_pb2.Judgment(id="jdg_x", judge="asd", deliberation=[r.to_proto() for r in res.rounds])
    back = judgment_pb2.Judgment.FromString(j.SerializeToString())
    assert len(back.deliberation) == 2 * len(conflicted)
    record = {"aliases": res.aliases, "summary": res.summary(),
              "items": [{"id": it.item_id, "initial": it.initial, "revised": it.revised, "final": it.final,
                         "rounds": [r.__dict__ for r in it.rounds]} for it in res.items]}
    (tmp_path / "asd_record.json").write_text(json.dumps(record, ensure_ascii=False, indent=1))
    log.info("ASD record: %s", json.dumps(record, ensure_ascii=False))


def _shown(label: str) -> str:
    return {TRUE: "True", FALSE: "False"}.get(label, "no label (the reply could not be read)")


def test_cascade_sends_only_uncertain_rule_verdicts_to_the_local_judges(local_model: object) -> None:
    cases: list[CascadeCase] = []
    uncertain: list[str] = []
    decided: list[str] = []
    rule = Cascade().rule_judge
    for r in wtq_records():
        q = wtq_question(r)
        for model, out in r["llm_outputs"].items():  # type: ignore[attr-defined]
            cid = f"{r['id']}:{model}"
            v = rule(str(out), q)
            if v.verdict == "uncertain" and len(uncertain) < 3:
                uncertain.append(cid)
                cases.append(CascadeCase(cid, str(out), q))
            elif v.verdict in ("correct", "incorrect") and len(decided) < 3:
                decided.append(cid)
                cases.append(CascadeCase(cid, str(out), q))
        if len(uncertain) == 3 and len(decided) == 3:
            break
    assert len(uncertain) == 3 and len(decided) == 3
    j1, j2, cold, _ = _judges(local_model)
    results = asyncio.run(Cascade([j1, j2]).judge_many(cases))
    by = {r.item_id: r for r in results}
    for cid in decided:
        assert by[cid].decided_by == "rule" and by[cid].llm_labels == {} and by[cid].deliberation == []
    for cid in uncertain:
        r = by[cid]
        assert r.rule_verdict == "uncertain" and r.decided_by == "llm-asd"
        assert r.verdict in ("correct", "incorrect", "uncertain")
        assert len(r.llm_labels) == 2
    # only the uncertain answers reached a judge model
    first_pass = cold.prompts[:3]
    assert all(any(c.response in p for c in cases if c.item_id in uncertain) for p in first_pass)
    assert not any(c.response in p for p in cold.prompts for c in cases if c.item_id in decided)
    log.info("cascade: %s", [(r.item_id, r.verdict, r.decided_by, r.llm_labels) for r in results])
