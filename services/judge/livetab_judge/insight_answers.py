"""Answers of the `insight` family (FreshTab's table-to-text task), judged insight by insight.

The rule judge cannot decide a free-text insight (its gold kind is `free`), so these answers bypass the
cascade: each insight in the response (see `insights.extract_insights`) is judged for factuality against
the question's table by the insight judge — a structured claim written beside the sentence is executed
over the table and decides; otherwise the LLM judge labels it with FreshTab's error categories. Each
insight's label, category and how it was decided are recorded in `Judgment.insights`; the answer's verdict
and score summarise them (see `answer_verdict`).

Without an LLM insight judge the claims alone judge (`InsightJudge` without a backend, named "claims"): an
insight whose claim executes over the table is decided by it, the others stay undecided, and an answer none of
whose insights could be decided is `not_judged`: neither right nor wrong, never counted as wrong. Claims cost
no model call, so the claims-only judge executes every insight's claim (no per-answer cap).
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from livetab.questions import Question
from livetab.tables import Table
from livetab.v1 import judgment_pb2
from livetab.verdicts import (
    CORRECT,
    ERROR,
    FACTUAL,
    INCORRECT,
    NOT_FACTUAL,
    NOT_JUDGED,
    UNCERTAIN,
    UNDECIDED,
)

from livetab_judge.insights import Insight, InsightJudge, InsightVerdict, extract_insights
from livetab_judge.llm_judge import FALSE, TRUE

__all__ = ["CLAIMS_ONLY", "CLAIMS_ONLY_UNDECIDED", "InsightAnswerJudge", "InsightCase", "answer_verdict",
           "label_of", "mark_not_judged"]

log = logging.getLogger(__name__)

CLAIMS_ONLY = "claims"  # the insight judge's name when no LLM insight judge is configured


@dataclass(frozen=True)
class InsightCase:
    judgment: judgment_pb2.Judgment  # filled in place
    question: Question
    response: str
    table: Table | None


def label_of(v: InsightVerdict) -> judgment_pb2.InsightLabel:
    """One insight's record: factual / not_factual (with its error category) / undecided."""
    combined = v.verdict
    label = FACTUAL if combined == TRUE else NOT_FACTUAL if combined == FALSE else UNDECIDED
    return judgment_pb2.InsightLabel(
        sentence=v.sentence, label=label, category=(v.category or "other") if label == NOT_FACTUAL else "",
        decided_by=v.decided_by or "none", claim_status=v.claim_status, claim_detail=v.claim_detail,
        justification=v.justification)


def answer_verdict(labels: Sequence[judgment_pb2.InsightLabel]) -> tuple[str, float]:
    """(verdict, score) of an answer from its insights' labels: `correct` when every insight is factual,
    `incorrect` when one is not (or the answer has none), `uncertain` when none is refuted but some are
    undecided; the score is the share of its insights judged factual."""
    if not labels:
        return INCORRECT, 0.0
    counts = Counter(lab.label for lab in labels)
    if counts[NOT_FACTUAL]:
        verdict = INCORRECT
    elif counts[UNDECIDED]:
        verdict = UNCERTAIN
    else:
        verdict = CORRECT
    return verdict, counts[FACTUAL] / len(labels)


def mark_not_judged(j: judgment_pb2.Judgment, why: str) -> None:
    j.verdict, j.score, j.rationale = NOT_JUDGED, 0.0, why


CLAIMS_ONLY_UNDECIDED = ("not judged: no insight carries a claim that executes over the table, and no LLM insight "
                         "judge is configured (judge.insight_judge or judge.llm_judges)")


def _rationale(judge: str, labels: Sequence[judgment_pb2.InsightLabel], capped: int) -> str:
    counts = Counter(lab.label for lab in labels)
    cats = Counter(lab.category for lab in labels if lab.label == NOT_FACTUAL)
    by = Counter(lab.decided_by for lab in labels if lab.label != UNDECIDED)
    parts = [f"{counts[FACTUAL]}/{len(labels)} insight(s) factual"]
    if cats:
        parts.append("not factual: " + ", ".join(f"{c} {n}" for c, n in sorted(cats.items())))
    if counts[UNDECIDED]:
        parts.append(f"{counts[UNDECIDED]} undecided")
    if by:
        parts.append("decided by " + ", ".join(f"{d} {n}" for d, n in sorted(by.items())))
    if capped:
        parts.append(f"{capped} beyond the per-answer cap left undecided")
    return f"[insight:{judge}] " + "; ".join(parts)


class InsightAnswerJudge:
    """Judges insight answers with one `InsightJudge`, at most `concurrency` judge calls at a time."""

    def __init__(self, judge: InsightJudge, *, max_per_answer: int = 8, concurrency: int = 4) -> None:
        self.judge = judge
        self.claims_only = judge.backend is None
        # the cap bounds LLM calls; executing claims costs none, so the claims-only judge runs every claim
        self.max_per_answer = max_per_answer if not self.claims_only else 1 << 30
        self.concurrency = concurrency

    async def judge_many(self, cases: Sequence[InsightCase]) -> None:
        """Fill each case's judgment: verdict, score, rationale, extracted insights and one label per insight."""
        sem = asyncio.Semaphore(self.concurrency)

        async def one(table: Table, insight: Insight) -> InsightVerdict:
            async with sem:
                return await self.judge.judge(table, insight)

        async def fill(case: InsightCase) -> None:
            j = case.judgment
            del j.insights[:]
            if case.table is None:
                j.verdict, j.score = ERROR, 0.0
                j.rationale = f"table {case.question.table_id} is not in the store"
                return
            insights = extract_insights(case.response)
            judged, rest = insights[:self.max_per_answer], insights[self.max_per_answer:]
            table = case.table
            verdicts = await asyncio.gather(*(one(table, i) for i in judged))
            labels = [label_of(v) for v in verdicts]
            labels += [judgment_pb2.InsightLabel(sentence=i.sentence, label=UNDECIDED, decided_by="none",
                                                 justification="beyond the per-answer cap") for i in rest]
            j.insights.extend(labels)
            j.extracted_answer = "\n".join(i.sentence for i in insights)
            if self.claims_only and labels and all(lab.label == UNDECIDED for lab in labels):
                mark_not_judged(j, f"[insight:{self.judge.name}] {CLAIMS_ONLY_UNDECIDED}")
                return
            j.verdict, j.score = answer_verdict(labels)
            j.rationale = (_rationale(self.judge.name, labels, len(rest)) if labels
                           else f"[insight:{self.judge.name}] no insight in the response")

        await asyncio.gather(*(fill(c) for c in cases))
