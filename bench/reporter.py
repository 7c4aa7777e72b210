"""Reporter aggregation: time and peak memory to turn 1,000,000 judgments into the full stratified leaderboard,
beside pandas `groupby` over the same answers in the same process.

The rows are shaped as the store returns them (`Store.select` of results and judgments: dicts with the
columns and the protobuf payload; questions, tables and runs as `Store.get_many` returns them), built once
before timing: 5 runs (models) x 20,000 questions on 2,000 tables x 2 formats x 5 samples. What is timed is
the product's code path after the SQL reads: `facts.facts_from_rows` (the join: payloads parsed, labels
coded) and `stats.aggregate` (every stratum of `stats.STRATA`, pass@1, cons@5, unbiased pass@k, tokens,
latency and the per-run views), then `stats.rank_significance` between adjacent runs.

The baseline is pandas `groupby(["run", key]).agg(...)` (count, sum of correct and errors, mean prompt and
completion tokens and latency) for "all" and every key of `stats.STRATA`, over one DataFrame holding the
same answers already joined and labelled — the counting alone, without the join, the sample groups or
the views. ratio = aggregate CPU time / pandas groupby CPU time (below 1: faster than pandas).

Peak memory is the process's resident high-water mark (VmHWM, reset through /proc/self/clear_refs just
before the timed call), so it includes the input rows held in memory; the increase over the resident set
before the call is reported beside it. Times are CPU seconds of this process (time.process_time; one
thread) and wall-clock seconds beside them; the goal is judged on CPU time because the development
machine is shared (the 1-minute load average is recorded).

    .venv/bin/python -m bench.reporter [--n 1000000]      (or: .venv/bin/python -m bench reporter)
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from livetab.records import judgment_row, question_row, result_row, table_row
from livetab.v1 import common_pb2, inference_pb2, judgment_pb2, question_pb2, run_pb2, table_pb2
from livetab_reporter.facts import facts_from_rows
from livetab_reporter.stats import STRATA, aggregate, rank_significance

from bench.common import write_result

GOAL = "1,000,000 judgments -> full stratified leaderboard in under 10 s and under 2 GB peak resident memory"
BASELINE = ("pandas groupby(['run', key]).agg(count, sums, means) for 'all' and every stratum key over one "
            "DataFrame of the same answers, already joined and labelled, in the same process")

RUNS, FORMATS, SAMPLES = 5, ("markdown", "csv"), 5
FAMILIES = ("direct", "reasoning", "fact", "mcq", "imperfect", "math")
SKILLS = ("lookup", "count", "arithmetic", "compare", "average", "temporal")
SCOPES = ("single_cell", "cross_reference", "full_table")
DOMAINS = ("sport", "politics", "culture", "other")


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _reset_peak() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def build_rows(n: int) -> dict[str, Any]:
    """Judgment and result rows (lists, as Store.select returns them) and questions/tables/runs by id."""
    per_run = n // RUNS
    n_questions = max(per_run // (len(FORMATS) * SAMPLES), 1)
    n_tables = max(n_questions // 10, 1)
    rng = np.random.default_rng(0)
    tables, questions, runs = {}, {}, {}
    for t in range(n_tables):
        rows, cols = 3 + t % 40, 2 + t % 9
        tab = table_pb2.Table(
            id=f"tab{t:06d}", domain=DOMAINS[t % 4], release="bench",
            source=table_pb2.Source(kind=("wikipedia", "html_file", "csv_file")[t % 3],
                                    created_at=f"{2022 + t % 4}-{1 + t % 12:02d}-15"),
            header=[table_pb2.HeaderRow(values=[f"h{c}" for c in range(cols)])] * (1 + t % 2),
            footnotes=["note"] if t % 5 == 0 else [], group_column="Section" if t % 7 == 0 else "",
            profile=table_pb2.StructureProfile(n_rows=rows, n_cols=cols, grouped_rows=t % 7 == 0,
                                               footnotes=t % 5 == 0, multi_level_header=t % 2 == 1))
        tables[tab.id] = table_row(tab)
    for i in range(n_questions):
        t = i % n_tables
        q = question_pb2.Question(
            id=f"q{i:07d}", table_id=f"tab{t:06d}", family=FAMILIES[i % 6], skill=SKILLS[i % 6 - 1],
            scope=SCOPES[i % 3], operation=("aggregation", "comparative", "")[i % 3],
            difficulty=("easy", "medium", "hard")[i % 3], language=("en", "ar")[i % 2], text=f"question {i}",
            gold=question_pb2.Gold(kind="text", text=str(i)), status="verified", release="bench",
            source_created_at=tables[f"tab{t:06d}"]["source_created_at"])
        questions[q.id] = question_row(q)
    skill = rng.random(RUNS) * 0.5 + 0.25  # each model's chance of a right answer
    results, judgments = [], []
    for r in range(RUNS):
        run_id = f"run{r}"
        spec = common_pb2.ModelSpec(name=f"model-{r}", backend="openai", model=f"m{r}",
                                    knowledge_cutoff="2023-12-31" if r % 2 else "")
        run = run_pb2.Run(id=run_id, team="bench", model=spec, release="bench",
                          settings=run_pb2.RunSettings(formats=FORMATS, settings=["with_table"], samples=SAMPLES))
        runs[run_id] = {"id": run_id, "team": "bench", "model": spec.name, "release": "bench",
                        "planned": per_run, "payload": run.SerializeToString()}
        right = rng.random(per_run) < skill[r]
        answers = rng.integers(0, 3, per_run)
        k = 0
        for i in range(n_questions):
            qid = f"q{i:07d}"
            family = FAMILIES[i % 6]
            for fmt in FORMATS:
                for s in range(SAMPLES):
                    rid = f"{run_id}-{i}-{fmt}-{s}"
                    ok = bool(right[k])
                    res = inference_pb2.InferenceResult(
                        id=rid, run_id=run_id, question_id=qid, model=spec.name, format=fmt, setting="with_table",
                        sample_index=s, response=f"answer {answers[k]}", prompt_tokens=200 + 7 * (i % 300),
                        completion_tokens=5 + k % 40, latency_ms=50.0 + k % 500)
                    j = judgment_pb2.Judgment(
                        id=f"j-{rid}", request_id=rid, run_id=run_id, question_id=qid, model=spec.name, judge="rule",
                        verdict="correct" if ok else "incorrect", score=1.0 if ok else 0.0,
                        extracted_answer=str(i) if ok else f"wrong {answers[k]}", sample_index=s)
                    results.append(result_row(res))
                    judgments.append(judgment_row(j, family))
                    k += 1
    return {"judgments": judgments, "results": results, "questions": questions, "tables": tables, "runs": runs}


def pandas_frame(facts: Any) -> pd.DataFrame:
    """The same answers as one joined, labelled DataFrame (the baseline's input; built outside its timing)."""
    cols: dict[str, Any] = {"run": facts.run, "correct": facts.correct, "error": facts.error,
                            "prompt_tokens": facts.prompt_tokens, "completion_tokens": facts.completion_tokens,
                            "latency_ms": facts.latency_ms, "format": facts.fmt, "setting": facts.setting,
                            "prompt_bin": np.searchsorted(np.asarray([0, 256, 512, 1024, 2048, 4096]),
                                                          facts.prompt_tokens, side="right")}
    for key, codes in facts.qlabels.items():
        cols[key] = codes[facts.question]
    return pd.DataFrame(cols)


def pandas_groupby(df: pd.DataFrame) -> int:
    keys = [k if k != "prompt_tokens" else "prompt_bin" for k in STRATA]
    groups = 0
    for key in (None, *keys):
        by = ["run"] if key is None else ["run", key]
        out = df.groupby(by, sort=True).agg(n=("correct", "size"), correct=("correct", "sum"),
                                            errors=("error", "sum"), prompt=("prompt_tokens", "mean"),
                                            completion=("completion_tokens", "mean"), latency=("latency_ms", "mean"))
        groups += len(out)
    return groups


def run(n: int) -> tuple[float, dict[str, Any]]:
    load = os.getloadavg()[0]
    start = time.perf_counter()
    rows = build_rows(n)
    build_s = time.perf_counter() - start
    rss_before_mb = _status_kb("VmRSS") / 1024
    reset = _reset_peak()

    wall, cpu = time.perf_counter(), time.process_time()
    facts = facts_from_rows(rows["judgments"], rows["results"], rows["questions"], rows["tables"], rows["runs"])
    join_s, join_cpu = time.perf_counter() - wall, time.process_time() - cpu
    wall, cpu = time.perf_counter(), time.process_time()
    agg = aggregate(facts)
    order = sorted(range(len(facts.run_ids)), key=lambda r: -agg.overall[r]["accuracy"])
    ranks = rank_significance(facts, order)
    agg_s, agg_cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak_mb = _status_kb("VmHWM") / 1024

    df = pandas_frame(facts)
    wall, cpu = time.perf_counter(), time.process_time()
    groups = pandas_groupby(df)
    pandas_s, pandas_cpu = time.perf_counter() - wall, time.process_time() - cpu

    total_s, total_cpu = join_s + agg_s, join_cpu + agg_cpu
    strata = sum(len(v) for r in agg.strata for v in r.values())
    return agg_cpu / pandas_cpu, {
        "judgments": len(rows["judgments"]), "runs": len(facts.run_ids), "questions": len(facts.question_ids),
        "tables": len(rows["tables"]), "samples_per_question": SAMPLES, "formats": len(FORMATS),
        "strata_keys": len(STRATA), "strata_entries": strata, "pandas_groups": groups,
        "rows_build_s": round(build_s, 2),
        "join_s": round(join_s, 3), "aggregate_s": round(agg_s, 3), "total_s": round(total_s, 3),
        "pandas_groupby_s": round(pandas_s, 3), "join_cpu_s": round(join_cpu, 3),
        "aggregate_cpu_s": round(agg_cpu, 3), "total_cpu_s": round(total_cpu, 3),
        "pandas_groupby_cpu_s": round(pandas_cpu, 3),
        "peak_rss_mb": round(peak_mb, 1) if reset else None,
        "rss_before_mb": round(rss_before_mb, 1), "peak_increase_mb": round(peak_mb - rss_before_mb, 1) if reset else None,
        "goal_met": bool(total_cpu < 10 and reset and peak_mb < 2048),
        "overall_accuracy": {facts.models[r]: round(agg.overall[r]["accuracy"], 4) for r in range(len(facts.run_ids))},
        "adjacent_tied": [x["tied"] for x in ranks],
        "load_average_1min_at_start": round(load, 2), "cpu_count": os.cpu_count(),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="reporter aggregation of N judgments vs pandas groupby")
    parser.add_argument("--n", type=int, default=1_000_000, help="judgments")
    args = parser.parse_args(argv if argv is not None else [])
    ratio, figures = run(args.n)
    write_result("reporter", ratio, GOAL, BASELINE, figures)


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
