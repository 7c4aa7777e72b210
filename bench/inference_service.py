"""The inference service end to end: requests published to a real Kafka broker, `livetab serve inference`
answering them against the fixed-latency (100 ms) fake endpoint at concurrency 64, results consumed back.

Throughput against two baselines measured in the same run:
- the ideal loop: plain asyncio + aiohttp at the same concurrency against the same server, no bus, no store
  (bench/inference.py's `aiohttp` contender) — `ratio`, goal >= 0.90;
- the same service with the old batch-wait behaviour: the plain worker polling 64 requests, answering them
  with one gather and waiting for the slowest before it polls again (`handle_batch`; kept for this bench).

Each service runs in its own process for the whole bench, with its own pool (request topic) and a SQLite
store seeded with one WikiTableQuestions table and the questions; every round is a new run (a new seed), so
no answer comes from the cache. Rounds rotate the contenders' order.

    python -m bench inference_service      # or: python -m bench.inference_service [--requests 2000 --rounds 3]
"""

from __future__ import annotations

import argparse
import csv
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from livetab import topics as topic_names

__all__ = ["main"]

ROOT = Path(__file__).resolve().parents[1]
RESULTS_TOPIC = topic_names.INFERENCE_RESULTS
TABLE_ROWS = 8
# `livetab serve`, with every thread's stack dumped to its log on SIGUSR1 (the bench asks for it on a stall)
SERVE = ("import faulthandler, signal, sys; faulthandler.register(signal.SIGUSR1, all_threads=True); "
         "from livetab_cli.main import main; sys.exit(main(sys.argv[1:]))")


def _serve_batch(config: str, pool: str) -> None:
    """The baseline service: the plain batch worker (poll, gather all, wait for the slowest, commit)."""
    from livetab.bus import HandlerContext, Worker
    from livetab.bus.kafka import KafkaBus
    from livetab.settings import load_settings
    from livetab.store import open_store
    from livetab_inference.handler import InferenceHandler

    settings = load_settings(config)
    store = open_store(settings.store.url)
    bus = KafkaBus(settings.kafka, client_id="livetab-inference-batch")
    # A group of its own: sharing the in-flight service's group would make the two rebalance each other.
    worker = Worker(InferenceHandler(timeout_s=30, pool=pool), bus, HandlerContext(store=store, settings=settings),
                    group=f"livetab-inference-batch-{pool}", max_records=settings.inference.max_in_flight,
                    poll_timeout_s=settings.kafka.poll_timeout_ms / 1000)
    worker.install_signal_handlers()
    worker.run()
    bus.close()
    store.close()


def seed_release(store: Any, release: str, n: int) -> list[str]:
    """The first WikiTableQuestions table (path order) with TABLE_ROWS filled rows and n distinct questions
    over it, stored as `release`; the questions' ids."""
    from livetab.ids import content_id
    from livetab.paths import shared_data
    from livetab.questions import Gold, Question
    from livetab.records import question_row, table_row
    from livetab.store import schema
    from livetab.tables import Source, Table
    from livetab_api.releases import publish_releases

    for path in sorted((shared_data() / "wtq" / "csv").glob("*/*.csv")):
        with path.open(encoding="utf-8", newline="") as f:
            grid = [[c.strip() for c in r] for r in csv.reader(f, escapechar="\\")]
        if len(grid) > TABLE_ROWS and len(grid[0]) >= 2 and all(len(r) == len(grid[0]) and r[0] and r[1]
                                                                 for r in grid[: TABLE_ROWS + 1]):
            break
    else:
        raise RuntimeError("no WikiTableQuestions table fits")
    header, body = grid[0], grid[1: TABLE_ROWS + 1]
    table = Table(id=content_id("tbl", release, path.name), source=Source(kind="wtq", uri=path.name, title=path.stem),
                  header=[header], rows=body, release=release)
    store.upsert(schema.tables, [table_row(table.to_proto())])
    questions = [Question(
        id=content_id("q", release, k), table_id=table.id, family="direct",
        text=f"What is the {header[1]} in the row whose {header[0]} is {body[k % TABLE_ROWS][0]}? (#{k})",
        gold=Gold(kind="text", text=body[k % TABLE_ROWS][1]), release=release) for k in range(n)]
    store.upsert(schema.questions, [question_row(q.to_proto()) for q in questions])
    publish_releases(store, None, [release], by="bench")  # runs are planned over a live release's frozen questions
    return [q.id for q in questions]


