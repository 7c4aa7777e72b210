"""The store's large upserts on PostgreSQL: `Store.upsert_all` as the services call it with a batch of their rows
(the inference service: a poll's results and their cache rows; the judge: a batch's judgments), through binary
COPY into a staging table and one INSERT ... ON CONFLICT (`Store._copy_upsert`, what the product runs), against
the same call with COPY turned off (`COPY_MIN_ROWS` above the batch: the driver's `executemany` of one statement
a row, what the store did before), side by side, the order alternated round by round, on a fresh PostgreSQL
started by deploy/postgres.sh.

Measured per batch size: wall time of the call, this process's CPU (the client's) and PostgreSQL's (its server
processes', `tree_cpu_s`, over the call), medians over the rounds. `ratio`: the executemany call's wall time over
the COPY call's at the inference service's batch (2,000 results + 125 cache rows); goal > 1.

    python -m bench store          # or: python -m bench.store [--rounds 15]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from livetab.store import open_store, schema
from livetab.store import store as store_module

from bench.common import write_result
from bench.pipeline import deploy_up, pid_file, tree_cpu_s

__all__ = ["main"]

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = 16  # a question's samples share one cache row


def _results(n: int) -> list[dict[str, Any]]:
    run = uuid.uuid4().hex
    return [{"id": hashlib.sha256(f"{run}/{i}".encode()).hexdigest(), "run_id": run,
             "question_id": hashlib.sha256(str(i // SAMPLES).encode()).hexdigest(), "model": "bench-model",
             "sample_index": i % SAMPLES, "error": "", "payload": os.urandom(300)} for i in range(n)]


def _cache_rows(n: int) -> list[dict[str, Any]]:
    return [{"key": uuid.uuid4().hex, "model": "bench-model", "payload": os.urandom(600)} for _ in range(n)]


def _judgments(n: int) -> list[dict[str, Any]]:
    run = uuid.uuid4().hex
    return [{"id": hashlib.sha256(f"{run}/j{i}".encode()).hexdigest(), "request_id": f"{run}/{i}", "run_id": run,
             "question_id": hashlib.sha256(str(i // SAMPLES).encode()).hexdigest(), "model": "bench-model",
             "judge": "rubric", "family": "lookup", "verdict": "correct" if i % 3 else "incorrect",
             "score": float(i % 3 > 0), "payload": os.urandom(200)} for i in range(n)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench store", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15, help="rounds of every contender at every size (2 more warm up)")
    args = parser.parse_args(argv)
    state = Path(tempfile.mkdtemp(prefix="livetab-bench-store-"))
    url = deploy_up("postgres.sh", state)
    postmaster = pid_file(state / "data" / "postmaster.pid")
    assert postmaster is not None, f"no postmaster.pid under {state}"
    copy_min = store_module.COPY_MIN_ROWS
    try:
        store = open_store(url)
        batches: dict[str, Callable[[], list[tuple[Any, list[dict[str, Any]]]]]] = {  # what a service writes at once
            "inference_2000": lambda: [(schema.response_cache, _cache_rows(2000 // SAMPLES)),
                                       (schema.results, _results(2000))],
            "judge_2000": lambda: [(schema.judgments, _judgments(2000))],
            "inference_200": lambda: [(schema.response_cache, _cache_rows(200 // SAMPLES)),
                                      (schema.results, _results(200))],
        }
        contenders = {"copy": copy_min, "executemany": 10**9}
        got: dict[str, dict[str, list[tuple[float, float, float]]]] = {b: {c: [] for c in contenders} for b in batches}
        for r in range(args.rounds + 2):
            for batch, make in batches.items():
                order = list(contenders.items()) if r % 2 == 0 else list(contenders.items())[::-1]
                for name, threshold in order:
                    writes = make()
                    store_module.COPY_MIN_ROWS = threshold
                    s0, t0, c0 = tree_cpu_s(postmaster), time.perf_counter(), time.process_time()
                    store.upsert_all(writes)
                    wall, client = time.perf_counter() - t0, time.process_time() - c0
                    server = tree_cpu_s(postmaster) - s0
                    if r >= 2:
                        got[batch][name].append((wall, client, server))
        store.close()
    finally:
        store_module.COPY_MIN_ROWS = copy_min
        subprocess.run([str(ROOT / "deploy" / "postgres.sh"), "down", str(state)], check=False, capture_output=True)

    def median_ms(xs: list[tuple[float, float, float]], i: int) -> float:
        return round(1000 * statistics.median(x[i] for x in xs), 2)

    figures: dict[str, Any] = {"rounds": args.rounds, "copy_min_rows": copy_min}
    for batch, by in got.items():
        figures[batch] = {name: {"wall_ms": median_ms(xs, 0), "client_cpu_ms": median_ms(xs, 1),
                                 "server_cpu_ms": median_ms(xs, 2)} for name, xs in by.items()}
    figures["note"] = ("server CPU is read from /proc in 10-ms ticks: a median over the rounds, coarse at the small "
                       "batch")
    ratio = figures["inference_2000"]["executemany"]["wall_ms"] / max(1e-9, figures["inference_2000"]["copy"]["wall_ms"])
    write_result("store", ratio, "> 1", "Store.upsert_all of the same rows with COPY turned off (COPY_MIN_ROWS "
                 "above the batch: the driver's executemany, one statement a row), rounds alternated", figures)


if __name__ == "__main__":
    main()
