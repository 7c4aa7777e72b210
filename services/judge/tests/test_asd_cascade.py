"""The cascade's routing with the real rule judge on real WTQ answers, and scripted LLM judges (fault
scaffolding that records what reached them): only uncertain verdicts go to the LLM judges unless
`always_llm`; who decided is reported; the deliberation record is carried through."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from functools import cache

import pytest
from livetab.models.base import Completion, GenerateRequest
from livetab.paths import shared_data
from livetab.questions import Gold, Question
from livetab.v1 import judgment_pb2
from livetab_judge.cascade import Cascade, CascadeCase
from livetab_judge.llm_judge import LLMJudge


class Scripted:
    def __init__(self, name: str, reply: Callable[[str], str]) -> None:
        self.name = name
        self.reply = reply
        self.prompts: list[str] = []

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        text = "\n".join(str(m.content) for m in request.messages)
        self.prompts.append(text)
        return [Completion(text=self.reply(text))]


@cache
def _cases() -> tuple[list[CascadeCase], dict[str, str]]:
    """Real WTQ answers with their rule verdicts: the first 4 uncertain and 4 decided."""
    from livetab_judge.cascade import default_rule_judge

    rule = default_rule_judge()
    cases: list[CascadeCase] = []
    verdicts: dict[str, str] = {}
    n_unc = n_dec = 0
    with (shared_data() / "wtq" / "questions.jsonl").open() as f:
        for line in f:
            r = json.loads(line)
            answers = r["answers"]
            if len(answers) > 1:
                gold = Gold(kind="list", items=answers, text="; ".join(answers))
            elif r["target_canon_type"] == "number":
                gold = Gold(kind="number", number=float(r["target_canon"]), text=answers[0])
            else:
                gold = Gold(kind="text", text=answers[0])
            q = Question(id=r["id"], table_id=r["table_csv"], family="direct", text=r["question"], gold=gold)
            for model, out in r["llm_outputs"].items():
                v = rule(out, q).verdict
                if (v == "uncertain" and n_unc < 4) or (v != "uncertain" and n_dec < 4):
                    cid = f"{r['id']}:{model}"
                    cases.append(CascadeCase(cid, out, q))
                    verdicts[cid] = v
                    n_unc += v == "uncertain"
                    n_dec += v != "uncertain"
            if n_unc == 4 and n_dec == 4:
                break
    return cases, verdicts


def _yes(_: str) -> str:
    return '{"label": "True", "justification": "matches"}'


def _no_then_yes(prompt: str) -> str:
    if "Conflict 1" in prompt:
        n = len(re.findall(r"^Conflict \d+", prompt, re.M))
        return "\n".join(f'{{"conflict": {k}, "label": "True"}}' for k in range(1, n + 1))
    return "Label: False"


def test_only_uncertain_rule_verdicts_reach_the_llm_judges() -> None:
    cases, verdicts = _cases()
    assert sorted(verdicts.values()).count("uncertain") == 4
    a, b = Scripted("a", _yes), Scripted("b", _yes)
    results = asyncio.run(Cascade([LLMJudge(a), LLMJudge(b)]).judge_many(cases))
    for case, res in zip(cases, results, strict=True):
        assert res.item_id == case.item_id and res.rule_verdict == verdicts[case.item_id]
        if verdicts[case.item_id] == "uncertain":
            assert (res.verdict, res.decided_by) == ("correct", "llm-asd")
            assert set(res.llm_labels.values()) == {"true"}
        else:
            assert (res.verdict, res.decided_by) == (verdicts[case.item_id], "rule")
            assert res.llm_labels == {} and res.deliberation == []
    assert len(a.prompts) == 4 and len(b.prompts) == 4  # agreed: no deliberation round
    decided = [c.response for c in cases if verdicts[c.item_id] != "uncertain"]
    assert not any(resp in p for p in a.prompts for resp in decided)


def test_always_llm_and_deliberation_record() -> None:
    cases, _ = _cases()
    a, b = Scripted("a", _yes), Scripted("b", _no_then_yes)
    results = asyncio.run(Cascade([LLMJudge(a), LLMJudge(b)], always_llm=True).judge_many(cases))
    assert len(a.prompts) == 8 + 3  # 8 labels, then 8 conflicts in batches of 3, 3, 2
    for res in results:
        assert res.decided_by == "llm-asd" and res.verdict == "correct"  # b revised to True everywhere
        assert [r.judge for r in res.deliberation] == ["Judge1", "Judge2"]
        assert any(r.own_label == "false" and r.revised_label == "true" for r in res.deliberation)
    j = results[0].apply_to(judgment_pb2.Judgment(id="jdg_1", judge="cascade"))
    assert (j.verdict, j.score, len(j.deliberation)) == ("correct", 1.0, 2)
    assert j.rationale.startswith("[llm-asd]") and j.deliberation[1].revised_label == "True"


def test_llm_uncertain_falls_back_to_a_decisive_rule_verdict() -> None:
    cases, verdicts = _cases()
    a, b = Scripted("a", _yes), Scripted("b", lambda p: "Label: False")
    results = asyncio.run(Cascade([LLMJudge(a), LLMJudge(b)], always_llm=True).judge_many(cases))
    for res in results:
        if verdicts[res.item_id] == "uncertain":
            assert (res.verdict, res.decided_by) == ("uncertain", "llm-asd")
        else:
            assert (res.verdict, res.decided_by) == (verdicts[res.item_id], "rule (llm uncertain)")
        assert res.llm_final == "uncertain"


def test_without_llm_judges_uncertain_stays_uncertain_and_rule_errors_are_recorded() -> None:
    cases, verdicts = _cases()
    results = asyncio.run(Cascade().judge_many(cases))
    assert [r.verdict for r in results] == [verdicts[c.item_id] for c in cases]

    def broken(response: str, question: Question) -> object:
        raise RuntimeError("rubric bug")

    res = asyncio.run(Cascade(rule_judge=broken).judge("40", cases[0].question))  # type: ignore[arg-type]
    assert res.verdict == "error" and "rubric bug" in res.rationale
    res2 = asyncio.run(Cascade([LLMJudge(Scripted("a", _yes)), LLMJudge(Scripted("b", _yes))],
                               rule_judge=broken).judge("40", cases[0].question))  # type: ignore[arg-type]
    assert (res2.verdict, res2.decided_by) == ("correct", "llm-asd")


def test_unknown_final_rule_is_a_clear_error() -> None:
    cases, _ = _cases()
    with pytest.raises(ValueError, match="unknown ASD final rule"):
        asyncio.run(Cascade([LLMJudge(Scripted("a", _yes))], rule="coin", always_llm=True).judge_many(cases[:1]))
