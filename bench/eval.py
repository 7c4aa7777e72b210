"""`livetab eval` over 2,000 questions against the fixed-latency (100 ms) OpenAI-compatible fake server at
concurrency 64: wall time as a ratio to the ideal (questions x 100 ms / 64), goal >= 0.85.

The timed part is the whole evaluation as `livetab.evaluate` (what `livetab eval` calls) does it: the probe,
the release made present and published, the run planned, every request answered, judged and reported, the
leaderboard files and the samples files written. The questions (one WikiTableQuestions table, as the
inference_service benchmark seeds them) are stored beforehand, so question generation is not timed; the
server runs in its own process (tests/fakes/fault_server.py).

The machine this runs on may be busy: beside the ratio to the ideal it reports the process CPU time per
question (independent of other load) and, right after the evaluation, the wall time of a plain asyncio +
aiohttp loop asking the same number of requests of the same server at the same concurrency (no store, no
prompts, no judging, no files): `vs_plain_aiohttp` = that wall time / the evaluation's, the share of what this
machine allowed at that moment.

`ratio` is the first evaluation of the process: it imports what `livetab.evaluate` needs and the bench has not
imported by then (the HTTP client, aiohttp: ~0.1 s, two SSL contexts built from the CA bundle at import), as a
`livetab eval` command does. `warm_ratio` is a second evaluation in the same process, after the plain client's
loop, of the same questions on a new store (nothing stored, nothing cached): what a notebook's next
`livetab.evaluate` call takes, with the modules imported and the questions parsed by the first.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import peak_rss_mb, write_result
from bench.inference import _contender_aiohttp, _start_server
from bench.inference_service import seed_release

RELEASE = "bench-eval"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    args = parser.parse_args(sys.argv[1:] if argv is None and __name__ == "__main__" else (argv or []))

    import livetab
    from livetab.store import open_store

    work = Path(tempfile.mkdtemp(prefix="livetab-bench-eval-"))
    server, url = _start_server(args.latency_ms)

    def evaluation(name: str) -> tuple[Any, float, float, float]:
        """The questions seeded into a new store `work/NAME.db`, then one timed evaluation of them into `work/NAME`:
        its results, wall time, this process's CPU time and the load average when it began."""
        store_url = f"sqlite:///{work / (name + '.db')}"
        store = open_store(store_url)
        seed_release(store, RELEASE, args.questions)
        store.close()
        load = os.getloadavg()[0]
        t0, cpu0 = time.perf_counter(), time.process_time()
        res = livetab.evaluate("openai:" + url, release=RELEASE, concurrency=args.concurrency, store=store_url,
                               output=work / name, model_args={"timeout_s": 60})
        return res, time.perf_counter() - t0, time.process_time() - cpu0, load

    try:
        res, wall, cpu, load0 = evaluation("livetab")
        row: dict[str, Any] = res.leaderboard["models"][0]
        load1 = os.getloadavg()[0]
        plain = asyncio.run(_contender_aiohttp(url, args.questions, args.concurrency, 120.0))
        warm, warm_wall, _, _ = evaluation("warm")
    finally:
        server.terminate()
        server.wait(timeout=30)
    ideal = args.questions * args.latency_ms / 1000.0 / args.concurrency
    figures = {
        "questions": args.questions, "answered": row["n"], "errors": row["errors"],
        "samples_rows": len(res.sample_rows), "concurrency": args.concurrency, "latency_ms": args.latency_ms,
        "wall_s": round(wall, 3), "ideal_s": round(ideal, 3), "process_cpu_s": round(cpu, 3),
        "process_cpu_ms_per_question": round(1000 * cpu / args.questions, 3),
        "plain_aiohttp_wall_s": round(plain["seconds"], 3), "plain_aiohttp_ok": plain["ok"],
        "vs_plain_aiohttp": round(plain["seconds"] / wall, 4) if wall else 0.0,
        "warm_wall_s": round(warm_wall, 3), "warm_ratio": round(ideal / warm_wall, 4) if warm_wall else 0.0,
        "warm_answered": warm.leaderboard["models"][0]["n"], "warm_samples_rows": len(warm.sample_rows),
        "warm_cached": sum(1 for r in warm.sample_rows if r["cached"]),
        "load_avg_1min_at_start": round(load0, 2), "load_avg_1min_at_end": round(load1, 2), "cpus": os.cpu_count(),
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "server": f"tests/fakes/fault_server.py, fixed latency {args.latency_ms:g} ms, separate process",
        "timed": "livetab.evaluate: probe, release published, run planned, answered, judged, reported, files written",
        "warm": "a second livetab.evaluate in the same process, same questions, new store (nothing cached)",
    }
    shutil.rmtree(work, ignore_errors=True)
    write_result("eval", ideal / wall if wall else 0.0, 0.85, "ideal: questions x latency / concurrency", figures)


if __name__ == "__main__":
    main()
