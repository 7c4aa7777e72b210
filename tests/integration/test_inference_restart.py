"""The inference service killed mid-run and restarted re-sends only unanswered requests.

Real parts: the Kafka broker, `livetab serve inference` as a separate process, a SQLite store shared with
it, the OpenAI-compatible backend over HTTP. The model endpoint is the fault-injecting fake server in
fixed-latency mode (a fake is right here: the test counts what reaches the endpoint, prompt by prompt).

The broker is shared by the session, so the test gets its own inference pool: the requests go to
`livetab.inference.requests.<pool>.v1`, a topic nobody else uses, served by `serve inference --pool`.
"""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from kafka import KafkaConsumer, TopicPartition
from livetab.bus import Outgoing
from livetab.bus.frames import message_values
from livetab.bus.kafka import KafkaBus, ensure_topics
from livetab.ids import content_id
from livetab.paths import shared_data
from livetab.questions import Gold, Question
from livetab.records import question_row, table_row
from livetab.runs import build_run
from livetab.settings import KafkaSettings
from livetab.store import Store, open_store, schema
from livetab.tables import Source, Table
from livetab.topics import requests_topic
from livetab.v1 import common_pb2, inference_pb2
from livetab_api.planner import plan_requests

from tests.support.releases import publish

pytestmark = [pytest.mark.kafka]
ROOT = Path(__file__).resolve().parents[2]
N = 40              # requests in the run
BATCH = 4           # inference.max_in_flight (and kafka.max_poll_records): the most requests in flight at a kill
LATENCY_MS = 300    # the fake endpoint's fixed latency
KILL_AFTER = 8      # results stored before the first worker is killed (two of ten batches)
RESULTS_TOPIC = "livetab.inference.results.v1"


def _lookup_table(rows_wanted: int) -> tuple[Path, list[str], list[list[str]]]:
    """The first WikiTableQuestions table (in path order) with unique column names, at least `rows_wanted`
    rows whose first cell is unique and whose next two cells are filled: each row gives two lookups."""
    for path in sorted((shared_data() / "wtq" / "csv").glob("*/*.csv")):
        with path.open(encoding="utf-8", newline="") as f:
            grid = [[c.strip() for c in r] for r in csv.reader(f, escapechar="\\")]
        if len(grid) < rows_wanted + 1 or len(grid[0]) < 3 or len(set(grid[0])) != len(grid[0]):
            continue
        header, body = grid[0], grid[1:]
        if any(len(r) != len(header) for r in body):
            continue
        head = body[:rows_wanted]
        keys = [r[0] for r in head]
        if all(keys) and len(set(keys)) == len(keys) and all(r[1] and r[2] for r in head) \
                and len({r[0] for r in body}) == len(body):
            return path, header, body
    raise AssertionError("no WikiTableQuestions table fits the lookup questions")


