"""Leaderboard rows from stored judgments: accuracy with a Wilson 95% interval, overall and per stratum
(task family, reasoning skill, evidence scope, logical operation, difficulty, language, table domain, source,
size and structure, format, setting, prompt length), plus TeleTables' pass@1 and cons@k over the N samples of
each question, unbiased pass@k, tokens and latency, and the views of `stats.aggregate`.

`leaderboard` is the one computation: the reporter handler's live rows (`compute_rows`) and the files
(`files.leaderboard_doc`) are both read from what it returns.

QA accuracy counts question-answering families only. The `insight` family (free-text insights about the
table, FreshTab's table-to-text task) is scored apart, per model (`InsightStats`): the share of insights
the insight judge found factual (Wilson interval), FreshTab's error categories, how many answers were not
judged (no insight judge configured; never counted as wrong), and the diversity of the model's insight
responses (self-BLEU-4, unique tokens per response, entropy, empty rate, length) — which needs no judge."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any

from livetab.diversity import diversity
from livetab.metrics import wilson_interval
from livetab.verdicts import (
    CORRECT,
    ERROR,
    ERROR_CATEGORIES,
    FACTUAL,
    NOT_FACTUAL,
    NOT_JUDGED,
    UNDECIDED,
)

from livetab_reporter.facts import InsightFact, read_facts
from livetab_reporter.stats import STRATA, Aggregate, aggregate

__all__ = ["INSIGHT_SLICE", "SLICE_KEYS", "InsightStats", "Leaderboard", "Row", "RunStats", "compute_rows",
           "insight_stats", "leaderboard", "run_stats"]

INSIGHT_SLICE = "insight"  # the live leaderboard's row for insights judged factual; never part of "all"

SLICE_KEYS = STRATA  # every stratum is a live row "key=value"


@dataclass
class Row:
    run_id: str
    model: str
    slice: str
    n: int
    correct: int
    accuracy: float
    ci_low: float
    ci_high: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class RunStats:
    rows: list[Row]
    pass_at_1: float = 0.0
    cons_at_k: float = 0.0
    k: int = 1
    errors: int = 0
    prompt_tokens: dict[str, float] = field(default_factory=dict)  # format -> mean prompt tokens
    insights: list[InsightStats] = field(default_factory=list)  # one per model with insight answers


@dataclass
class InsightStats:
    """One model's insight answers in one run, under one judge."""

    model: str
    answers: int = 0  # insight answers with a judgment (any verdict)
    judged: int = 0  # answers the insight judge judged
    not_judged: int = 0  # answers left not judged: no insight judge configured
    errors: int = 0  # failed model calls (or a missing table): no insight to judge
    all_factual: int = 0  # judged answers whose every insight was found factual
    insights: int = 0  # insights in the judged answers
    factual: int = 0
    not_factual: int = 0
    undecided: int = 0  # the judge gave no usable label (or failed); in neither share
    factual_rate: float = 0.0  # factual / (factual + not_factual)
    ci_low: float = 0.0
    ci_high: float = 0.0
    categories: dict[str, int] = field(default_factory=dict)  # FreshTab error category -> insights
    decided_by: dict[str, int] = field(default_factory=dict)  # claim (executed) / llm -> decided insights
    diversity: dict[str, float] = field(default_factory=dict)  # over the model's insight responses

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Leaderboard:
    """What `leaderboard` computes for some runs: the QA aggregate and each run's insight stats."""

    agg: Aggregate
    insights: dict[str, list[InsightStats]]  # run id -> one per model with insight answers

    def rows(self, run_id: str) -> list[Row]:
        """The live rows of one run: "all" and "key=value" per stratum (QA only), then the insight row."""
        agg, out = self.agg, []
        if run_id in agg.facts.run_ids:
            r = agg.facts.run_ids.index(run_id)
            model = agg.facts.models[r]
            entries = [("all", agg.overall[r])]
            entries += [(f"{key}={value}", e) for key, values in agg.strata[r].items() for value, e in values.items()]
            out = [Row(run_id, model, name, e["n"], e["correct"], e["n"] and e["correct"] / e["n"], e["ci_low"],
                       e["ci_high"]) for name, e in sorted(entries)]
            # the exact interval for the store (the files round to 4 places)
            out = [Row(x.run_id, x.model, x.slice, x.n, x.correct, x.accuracy, *wilson_interval(x.correct, x.n))
                   for x in out]
        for st in self.insights.get(run_id, []):
            n = st.factual + st.not_factual
            if n:
                out.append(Row(run_id, st.model, INSIGHT_SLICE, n, st.factual, st.factual_rate, st.ci_low,
                               st.ci_high))
        return out


