"""The judge cascade: the rule judge (AraTable's rubric as code) decides first; LLM judges with
Assisted Self-Deliberation run only on answers the rules leave *uncertain*, or on every answer when
asked (`always_llm=True`). Each result says which judge decided and carries the deliberation record.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from livetab.questions import Question
from livetab.rubric.columns import TableView
from livetab.v1 import judgment_pb2

from livetab_judge.asd import UNCERTAIN, DeliberationRound, run_asd
from livetab_judge.llm_judge import ERROR, FALSE, TRUE, JudgeItem, LLMJudge

__all__ = ["Cascade", "CascadeCase", "CascadeResult", "RuleJudge", "RuleVerdictLike", "default_rule_judge"]

log = logging.getLogger(__name__)

CORRECT = "correct"
INCORRECT = "incorrect"
_DECISIVE = (CORRECT, INCORRECT)


class RuleVerdictLike(Protocol):
    @property
    def verdict(self) -> str: ...
    @property
    def extracted(self) -> str: ...
    @property
    def rationale(self) -> str: ...


RuleJudge = Callable[..., RuleVerdictLike]  # (response, question[, table]) -> verdict


def default_rule_judge(tolerance: float = 0.005) -> RuleJudge:
    """The rubric's `judge_answer(response, question, tolerance=..., table=...)`, imported when first needed."""
    from livetab.rubric.judge import judge_answer

    def rule(response: str, question: Question, table: TableView | None = None) -> RuleVerdictLike:
        return judge_answer(response, question, tolerance=tolerance, table=table)

    return rule


@dataclass(frozen=True)
class CascadeCase:
    item_id: str
    response: str
    question: Question
    table: TableView | None = None  # the question's table, when the store has it


@dataclass
class CascadeResult:
    item_id: str
    verdict: str  # correct, incorrect, uncertain, error
    decided_by: str  # "rule", "llm-asd", "rule (llm uncertain)", "none"
    rule_verdict: str
    extracted: str = ""
    rationale: str = ""
    llm_labels: dict[str, str] = field(default_factory=dict)
    llm_final: str = ""
    deliberation: list[DeliberationRound] = field(default_factory=list)

    def apply_to(self, judgment: judgment_pb2.Judgment) -> judgment_pb2.Judgment:
        """Write verdict, score, extracted answer, rationale and the deliberation into a Judgment."""
        judgment.verdict = self.verdict
        judgment.score = 1.0 if self.verdict == CORRECT else 0.0
        judgment.extracted_answer = self.extracted
        judgment.rationale = f"[{self.decided_by}] {self.rationale}".strip()
        del judgment.deliberation[:]
        judgment.deliberation.extend(r.to_proto() for r in self.deliberation)
        return judgment


def _from_label(label: str) -> str:
    return {TRUE: CORRECT, FALSE: INCORRECT}.get(label, UNCERTAIN)


class Cascade:
    """Rule judge first, then (if configured) two or more LLM judges with ASD on what is left."""

    def __init__(self, judges: Sequence[LLMJudge] = (), *, rule: str = "agree-else-uncertain",
                 always_llm: bool = False, batch_size: int = 3, rule_judge: RuleJudge | None = None,
                 tolerance: float = 0.005) -> None:
        self.judges = list(judges)
        self.rule = rule
        self.always_llm = always_llm
        self.batch_size = batch_size
        self._rule_judge = rule_judge
        self.tolerance = tolerance

    @property
    def rule_judge(self) -> RuleJudge:
        if self._rule_judge is None:
            self._rule_judge = default_rule_judge(self.tolerance)
        return self._rule_judge

    def _rule(self, case: CascadeCase) -> CascadeResult:
        try:
            rv = (self.rule_judge(case.response, case.question) if case.table is None
                  else self.rule_judge(case.response, case.question, case.table))
        except Exception as e:  # a rule-judge bug must not lose the answer: record it and let the LLMs try
            log.exception("rule judge failed on %s", case.item_id)
            return CascadeResult(case.item_id, ERROR, "rule", ERROR, rationale=f"rule judge error: {e!r}")
        verdict = rv.verdict if rv.verdict in _DECISIVE else UNCERTAIN
        return CascadeResult(case.item_id, verdict, "rule", rv.verdict, rv.extracted, rv.rationale)

    async def judge_many(self, cases: Sequence[CascadeCase]) -> list[CascadeResult]:
        results = [self._rule(c) for c in cases]
        if not self.judges:
            return results
        to_llm = [i for i, r in enumerate(results) if self.always_llm or r.verdict not in _DECISIVE]
        if not to_llm:
            return results
        items = [JudgeItem.from_question(cases[i].item_id, cases[i].question, cases[i].response) for i in to_llm]
        asd = await run_asd(self.judges, items, rule=self.rule, batch_size=self.batch_size)
        by_id = asd.by_id()
        for i in to_llm:
            r = results[i]
            a = by_id[cases[i].item_id]
            r.llm_labels = {f"{alias} ({asd.aliases[alias]})": lab for alias, lab in a.revised.items()}
            r.llm_final = a.final
            r.deliberation = list(a.rounds)
            llm_verdict = _from_label(a.final)
            if llm_verdict in _DECISIVE:
                r.verdict, r.decided_by = llm_verdict, "llm-asd"
                notes = "; ".join(f"{k}: {v}" for k, v in a.justifications.items() if v)
                r.rationale = (f"rule: {r.rationale} | " if r.rationale else "") + f"llm ({asd.rule}): {notes}"
            elif r.verdict in _DECISIVE:
                r.decided_by = "rule (llm uncertain)"
            else:
                r.verdict, r.decided_by = UNCERTAIN, "llm-asd"
        return results

    async def judge(self, response: str, question: Question, *, item_id: str = "item") -> CascadeResult:
        return (await self.judge_many([CascadeCase(item_id, response, question)]))[0]
