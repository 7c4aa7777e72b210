"""Capacity for a monthly workload, computed from the measured per-stage costs in out/bench/pipeline.json.

    python deploy/capacity.py [--bench out/bench/pipeline.json] [--teams 100 --models 3 --questions 10000
                               --samples 16 --window-days 7]

Inputs and assumptions (each a flag, printed with the result):
- requests = teams x models x questions x samples, all of them answered within `window_days` (the month's
  runs are not spread evenly: a release is live for a while and teams run on it then); the required rate is
  requests / window;
- per-stage CPU cost: each service's CPU milliseconds per judged answer, measured by `python -m bench pipeline`
  (cpu_ms_per_judged_median: the service process's user+system CPU over a round / the round's judged answers);
- a pod is `--cores-per-pod` cores run at most at `--utilisation`;
- a partition is consumed by one member of a group, so a topic needs at least as many partitions as the pods
  that consume it, times `--partition-headroom` (partitions cannot be reduced later);
- GPUs: `--gpu-req-per-s` requests per second per GPU for a 7B-class model. Default 16.1: TensorRT-LLM's
  published H100 FP8 throughput for LLaMA 7B, batch 64, 2,048 input / 128 output tokens, 2,058 output
  tokens/s (NVIDIA/TensorRT-LLM docs/source/performance.md, release 0.5.0) / 128 output tokens per request.
  A livetab request is shorter (`--prompt-tokens` 1,500: a table capped at 6,000 characters at ~4 characters a
  token; `--output-tokens` 32, the default max_tokens), and a question's 16 samples are one call that reads the
  table once (`livetab.runs.sample_call`), so the figure is conservative.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

__all__ = ["capacity", "main"]

# which topic each service consumes for the answer path (the request topic is per pool; 6 partitions today)
CONSUMES = {"inference": "livetab.inference.requests.v1", "judge": "livetab.inference.results.v1",
            "reporter": "livetab.judgments.v1"}


def capacity(bench: dict[str, Any], *, teams: int, models: int, questions: int, samples: int, window_days: float,
             cores_per_pod: float, utilisation: float, partition_headroom: float, gpu_req_per_s: float) -> dict[str, Any]:
    figures = bench["figures"]
    cpu_ms: dict[str, float] = figures["cpu_ms_per_judged_median"]
    requests = teams * models * questions * samples
    rate = requests / (window_days * 86400)
    stages = {}
    for svc, ms in sorted(cpu_ms.items()):
        per_pod = (1000.0 / ms) * cores_per_pod * utilisation if ms > 0 else math.inf
        pods = max(1, math.ceil(rate / per_pod))
        stages[svc] = {"cpu_ms_per_answer": ms, "answers_per_s_per_pod": round(per_pod, 1), "pods": pods}
    partitions = {topic: max(1, math.ceil(stages[svc]["pods"] * partition_headroom))
                  for svc, topic in CONSUMES.items() if svc in stages}
    gpus = math.ceil(rate / gpu_req_per_s)
    # the first bottleneck: the stage whose one pod (or one GPU) covers the smallest rate
    limits = {svc: s["answers_per_s_per_pod"] for svc, s in stages.items() if svc in CONSUMES or svc == "api"}
    limits["gpu (per GPU)"] = gpu_req_per_s
    first = min(limits, key=lambda k: limits[k])
    return {"requests": requests, "required_answers_per_s": round(rate, 2), "stages": stages,
            "partitions": partitions, "gpus": gpus, "gpu_hours": round(requests / gpu_req_per_s / 3600, 1),
            "first_bottleneck": first, "per_unit_limits": {k: round(v, 1) for k, v in limits.items()},
            "measured_single_replica_answers_per_s": figures.get("judged_per_s_median")}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bench", default="out/bench/pipeline.json")
    p.add_argument("--teams", type=int, default=100)
    p.add_argument("--models", type=int, default=3)
    p.add_argument("--questions", type=int, default=10_000)
    p.add_argument("--samples", type=int, default=16)
    p.add_argument("--window-days", type=float, default=7.0)
    p.add_argument("--cores-per-pod", type=float, default=1.0)
    p.add_argument("--utilisation", type=float, default=0.6)
    p.add_argument("--partition-headroom", type=float, default=2.0)
    p.add_argument("--gpu-req-per-s", type=float, default=2058 / 128)
    a = p.parse_args(argv)
    bench = json.loads(Path(a.bench).read_text())
    out = capacity(bench, teams=a.teams, models=a.models, questions=a.questions, samples=a.samples,
                   window_days=a.window_days, cores_per_pod=a.cores_per_pod, utilisation=a.utilisation,
                   partition_headroom=a.partition_headroom, gpu_req_per_s=a.gpu_req_per_s)
    out["assumptions"] = {k: v for k, v in vars(a).items()}
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