def _seed_store(store: Store, release: str) -> list[Question]:
    """One real table and N lookup questions over it; each gold answer is read from the table's cell."""
    path, header, body = _lookup_table(N // 2)
    table = Table(id=content_id("tbl", release, path.name), source=Source(kind="wtq", uri=str(path.relative_to(
        shared_data())), title=path.stem), header=[header], rows=body, release=release)
    store.upsert(schema.tables, [table_row(table.to_proto())])
    questions = []
    for r, row in enumerate(body[: N // 2]):
        for c in (1, 2):
            text = f"What is the {header[c]} in the row whose {header[0]} is {row[0]}?"
            questions.append(Question(id=content_id("q", release, r, c), table_id=table.id, family="direct",
                                      text=text, gold=Gold(kind="text", text=row[c]), release=release))
    store.upsert(schema.questions, [question_row(q.to_proto()) for q in questions])
    publish(store, release)  # runs are planned over a live release's frozen questions
    return questions


def _start_fault_server(log: Path, latency_ms: float = LATENCY_MS) -> tuple[subprocess.Popen[bytes], str]:
    cmd = [sys.executable, str(ROOT / "tests" / "fakes" / "fault_server.py"), "--mode", "latency",
           "--latency-ms", str(latency_ms), "--port", "0"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log.open("wb"))
    assert proc.stdout is not None
    line = proc.stdout.readline().decode().strip()
    assert line.startswith("PORT "), f"fault server did not start: {line!r} {log.read_text()}"
    return proc, f"http://127.0.0.1:{int(line.split()[1])}"


def _prompt_stats(server: str) -> dict[str, Any]:
    stats: dict[str, Any] = httpx.get(f"{server}/stats/prompts", timeout=10).json()
    return stats


def _config(tmp: Path, bootstrap: str, store_url: str, spec: common_pb2.ModelSpec) -> Path:
    cfg = {
        "store": {"url": store_url},
        "log_level": "INFO",
        "kafka": {"bootstrap_servers": bootstrap, "session_timeout_ms": 6000, "heartbeat_interval_ms": 1000,
                  "max_poll_records": BATCH, "poll_timeout_ms": 300},
        "inference": {"max_in_flight": BATCH},
        "models": [{"name": spec.name, "backend": "openai", "base_url": spec.base_url, "model": spec.model,
                    "pool": spec.pool, "timeout_s": 30}],
    }
    path = tmp / "inference.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


class _Service:
    """`livetab serve inference --pool <pool>` as a separate process, its output in a log file."""

    def __init__(self, cfg: Path, pool: str, log: Path) -> None:
        self.log = log
        self._out = log.open("ab")
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "livetab_cli.main", "serve", "inference", "--config", str(cfg), "--pool", pool],
            env=env, stdout=self._out, stderr=subprocess.STDOUT)

    def alive(self) -> None:
        assert self.proc.poll() is None, "inference exited early:\n" + self.log.read_text()[-4000:]

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self._out.close()

    def stop(self) -> int:
        """SIGTERM: the worker finishes its batch, commits and exits."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = -9
        self._out.close()
        return code


def _results(store: Store, run_id: str) -> list[inference_pb2.InferenceResult]:
    return [inference_pb2.InferenceResult.FromString(r["payload"]) for r in store.select(schema.results,
                                                                                           run_id=run_id)]


def _wait(cond: Any, timeout: float, service: _Service, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        service.alive()
        assert time.monotonic() < deadline, f"timed out waiting for {what}:\n" + service.log.read_text()[-4000:]
        time.sleep(0.05)


def test_killed_worker_resends_only_unanswered_requests(kafka_bootstrap: str, tmp_path: Path) -> None:
    tag = uuid.uuid4().hex[:8]
    pool = f"t{tag}"
    topic = requests_topic(pool)
    store_url = f"sqlite:///{tmp_path / 'restart.db'}"
    store = open_store(store_url)
    questions = _seed_store(store, release=tag)
    ensure_topics(kafka_bootstrap, names=[RESULTS_TOPIC], extra=[topic])
    server_proc, server = _start_fault_server(tmp_path / "fault_server.log")
    services: list[_Service] = []
    bus = KafkaBus(KafkaSettings(bootstrap_servers=kafka_bootstrap, session_timeout_ms=6000,
                                 heartbeat_interval_ms=1000, poll_timeout_ms=300))
    results_reader = KafkaConsumer(bootstrap_servers=kafka_bootstrap, group_id=None, enable_auto_commit=False)
    rerun: list[inference_pb2.InferenceResult] = []

    try:
        spec = common_pb2.ModelSpec(name=f"fault-{LATENCY_MS}ms", backend="openai", base_url=f"{server}/v1",
                                    model="fake-chat", pool=pool)
        run = build_run("restart", tag, spec, max_tokens=16, temperature=0.0, seed=3)
        requests = plan_requests(run, store)
        assert len(requests) == N == len(questions)

        def publish_all() -> None:
            for r in requests:
                bus.publish(Outgoing(topic, r, key=r.question_id, message_id=r.id))
            bus.flush()

        publish_all()
        cfg = _config(tmp_path, kafka_bootstrap, store_url, spec)

        # 1. the first worker answers part of the run and is killed without warning
        log = tmp_path / "inference.log"
        first = _Service(cfg, pool, log)
        services.append(first)
        _wait(lambda: store.count(schema.results, run_id=run.id) >= KILL_AFTER, 90, first, f"{KILL_AFTER} results")
        first.kill()
        stored_at_kill = store.count(schema.results, run_id=run.id)
        sent_at_kill = _prompt_stats(server)["total"]
        assert KILL_AFTER <= stored_at_kill < N, f"the kill should land mid-run; {stored_at_kill} of {N} stored"

        # 2. a restarted worker finishes the run
        second = _Service(cfg, pool, log)
        services.append(second)
        _wait(lambda: store.count(schema.results, run_id=run.id) >= N, 90, second, f"all {N} results")
        assert second.stop() == 0, "the worker should drain and exit 0 on SIGTERM:\n" + log.read_text()[-3000:]
        after_restart = _prompt_stats(server)

        results = _results(store, run.id)
        assert sorted(r.id for r in results) == sorted(r.id for r in requests)  # one row per request, no more
        assert all(not r.error and r.response for r in results), [r.error for r in results if r.error][:3]
        # Every prompt reached the endpoint; only the batch in flight at the kill (sent, answer not yet
        # cached) may have been sent twice.
        assert after_restart["distinct"] == N
        resent = after_restart["total"] - N
        twice = [h for h, k in after_restart["counts"].items() if k > 1]
        assert max(after_restart["counts"].values()) <= 2
        assert 0 <= resent == len(twice) <= BATCH, (
            f"{after_restart['total']} calls for {N} requests: {resent} re-sent, the in-flight batch is {BATCH}")

        # 3. the same requests again (a re-run of the whole topic): every answer comes from the cache
        # Read the results topic from its end as it is now (the stopped worker flushed everything), so only
        # the results of this step are counted.
        parts = [TopicPartition(RESULTS_TOPIC, p) for p in sorted(results_reader.partitions_for_topic(RESULTS_TOPIC))]
        results_reader.assign(parts)
        results_reader.seek_to_end(*parts)
        for tp in parts:
            results_reader.position(tp)
        publish_all()
        third = _Service(cfg, pool, log)
        services.append(third)

        def third_done() -> bool:
            for recs in results_reader.poll(timeout_ms=200).values():
                for value in (v for rec in recs for v in message_values(rec.value, rec.headers)):
                    res = inference_pb2.InferenceResult.FromString(value)
                    if res.run_id == run.id:
                        rerun.append(res)
            return len(rerun) >= N

        _wait(third_done, 90, third, f"{N} results of the re-published requests")
        assert third.stop() == 0, log.read_text()[-3000:]
        third_done()  # anything published after the N-th result (a duplicate would show here)
        assert sorted(r.id for r in rerun) == sorted(r.id for r in requests)
        assert all(r.cached for r in rerun), f"{sum(not r.cached for r in rerun)} answers were not from the cache"
        answers = {r.id: r.response for r in results}
        assert {r.id: r.response for r in rerun} == answers  # the cached answer is the stored answer
        final = _prompt_stats(server)
        assert final["total"] == after_restart["total"], "a re-run must not call the endpoint at all"
        assert store.count(schema.results, run_id=run.id) == N
        print(f"\nkilled after {stored_at_kill}/{N} results stored ({sent_at_kill} calls sent); after the restart "
              f"{after_restart['total']} calls for {N} requests ({resent} re-sent, in-flight batch {BATCH}); "
              f"re-run of all {N}: {final['total'] - after_restart['total']} new calls, {len(rerun)} cached answers")
    finally:
        for s in services:
            if s.proc.poll() is None:
                s.proc.kill()
                s.proc.wait(10)
        results_reader.close()
        bus.close()
        server_proc.send_signal(signal.SIGTERM)
        try:
            server_proc.wait(10)
        except subprocess.TimeoutExpired:
            server_proc.kill()
        store.close()
