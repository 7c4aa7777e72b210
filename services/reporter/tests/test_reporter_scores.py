"""Leaderboard values on small runs whose verdicts the test chooses: accuracy and the Wilson interval
overall and per slice, pass@1 and cons@k over N samples, mean prompt tokens per format, and the
number of store queries a recompute costs."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from pathlib import Path
from statistics import NormalDist
from typing import Any

import pytest
from livetab.store import open_store, schema
from livetab.v1 import inference_pb2
from livetab_reporter.handler import ReporterHandler
from livetab_reporter.leaderboard import run_stats
from reporter_data import TABLES, Answer, add_questions, answer_and_judge, context, plan_run

from tests.support.queries import statements

Z95 = NormalDist().inv_cdf(0.975)


def wilson_roots(correct: int, n: int) -> tuple[float, float]:
    """The Wilson bounds as the two roots in p of (phat - p)^2 = z^2 p (1 - p) / n."""
    phat, k = correct / n, Z95 * Z95 / n
    a, b, c = 1 + k, -(2 * phat + k), phat * phat
    disc = math.sqrt(b * b - 4 * a * c)
    return (-b - disc) / (2 * a), (-b + disc) / (2 * a)


def test_wilson_roots_match_a_hand_computed_case() -> None:
    # 0 of n: the lower bound is 0 and the upper one is k / (1 + k) with k = z^2 / n
    lo, hi = wilson_roots(0, 4)
    assert lo == pytest.approx(0.0, abs=1e-12) and hi == pytest.approx((Z95**2 / 4) / (1 + Z95**2 / 4))


def test_accuracy_and_wilson_interval_overall_and_per_slice(store: Any) -> None:
    questions = add_questions(store, 7)
    labels = {q.id: q for q in questions}
    run_id, requests = plan_run(store, formats=["markdown", "csv"], settings=["with_table", "closed_book"])
    assert len(requests) == 7 * 3  # closed-book is asked once per question, whatever the format

    verdicts = ["correct", "incorrect", "correct", "error", "uncertain", "correct", "incorrect"]
    prompt = [0, 100, 300, 700, 5000]  # "unknown" (not recorded), "<256", "256-511", "512-1023", ">=4096"
    prompt_bin = {0: "unknown", 100: "<256", 300: "256-511", 700: "512-1023", 5000: ">=4096"}

    def decide(r: inference_pb2.InferenceRequest) -> Answer:
        i = requests.index(r)
        return Answer(verdicts[(i * 5) % len(verdicts)] if i % 4 else "correct", extracted=f"a{i}",
                      prompt_tokens=prompt[i % len(prompt)])

    judgments = answer_and_judge(store, requests, decide)

    expected: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in requests:
        q = labels[r.question_id]
        table = TABLES[int(q.table_id.removeprefix("tab_")) % len(TABLES)]
        ok = decide(r).verdict == "correct"
        keys = ["all", f"family={q.family}", f"skill={q.skill}", f"scope={q.scope}", f"format={r.format}",
                f"setting={r.setting}", f"difficulty={q.difficulty}", f"language={q.language}",
                f"operation={q.operation or 'unknown'}", f"prompt_tokens={prompt_bin[decide(r).prompt_tokens]}",
                *(f"{k}={v}" for k, v in table.labels.items())]
        for key in keys:
            expected[key][0] += 1
            expected[key][1] += ok

    [out] = ReporterHandler().handle_batch(judgments, context(store))
    update = out.message
    assert update.run_id == run_id and update.judged == update.planned == len(requests)
    got = {row.slice: row for row in update.rows}
    assert set(got) == set(expected)
    assert {k for k in got if k.startswith("setting=")} == {"setting=with_table", "setting=closed_book"}
    for key, (n, correct) in expected.items():
        row = got[key]
        lo, hi = wilson_roots(correct, n)
        assert (row.n, row.correct) == (n, correct), key
        assert row.accuracy == pytest.approx(correct / n), key
        assert row.ci_low == pytest.approx(lo, abs=1e-9) and row.ci_high == pytest.approx(hi, abs=1e-9), key
        assert row.ci_low <= row.accuracy <= row.ci_high

    stored = {r["slice"]: r for r in store.select(schema.leaderboard, run_id=run_id)}
    assert {k: (v["n"], v["correct"]) for k, v in stored.items()} == {k: tuple(v) for k, v in expected.items()}
    # an error (the model call failed) is a wrong answer, and counted apart
    assert run_stats(store, run_id, judge="rule").errors == sum(decide(r).verdict == "error" for r in requests) > 0


def test_pass_at_1_cons_at_k_and_prompt_tokens(store: Any) -> None:
    add_questions(store, 3)
    run_id, requests = plan_run(store, samples=4)
    # per question: the answer each sample gave and whether it was judged correct (no ties in the votes)
    plan = [
        [("a", True), ("a", True), ("b", False), ("a", True)],  # majority a: right
        [("x", True), ("y", False), ("y", False), ("z", False)],  # majority y: wrong
        [("u", False), ("u", False), ("v", True), ("u", False)],  # majority u: wrong
    ]
    qids = sorted({r.question_id for r in requests})

    def decide(r: inference_pb2.InferenceRequest) -> Answer:
        ans, ok = plan[qids.index(r.question_id)][r.sample_index]
        return Answer("correct" if ok else "incorrect", extracted=ans, prompt_tokens=100 + 10 * r.sample_index)

    answer_and_judge(store, requests, decide)
    stats = run_stats(store, run_id, judge="rule")

    pass1 = sum(sum(ok for _, ok in samples) / len(samples) for samples in plan) / len(plan)
    cons = 0
    for samples in plan:
        top, _ = Counter(a for a, _ in samples).most_common(1)[0]
        cons += next(ok for a, ok in samples if a == top)
    assert stats.k == 4 and 0 < cons < len(plan) and pass1 != cons / len(plan)  # the two measures differ here
    assert stats.pass_at_1 == pytest.approx(pass1)
    assert stats.cons_at_k == pytest.approx(cons / len(plan))
    assert stats.prompt_tokens == {"markdown": pytest.approx(sum(100 + 10 * i for i in range(4)) / 4)}
    assert stats.errors == 0


def _costs(tmp_path: Path, n_questions: int) -> tuple[int, int]:
    """(queries of a batch that recomputes, queries of a batch that is throttled) on an unfinished run."""
    store = open_store("sqlite:///" + str(tmp_path / f"{n_questions}.db"))
    add_questions(store, n_questions)
    _, requests = plan_run(store)
    judgments = answer_and_judge(store, requests[:-1], lambda r: Answer("correct"))  # one still to come
    handler, ctx = ReporterHandler(), context(store, refresh_growth=10.0, refresh_s=3600.0)
    with statements(store) as recompute:
        assert len(handler.handle_batch(judgments[:5], ctx)) == 1
    with statements(store) as skip:
        assert handler.handle_batch(judgments[-5:], ctx) == []
    store.close()
    return len(recompute), len(skip)


def test_store_queries_do_not_grow_with_the_number_of_questions(tmp_path: Path) -> None:
    small, large = _costs(tmp_path, 6), _costs(tmp_path, 300)
    assert small == large, f"queries per batch (recompute, throttled): {small} for 6 questions, {large} for 300"
    # a throttled batch: the run rows, and per run its judged count and its dead letters (whether it is complete),
    # whatever the run's size
    assert large[1] == 3
