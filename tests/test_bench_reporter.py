"""`python -m bench reporter` on a small input: it runs the product's join and aggregation over store-shaped rows,
and what it reports agrees with counting the rows' verdicts directly."""

from __future__ import annotations

from collections import Counter

import pytest

from bench import reporter


def test_reporter_bench_counts_what_the_rows_say() -> None:
    rows = reporter.build_rows(2_000)
    assert len(rows["judgments"]) == len(rows["results"]) == 2_000
    right, total = Counter[str](), Counter[str]()
    for j in rows["judgments"]:
        total[j["model"]] += 1
        right[j["model"]] += j["verdict"] == "correct"
    ratio, figures = reporter.run(2_000)  # the same seed: the same rows
    assert ratio > 0 and figures["judgments"] == 2_000 and figures["runs"] == reporter.RUNS
    assert figures["overall_accuracy"] == {m: pytest.approx(right[m] / total[m], abs=1e-4) for m in total}
    assert figures["strata_entries"] > figures["runs"] * len(reporter.STRATA)  # every key has a stratum per run
    assert figures["pandas_groups"] > 0 and figures["total_cpu_s"] > 0
