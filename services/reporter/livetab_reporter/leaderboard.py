"""Leaderboard rows from stored judgments: accuracy with a Wilson 95% interval, overall and per slice
(task family, reasoning skill, evidence scope, table format, setting, table size), plus TeleTables'
pass@1 and cons@k over the N samples of each question, and mean prompt tokens per format.

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
from livetab.metrics import cons_at_k, pass_at_1, wilson_interval
from livetab.store import schema
from livetab.v1 import inference_pb2, judgment_pb2, question_pb2
from livetab.verdicts import (
    CORRECT,
    ERROR,
    ERROR_CATEGORIES,
    FACTUAL,
    NOT_FACTUAL,
    NOT_JUDGED,
    UNDECIDED,
    is_insight_family,
)

__all__ = ["INSIGHT_SLICE", "InsightStats", "Row", "RunStats", "compute_rows", "insight_stats", "run_stats"]

INSIGHT_SLICE = "insight"  # the live leaderboard's row for insights judged factual; never part of "all"

SLICE_KEYS = ("family", "skill", "scope", "format", "setting", "difficulty", "language")


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


def _facts(store: Any, run_id: str, judge: str) -> list[dict[str, Any]]:
    """One record per judgment by `judge` with the labels of its question and the format/setting of its request.
    Only one judge's verdicts count: an answer judged again by another judge is never counted twice.

    Three reads whatever the run's size: its results, its judgments, and its questions by id
    (`get_many`, one query per 500 distinct questions)."""
    results = {r["id"]: inference_pb2.InferenceResult.FromString(r["payload"])
               for r in store.select(schema.results, run_id=run_id)}
    judgments = store.select(schema.judgments, run_id=run_id, judge=judge)
    rows = store.get_many(schema.questions, (j["question_id"] for j in judgments))
    questions = {qid: question_pb2.Question.FromString(row["payload"]) for qid, row in rows.items()}
    out = []
    for j in judgments:
        qid = j["question_id"]
        q = questions.get(qid)
        res = results.get(j["request_id"])
        jm = judgment_pb2.Judgment.FromString(j["payload"])
        out.append({
            "model": j["model"], "verdict": j["verdict"], "correct": j["verdict"] == CORRECT,
            "error": j["verdict"] == ERROR, "labels": list(jm.insights), "response": res.response if res else "",
            "question": qid, "sample": jm.sample_index, "answer": jm.extracted_answer,
            "family": j["family"] or "unknown", "skill": (q.skill if q else "") or "unknown",
            "scope": (q.scope if q else "") or "unknown", "difficulty": (q.difficulty if q else "") or "unknown",
            "language": (q.language if q else "") or "unknown",
            "format": res.format if res else "unknown", "setting": res.setting if res else "unknown",
            "prompt_tokens": res.prompt_tokens if res else 0,
        })
    return out


def _rows(run_id: str, facts: list[dict[str, Any]]) -> list[Row]:
    tallies: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for f in facts:
        for key in ("all", *(f"{k}={f[k]}" for k in SLICE_KEYS)):
            t = tallies[(f["model"], key)]
            t[0] += 1
            t[1] += 1 if f["correct"] else 0
    rows = []
    for (model, key), (n, correct) in sorted(tallies.items()):
        lo, hi = wilson_interval(correct, n)
        rows.append(Row(run_id, model, key, n, correct, correct / n if n else 0.0, lo, hi))
    return rows


def _split(facts: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(question-answering facts, insight facts)."""
    qa = [f for f in facts if not is_insight_family(f["family"])]
    return qa, [f for f in facts if is_insight_family(f["family"])]


def insight_stats(facts: list[dict[str, Any]]) -> list[InsightStats]:
    """Per model: insight factuality under the judge, error categories, and diversity of the responses."""
    by_model: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for f in facts:
        by_model[f["model"]].append(f)
    out = []
    for model, mine in sorted(by_model.items()):
        st = InsightStats(model=model, answers=len(mine))
        cats = dict.fromkeys(ERROR_CATEGORIES, 0)
        decided: dict[str, int] = defaultdict(int)
        for f in mine:
            if f["verdict"] == NOT_JUDGED:
                st.not_judged += 1
                continue
            if f["verdict"] == ERROR:
                st.errors += 1
                continue
            st.judged += 1
            st.all_factual += f["verdict"] == CORRECT
            for lab in f["labels"]:
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
        st.diversity = diversity([f["response"] for f in mine if f["verdict"] != ERROR]).as_dict()
        out.append(st)
    return out


def compute_rows(store: Any, run_id: str, *, judge: str) -> list[Row]:
    """Leaderboard rows of one run from the verdicts of `judge` (see `livetab.ids.judge_name`): QA rows
    ("all" and per slice, insight answers excluded) and, per model with judged insights, one `INSIGHT_SLICE`
    row whose n is the insights judged factual or not and `correct` those judged factual."""
    qa, ins = _split(_facts(store, run_id, judge))
    rows = _rows(run_id, qa)
    for st in insight_stats(ins):
        n = st.factual + st.not_factual
        if n:
            rows.append(Row(run_id, st.model, INSIGHT_SLICE, n, st.factual, st.factual_rate, st.ci_low, st.ci_high))
    return rows


def run_stats(store: Any, run_id: str, *, judge: str) -> RunStats:
    facts, insight_facts = _split(_facts(store, run_id, judge))
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    tokens: dict[str, list[int]] = defaultdict(list)
    for f in facts:
        groups[(f["question"], f["format"], f["setting"])].append(f)
        if f["prompt_tokens"]:
            tokens[f["format"]].append(f["prompt_tokens"])
    samples = [sorted(g, key=lambda f: f["sample"]) for g in groups.values()]
    verdicts = [[f["correct"] for f in g] for g in samples]
    answers = [[f["answer"] or f"<none:{f['sample']}>" for f in g] for g in samples]
    return RunStats(rows=_rows(run_id, facts), pass_at_1=pass_at_1(verdicts), cons_at_k=cons_at_k(answers, verdicts),
                    k=max((len(g) for g in samples), default=1), errors=sum(f["error"] for f in facts),
                    prompt_tokens={k: sum(v) / len(v) for k, v in sorted(tokens.items())},
                    insights=insight_stats(insight_facts))
