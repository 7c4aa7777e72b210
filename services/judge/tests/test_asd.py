"""Exact ASD mechanics with scripted judges (fault scaffolding, not a stand-in for a real judge: the real
local model runs in test_asd_model.py): batching of three, peer reasoning never in a prompt, revisions
applied, one pass only on disagreements, the final rule."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

import pytest
from livetab.models.base import Completion, GenerateRequest, ModelError
from livetab_judge.asd import (
    UNCERTAIN,
    build_deliberation_messages,
    final_label,
    parse_deliberation,
    run_asd,
)
from livetab_judge.llm_judge import FALSE, TRUE, UNPARSED, JudgeItem, LLMJudge


class Scripted:
    """Answers by a function of the prompt text and records every prompt it was sent."""

    def __init__(self, name: str, reply: Callable[[str], str]) -> None:
        self.name = name
        self.reply = reply
        self.prompts: list[str] = []

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        text = "\n".join(str(m.content) for m in request.messages)
        self.prompts.append(text)
        return [Completion(text=self.reply(text))]


def _is_deliberation(prompt: str) -> bool:
    return "Conflict 1" in prompt


def _items(n: int) -> list[JudgeItem]:
    return [JudgeItem(f"it{i}", f"Question number {i}?", f"gold {i}", f"response {i}") for i in range(n)]


SECRET_B = "SECRET-REASONING-OF-B"


def _judge_a(prompt: str) -> str:
    if _is_deliberation(prompt):
        n = len(re.findall(r"^Conflict \d+", prompt, re.M))
        return "\n".join(f'{{"conflict": {k}, "own": "mine holds", "other": "theirs fails", "label": "True"}}'
                         for k in range(1, n + 1))
    return '{"label": "True", "justification": "A thinks it matches"}'


def _judge_b(prompt: str) -> str:
    if _is_deliberation(prompt):
        # revise only the conflict about question 0, keep the rest, reasons in free text
        out = []
        for k, qnum in enumerate(re.findall(r"Question number (\d+)\?", prompt), 1):
            label = "True" if qnum == "0" else "False"
            out.append(f"Conflict {k}: the rules allow units. Label: {label}")
        return "\n".join(out)
    qnum = int(re.search(r"Question number (\d+)\?", prompt).group(1))  # type: ignore[union-attr]
    if qnum < 5:
        return f'{{"label": "False", "justification": "{SECRET_B} for {qnum}"}}'
    return '{"label": "True", "justification": "agree"}'


def _run(rule: str = "agree-else-uncertain") -> tuple[Scripted, Scripted, object]:
    a, b = Scripted("model-alpha", _judge_a), Scripted("model-beta", _judge_b)
    res = asyncio.run(run_asd([LLMJudge(a), LLMJudge(b)], _items(7), rule=rule))
    return a, b, res


def test_conflicts_go_three_at_a_time_and_only_once() -> None:
    a, b, res = _run()
    assert [c.item_id for c in res.conflicts] == ["it0", "it1", "it2", "it3", "it4"]  # type: ignore[attr-defined]
    for backend in (a, b):
        delib = [p for p in backend.prompts if _is_deliberation(p)]
        assert len(delib) == 2  # 5 conflicts -> batches of 3 and 2, one pass
        assert "Conflict 3" in delib[0] and "Conflict 4" not in delib[0]
        assert "Conflict 2" in delib[1] and "Conflict 3" not in delib[1]
        assert all("Question number 5?" not in p and "Question number 6?" not in p for p in delib)
        assert len(backend.prompts) == 7 + 2  # seven independent labels, then two batches


def test_peer_reasoning_never_reaches_a_prompt() -> None:
    a, b, _ = _run()
    delib_a = [p for p in a.prompts if _is_deliberation(p)]
    assert delib_a, "judge A deliberated"
    for p in delib_a:
        assert SECRET_B not in p
        assert "The other judge's label: False" in p and "Your label (Judge1): True" in p
        assert "model-beta" not in p and "model-alpha" not in p  # judges are anonymised
    for p in b.prompts:
        assert "A thinks it matches" not in p and "mine holds" not in p
        if _is_deliberation(p):
            assert "Your label (Judge2): False" in p and "The other judge's label: True" in p


def test_revision_applied_and_final_rule() -> None:
    _, _, res = _run()
    by = res.by_id()  # type: ignore[attr-defined]
    assert by["it0"].initial == {"Judge1": TRUE, "Judge2": FALSE}
    assert by["it0"].revised == {"Judge1": TRUE, "Judge2": TRUE}
    assert by["it0"].final == TRUE
    assert by["it1"].final == UNCERTAIN  # B kept False
    assert by["it5"].final == TRUE and by["it5"].rounds == []  # agreed: no deliberation
    rounds = by["it0"].rounds
    assert {r.judge for r in rounds} == {"Judge1", "Judge2"}
    rb = next(r for r in rounds if r.judge == "Judge2")
    assert (rb.own_label, rb.peer_label, rb.revised_label, rb.parsed) == (FALSE, "True", TRUE, True)
    assert rb.judge_name == "model-beta"
    proto = rb.to_proto()
    assert (proto.judge, proto.own_label, proto.revised_label) == ("Judge2", "False", "True")
    s = res.summary()  # type: ignore[attr-defined]
    assert (s["conflicts"], s["rounds"], s["revised"], s["resolved"]) == (5, 10, 1, 1)


@pytest.mark.parametrize(("rule", "expected"), [
    ("judge1-wins", [TRUE] * 7),
    ("any-true", [TRUE] * 7),
    ("all-true", [TRUE, FALSE, FALSE, FALSE, FALSE, TRUE, TRUE]),
])
def test_other_final_rules(rule: str, expected: list[str]) -> None:
    _, _, res = _run(rule)
    assert [it.final for it in res.items] == expected  # type: ignore[attr-defined]


def test_final_label_rules_directly() -> None:
    order = ["Judge1", "Judge2", "Judge3"]
    assert final_label({"Judge1": TRUE, "Judge2": FALSE, "Judge3": FALSE}, "majority", order) == FALSE
    assert final_label({"Judge1": UNPARSED, "Judge2": TRUE, "Judge3": TRUE}, "judge1-wins", order) == UNCERTAIN
    assert final_label({"Judge1": UNPARSED, "Judge2": TRUE, "Judge3": TRUE}, "agree-else-uncertain",
                       order) == UNCERTAIN
    with pytest.raises(ValueError):
        final_label({}, "coin-flip", order)


def test_unparsable_deliberation_keeps_own_label_and_is_recorded() -> None:
    def mumbling(prompt: str) -> str:
        return "I really like this table" if _is_deliberation(prompt) else "Label: False"

    a = Scripted("a", _judge_a)
    m = Scripted("m", mumbling)
    res = asyncio.run(run_asd([LLMJudge(a), LLMJudge(m)], _items(2), rule="agree-else-uncertain"))
    rounds = [r for r in res.rounds if r.judge == "Judge2"]
    assert len(rounds) == 2 and all(not r.parsed and r.revised_label == FALSE for r in rounds)
    assert "I really like this table" in rounds[0].justification
    assert all(it.final == UNCERTAIN for it in res.items)


def test_model_errors_in_both_phases_do_not_crash() -> None:
    class Flaky:
        name = "flaky"

        async def generate(self, request: GenerateRequest) -> list[Completion]:
            raise ModelError("timeout", retryable=True)

    a = Scripted("a", _judge_a)
    res = asyncio.run(run_asd([LLMJudge(a), LLMJudge(Flaky())], _items(2)))
    assert all(it.initial["Judge2"] == "error" for it in res.items)
    assert len(res.conflicts) == 2
    # the failing judge's rounds are recorded, unparsed, its label unchanged; the final label is uncertain
    assert all(not r.parsed for r in res.rounds if r.judge == "Judge2")
    assert all(it.final == UNCERTAIN for it in res.items)
    # judge1-wins still decides
    res2 = asyncio.run(run_asd([LLMJudge(a), LLMJudge(Flaky())], _items(2), rule="judge1-wins"))
    assert all(it.final == TRUE for it in res2.items)


def test_parse_deliberation_variants() -> None:
    assert parse_deliberation('{"conflict": 2, "label": "False"}\n{"conflict": 1, "label": true}', 2) == {
        2: (FALSE, ""), 1: (TRUE, "")}
    got = parse_deliberation("Conflict 1: keep. Label: True\nConflict 2 - I now think False", 2)
    assert got[1][0] == TRUE and got[2][0] == FALSE
    assert parse_deliberation("False", 1) == {1: (FALSE, "")}
    assert parse_deliberation("nothing useful", 3) == {}
    # a judge that copies its prompt back has not decided: the echoed labels are not its decision
    echo = ("Conflict 1\nQuestion: q?\nGold answer: 40\nResponse: forty\nYour label (Judge1): True\n"
            "The other judge's label: False")
    assert parse_deliberation(echo, 1) == {}
    assert parse_deliberation("Conflict 1\nLabel: False\nConflict 2\nLabel: True", 2) == {1: (FALSE, ""),
                                                                                          2: (TRUE, "")}


def test_prompt_shows_labels_only() -> None:
    item = JudgeItem("x", "q?", "40", "forty")
    text = "\n".join(str(m.content) for m in build_deliberation_messages("Judge2", [(item, UNPARSED, "True")]))
    assert "Your label (Judge2): no label" in text and "The other judge's label: True" in text