def _wait_for_topics(bootstrap: str, names: list[str], timeout_s: float = 60.0) -> None:
    """Wait until the broker's metadata lists every topic in `names`: a consumer that joins its group
    before its new topic is in the metadata is assigned nothing until its next metadata refresh (minutes)."""
    from kafka import KafkaConsumer

    probe = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None)
    try:
        deadline = time.monotonic() + timeout_s
        while any(not probe.partitions_for_topic(n) for n in names):
            if time.monotonic() > deadline:
                raise RuntimeError(f"topics {names} not in the broker's metadata after {timeout_s:.0f}s")
            time.sleep(0.2)
    finally:
        probe.close()


def _proc_cpu_s(pid: int) -> float:
    """User + system CPU seconds of process `pid` so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class _Service:
    def __init__(self, cmd: list[str], log: Path) -> None:
        self.log = log
        self._out = log.open("ab")
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=self._out, stderr=subprocess.STDOUT,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"})

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._out.close()


def _round(bus: Any, store: Any, reader: Any, spec: Any, release: str, seed: int, service: _Service) -> dict[str, Any]:
    """Publish one run's requests to the service's pool; time until every result is read back."""
    from livetab.bus import Outgoing
    from livetab.runs import build_run
    from livetab.topics import requests_topic
    from livetab.v1 import inference_pb2
    from livetab_api.planner import plan_requests

    run = build_run("bench", release, spec, max_tokens=16, temperature=0.0, seed=seed)
    requests = plan_requests(run, store)
    parts = reader.assignment()
    reader.seek_to_end(*parts)
    for tp in parts:
        reader.position(tp)
    topic = requests_topic(spec.pool)
    got: set[str] = set()
    errors = 0
    t0, cpu0 = time.perf_counter(), _proc_cpu_s(service.proc.pid)
    for r in requests:
        bus.publish(Outgoing(topic, r, key=r.question_id, message_id=r.id))
    bus.flush()
    deadline = time.monotonic() + float(os.environ.get("LIVETAB_BENCH_ROUND_TIMEOUT_S", "300"))
    while len(got) < len(requests):
        if service.proc.poll() is not None or time.monotonic() > deadline:
            if service.proc.poll() is None:
                service.proc.send_signal(signal.SIGUSR1)
                time.sleep(1)
            raise RuntimeError(f"service stopped or stalled at {len(got)}/{len(requests)}:\n"
                               + service.log.read_text()[-3000:])
        for recs in reader.poll(timeout_ms=100, max_records=2000).values():
            for rec in recs:
                res = inference_pb2.InferenceResult.FromString(rec.value)
                if res.run_id == run.id and res.id not in got:
                    got.add(res.id)
                    errors += bool(res.error)
    seconds = time.perf_counter() - t0
    return {"ok": len(got) - errors, "failed": errors, "seconds": seconds,
            "cpu_s": _proc_cpu_s(service.proc.pid) - cpu0}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--serve-batch", nargs=2, metavar=("CONFIG", "POOL"), help=argparse.SUPPRESS)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--kafka", default=os.environ.get("LIVETAB_BENCH_KAFKA", ""),
                        help="a running broker (default: start one under .state/bench-kafka)")
    args = parser.parse_args(sys.argv[1:] if argv is None and __name__ == "__main__" else (argv or []))
    if args.serve_batch:
        _serve_batch(*args.serve_batch)
        return

    import yaml
    from kafka import KafkaConsumer, TopicPartition
    from livetab.bus.kafka import KafkaBus, ensure_topics
    from livetab.settings import KafkaSettings
    from livetab.store import open_store
    from livetab.topics import requests_topic
    from livetab.v1 import common_pb2

    from bench.common import write_result
    from bench.inference import _run_child, _start_server

    state = ROOT / ".state" / "bench-kafka"
    bootstrap = args.kafka or subprocess.run([str(ROOT / "deploy" / "kafka.sh"), "up", str(state)], check=True,
                                             text=True, capture_output=True).stdout.strip().splitlines()[-1]
    tmp = Path(tempfile.mkdtemp(prefix="livetab-bench-inference-"))
    release = f"bench{uuid.uuid4().hex[:6]}"
    store_url = f"sqlite:///{tmp / 'bench.db'}"
    store = open_store(store_url)
    seed_release(store, release, args.requests)
    server, url = _start_server(args.latency_ms)
    services: dict[str, _Service] = {}
    specs: dict[str, Any] = {}
    runs: dict[str, list[dict[str, Any]]] = {"inflight": [], "batch": [], "aiohttp": []}
    bus = reader = None
    try:
        pools = {name: f"{name}{uuid.uuid4().hex[:6]}" for name in ("inflight", "batch")}
        ensure_topics(bootstrap, names=[RESULTS_TOPIC], extra=[requests_topic(p) for p in pools.values()])
        _wait_for_topics(bootstrap, [RESULTS_TOPIC, *(requests_topic(p) for p in pools.values())])
        for name, pool in pools.items():
            specs[name] = common_pb2.ModelSpec(name=f"bench-{name}", backend="openai", base_url=url, model="bench",
                                               pool=pool, params={"concurrency": str(args.concurrency),
                                                                  "timeout_s": "30"})
            cfg = tmp / f"{name}.yaml"
            cfg.write_text(yaml.safe_dump({
                "store": {"url": store_url}, "log_level": "INFO",
                "kafka": {"bootstrap_servers": bootstrap, "poll_timeout_ms": 200,
                          "max_poll_records": args.concurrency},
                "inference": {"max_in_flight": args.concurrency},
                "models": [{"name": specs[name].name, "backend": "openai", "base_url": url, "model": "bench",
                            "pool": pool, "timeout_s": 30, "params": dict(specs[name].params)}]}))
            cmd = ([sys.executable, "-c", SERVE, "serve", "inference", "--config", str(cfg), "--pool", pool]
                   if name == "inflight" else
                   [sys.executable, "-X", "faulthandler", "-c", SERVE.replace("livetab_cli.main", "bench.inference_service"),
                    "--serve-batch", str(cfg), pool])
            services[name] = _Service(cmd, tmp / f"{name}.log")
        bus = KafkaBus(KafkaSettings(bootstrap_servers=bootstrap))
        reader = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False)
        reader.assign([TopicPartition(RESULTS_TOPIC, p) for p in sorted(reader.partitions_for_topic(RESULTS_TOPIC))])
        ideal = ["--url", url, "--requests", str(args.requests), "--max-seconds", "120",
                 "--concurrency", str(args.concurrency)]
        seed = 1000

        def one(name: str) -> dict[str, Any]:
            nonlocal seed
            seed += 1
            if name == "aiohttp":
                return _run_child(sys.executable, [*ideal, "--contender", "aiohttp"])
            return _round(bus, store, reader, specs[name], release, seed, services[name])

        for name in runs:  # warm-up, not counted: the services join their groups and open their connections
            one(name)
        order = list(runs)
        for r in range(args.rounds):
            for name in order[r % 3:] + order[: r % 3]:
                runs[name].append(one(name))
    finally:
        for s in services.values():
            s.stop()
        if reader is not None:
            reader.close()
        if bus is not None:
            bus.close()
        server.terminate()
        server.wait(timeout=20)
        store.close()
        if not args.kafka:
            subprocess.run([str(ROOT / "deploy" / "kafka.sh"), "down", str(state)], check=False)

    rates = {name: [r["ok"] / r["seconds"] for r in rs] for name, rs in runs.items()}
    med = {name: statistics.median(v) for name, v in rates.items()}
    paired = [a / b for a, b in zip(rates["inflight"], rates["aiohttp"], strict=True)]
    write_result("inference_service", med["inflight"] / med["aiohttp"], 0.90,
                 "the ideal plain asyncio + aiohttp loop at the same concurrency against the same fixed-latency server "
                 "(no bus, no store), same run; also the same service with the old batch-wait worker "
                 "(inflight_vs_batch_wait_ratio)", {
                     "server": f"tests/fakes/fault_server.py, fixed latency {args.latency_ms:g} ms, separate process",
                     "pipeline": "requests published to a real Kafka broker -> livetab serve inference (separate "
                                 "process, SQLite store, OpenAI-compatible backend) -> results topic, consumed back",
                     "concurrency": args.concurrency, "requests_per_round": args.requests, "rounds": args.rounds,
                     "ceiling_req_per_s": round(args.concurrency * 1000.0 / args.latency_ms, 1),
                     "req_per_s_median": {name: round(v, 1) for name, v in med.items()},
                     "req_per_s_rounds": {name: [round(x, 1) for x in v] for name, v in rates.items()},
                     "inflight_vs_ideal_paired_ratios": [round(x, 4) for x in paired],
                     "inflight_vs_batch_wait_ratio": round(med["inflight"] / med["batch"], 4) if med["batch"] else None,
                     "batch_wait_vs_ideal_ratio": round(med["batch"] / med["aiohttp"], 4) if med["aiohttp"] else None,
                     "cpu_ms_per_request_median": {name: round(statistics.median(
                         1000 * r["cpu_s"] / max(1, r["ok"]) for r in rs), 3) for name, rs in runs.items()},
                     "cpu_ms_note": "the service process alone (inflight, batch) or the loop's process (aiohttp); "
                                    "the publishing and reading bench process is not counted",
                     "failed_requests": {name: sum(int(r["failed"]) for r in rs) for name, rs in runs.items()},
                     "cpu_count": os.cpu_count(), "load_average_1m_at_end": round(os.getloadavg()[0], 2),
                 })


if __name__ == "__main__":
    main()
