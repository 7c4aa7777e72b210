"""Leaderboard rows from stored judgments: accuracy with a Wilson 95% interval, overall and per slice
(task family, reasoning skill, evidence scope, table format, setting, table size), plus TeleTables'
pass@1 and cons@k over the N samples of each question, and mean prompt tokens per format."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any

from livetab.metrics import cons_at_k, pass_at_1, wilson_interval
from livetab.store import schema
from livetab.v1 import inference_pb2, judgment_pb2, question_pb2

__all__ = ["Row", "RunStats", "compute_rows", "run_stats"]

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
            "model": j["model"], "correct": j["verdict"] == "correct", "error": j["verdict"] == "error",
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


def compute_rows(store: Any, run_id: str, *, judge: str) -> list[Row]:
    """Leaderboard rows of one run from the verdicts of `judge` (see `livetab.ids.judge_name`)."""
    return _rows(run_id, _facts(store, run_id, judge))


def run_stats(store: Any, run_id: str, *, judge: str) -> RunStats:
    facts = _facts(store, run_id, judge)
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
                    prompt_tokens={k: sum(v) / len(v) for k, v in sorted(tokens.items())})
