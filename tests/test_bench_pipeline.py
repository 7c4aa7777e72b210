"""The pipeline bench's own arithmetic and the capacity script over a bench result (no broker: seconds)."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

from bench.pipeline import (
    POLL_S,
    SINGLE_POLL_S,
    bus_ceiling,
    cost_ceiling,
    next_poll_s,
    percentile,
    proc_memory_mb,
    tree_cpu_s,
)

_spec = importlib.util.spec_from_file_location("capacity", Path(__file__).resolve().parents[1] / "deploy" / "capacity.py")
assert _spec is not None and _spec.loader is not None
capacity = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(capacity)


def test_percentile_is_nearest_rank() -> None:
    xs = [float(x) for x in range(1, 101)]
    assert percentile(xs, 50) == 50.0
    assert percentile(xs, 95) == 95.0
    assert percentile([3.0], 95) == 3.0


def test_a_round_is_polled_more_often_as_it_nears_its_end() -> None:
    # nothing judged yet, or no status: the round's poll
    assert next_poll_s(POLL_S, 0.2, {}) == POLL_S
    assert next_poll_s(POLL_S, 0.2, {"planned": 2000, "judged": 0}) == POLL_S
    # 200 of 2,000 judged in 0.4 s: 3.6 s left, a tenth of it is more than the round's poll
    assert next_poll_s(POLL_S, 0.4, {"planned": 2000, "judged": 200}) == POLL_S
    assert next_poll_s(POLL_S, 0.4, {"planned": 2000, "judged": 400}) == pytest.approx(0.16)
    # 1,800 judged in 0.6 s: ~0.067 s left, polled at a tenth of that but never faster than a single run's poll
    assert next_poll_s(POLL_S, 0.6, {"planned": 2000, "judged": 1800}) == SINGLE_POLL_S
    assert next_poll_s(POLL_S, 1.0, {"planned": 2000, "judged": 1000}) == pytest.approx(0.1)
    # every request judged, failed or dead-lettered: only the leaderboard's recompute is left
    assert next_poll_s(POLL_S, 0.7, {"planned": 2000, "judged": 1990, "failed": 6, "dead_lettered": 4}) == SINGLE_POLL_S


def test_peak_memory_comes_from_proc_and_is_at_least_the_current() -> None:
    m = proc_memory_mb(os.getpid())
    assert m["VmHWM"] >= m["VmRSS"] > 1
    assert proc_memory_mb(2**22 + 12345) == {}  # no such process


def test_a_process_trees_cpu_counts_its_children_alive_and_exited() -> None:
    """PostgreSQL's work is done in its backends: the tree's CPU holds a busy child's, and keeps it once reaped."""
    import subprocess
    import sys

    burn = [sys.executable, "-c", "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass\n"
                                   "print('done', flush=True)\ntime.sleep(30)"]
    before = tree_cpu_s(os.getpid())
    child = subprocess.Popen(burn, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "done"
        alive = tree_cpu_s(os.getpid())
        assert alive - before >= 0.25
    finally:
        child.kill()
        child.wait()
    assert tree_cpu_s(os.getpid()) >= alive - 0.02  # reaped: in this process's cutime now
    assert tree_cpu_s(2**22 + 12345) == 0.0


def test_the_bus_only_ceiling_is_the_cores_over_the_records_an_answer_takes() -> None:
    """Two cores, three records an answer, a raw message costing 0.1 ms of CPU: at most 2 / 0.3 ms = 6,667
    answers/s, over a raw rate of 10,000 msg/s a ratio ceiling of 0.667."""
    rounds = [{"records_per_judged": 3.0}, {"records_per_judged": 3.0}]
    raw_cpu = [{"cpu_s": 1.2, "other_cpu_s": 0.8, "seconds": 2.0, "n": 20_000}] * 2
    out = bus_ceiling(rounds, [10_000.0, 10_000.0], raw_cpu, cores=2)
    assert out["raw_cpu_ms_per_msg_rounds"] == [0.1, 0.1] and out["raw_cores_used_rounds"] == [1.0, 1.0]
    assert out["answers_per_s_ceiling_bus_only"] == pytest.approx(6666.7)
    assert out["ratio_ceiling_bus_only"] == pytest.approx(0.6667)
    # without the broker's CPU (a broker the bench did not start) there is no ceiling to give
    assert "ratio_ceiling_bus_only" not in bus_ceiling(rounds, [10_000.0], [{"cpu_s": 1.0, "seconds": 1.0, "n": 1}])


def test_the_cost_ceiling_is_the_cores_over_everything_an_answer_was_measured_to_cost() -> None:
    """Services 0.6 ms + model server 0.1 + broker 0.2 + PostgreSQL 0.1 = 1.0 ms an answer: two cores carry at most
    2,000 answers/s; over raw 10,000 msg/s a ceiling of 0.2, a round at 1,500 answers/s ran at 75 % of it, and a
    ratio of 0.5 would allow 2 / 5,000 = 0.4 ms an answer."""
    rounds = [{"cpu_ms_per_judged": {"inference": 0.3, "judge": 0.2, "reporter": 0.1}, "judged_per_s": 1500.0,
               "model_server_cpu_ms_per_judged": 0.1, "infra_cpu_ms_per_judged": {"broker": 0.2, "postgres": 0.1}},
              {"cpu_ms_per_judged": {"inference": 0.6, "judge": 0.4, "reporter": 0.2}, "judged_per_s": 500.0,
               "model_server_cpu_ms_per_judged": 0.2, "infra_cpu_ms_per_judged": {"broker": 0.4, "postgres": 0.2}}]
    out = cost_ceiling(rounds, [10_000.0, 5_000.0], 0.5, cores=2)
    assert out["cpu_ms_per_judged_all_rounds"] == [1.0, 2.0]
    assert out["ratio_ceiling_measured_costs_rounds"] == [0.2, 0.2]
    assert out["share_of_cost_ceiling_rounds"] == [0.75, 0.5]
    assert out["cpu_ms_per_judged_for_goal_rounds"] == [0.4, 0.8]
    assert out["ratio_ceiling_measured_costs"] == pytest.approx(0.2)
    # a broker and database the bench did not start: their CPU is not in the sum, the ceiling is higher
    bare = [{"cpu_ms_per_judged": {"inference": 0.5}, "judged_per_s": 100.0}]
    assert cost_ceiling(bare, [1_000.0], 0.5, cores=1)["ratio_ceiling_measured_costs"] == pytest.approx(2.0)
    assert cost_ceiling([], [], 0.5) == {}


def _doc(cpu_ms: dict[str, float]) -> dict[str, object]:
    return {"figures": {"cpu_ms_per_judged_median": cpu_ms, "judged_per_s_median": 400.0}}


def test_capacity_sizes_each_stage_from_its_measured_cost(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _doc({"api": 0.5, "inference": 1.0, "judge": 2.0, "reporter": 4.0, "scraper": 0.0, "qagen": 0.0})
    out = capacity.capacity(doc, teams=100, models=3, questions=10_000, samples=16, window_days=1,
                            cores_per_pod=1, utilisation=0.5, partition_headroom=2, gpu_req_per_s=10)
    assert out["requests"] == 48_000_000
    rate = 48_000_000 / 86400  # 555.6 answers/s
    assert out["required_answers_per_s"] == pytest.approx(rate, abs=0.01)
    assert out["stages"]["reporter"]["answers_per_s_per_pod"] == 125.0  # 1000/4 ms x 0.5
    assert out["stages"]["reporter"]["pods"] == 5 and out["stages"]["judge"]["pods"] == 3
    assert out["partitions"]["livetab.judgments.v1"] == 10
    assert out["gpus"] == 56 and out["first_bottleneck"] == "gpu (per GPU)"
    fast_gpu = capacity.capacity(doc, teams=100, models=3, questions=10_000, samples=16, window_days=1,
                                 cores_per_pod=1, utilisation=0.5, partition_headroom=2, gpu_req_per_s=1000)
    assert fast_gpu["first_bottleneck"] == "reporter"
    path = tmp_path / "pipeline.json"
    path.write_text(json.dumps(doc))
    assert capacity.main(["--bench", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["requests"] == 48_000_000