def leaderboard(store: Any, run_ids: list[str], *, judge: str, split_date: str = "",
                with_diversity: bool = True) -> Leaderboard:
    """The leaderboard of these runs from the verdicts of `judge` (see `livetab.ids.judge_name`): one judge's
    verdicts only, so an answer judged again by another judge is never counted twice. `with_diversity=False`
    leaves the insight responses' diversity out (self-BLEU is quadratic in the responses; the live rows do
    not show it)."""
    facts = read_facts(store, run_ids, judge=judge)
    by_run: dict[str, list[InsightFact]] = defaultdict(list)
    for f in facts.insights:
        by_run[f.run].append(f)
    return Leaderboard(aggregate(facts, split_date=split_date),
                       {run: insight_stats(mine, with_diversity=with_diversity) for run, mine in by_run.items()})


def insight_stats(facts: list[InsightFact], *, with_diversity: bool = True) -> list[InsightStats]:
    """Per model: insight factuality under the judge, error categories, and diversity of the responses."""
    by_model: dict[str, list[InsightFact]] = defaultdict(list)
    for f in facts:
        by_model[f.model].append(f)
    out = []
    for model, mine in sorted(by_model.items()):
        st = InsightStats(model=model, answers=len(mine))
        cats = dict.fromkeys(ERROR_CATEGORIES, 0)
        decided: dict[str, int] = defaultdict(int)
        for f in mine:
            if f.verdict == NOT_JUDGED:
                st.not_judged += 1
                continue
            if f.verdict == ERROR:
                st.errors += 1
                continue
            st.judged += 1
            st.all_factual += f.verdict == CORRECT
            for lab in f.labels:
                st.insights += 1
                if lab.label == FACTUAL:
                    st.factual += 1
                elif lab.label == NOT_FACTUAL:
                    st.not_factual += 1
                    cats[lab.category] = cats.get(lab.category, 0) + 1
                else:
                    st.undecided += 1
                if lab.label != UNDECIDED:
                    decided[lab.decided_by] += 1
        n = st.factual + st.not_factual
        st.factual_rate = st.factual / n if n else 0.0
        st.ci_low, st.ci_high = wilson_interval(st.factual, n)
        st.categories, st.decided_by = cats, dict(sorted(decided.items()))
        if with_diversity:
            st.diversity = diversity([f.response for f in mine if f.verdict != ERROR]).as_dict()
        out.append(st)
    return out


def compute_rows(store: Any, run_id: str, *, judge: str) -> list[Row]:
    """Leaderboard rows of one run from the verdicts of `judge`: QA rows ("all" and per stratum, insight
    answers excluded) and, per model with judged insights, one `INSIGHT_SLICE` row whose n is the insights
    judged factual or not and `correct` those judged factual."""
    return leaderboard(store, [run_id], judge=judge, with_diversity=False).rows(run_id)


def run_stats(store: Any, run_id: str, *, judge: str) -> RunStats:
    lb = leaderboard(store, [run_id], judge=judge)
    agg = lb.agg
    if run_id not in agg.facts.run_ids:
        return RunStats(rows=lb.rows(run_id), insights=lb.insights.get(run_id, []))
    r = agg.facts.run_ids.index(run_id)
    o = agg.overall[r]
    tokens = {fmt: e["mean_prompt_tokens"] for fmt, e in agg.strata[r].get("format", {}).items()
              if e["mean_prompt_tokens"] is not None}
    return RunStats(rows=lb.rows(run_id), pass_at_1=o["pass_at_1"], cons_at_k=o["cons_at_k"],
                    k=o["samples_per_question"], errors=o["errors"], prompt_tokens=tokens,
                    insights=lb.insights.get(run_id, []))
