"""The inference service SIGKILLed with 64 requests in flight loses none and re-sends only the unpublished.

Real parts: the Kafka broker, `livetab serve inference` as a separate process (its in-flight worker,
`inference.max_in_flight: 64`), a SQLite store shared with it, the OpenAI-compatible backend over HTTP
(its per-endpoint concurrency 64). The endpoint is the fault server in fixed-latency mode: a fake on
purpose, as it counts what reaches it, prompt by prompt.

What must hold after the restart: every request has exactly one stored result and one on the results
topic (by id); the model calls made after the restart are exactly the requests with no cached answer at
the kill, and that is between the requests not yet published (minus those stored but not yet flushed at
the kill, at most one completion round, so at most max_in_flight) and the requests not yet published.
The endpoint never has more than max_in_flight calls at once; the answers that die with the process are
those calls plus the few received but not yet stored (a finishing group gathers for 20 ms).
"""

from __future__ import annotations

import signal
import time
import uuid
from pathlib import Path

import pytest
import yaml
from livetab.bus import Outgoing
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

from tests.integration.test_inference_restart import (
    RESULTS_TOPIC,
    _lookup_table,
    _prompt_stats,
    _Service,
    _start_fault_server,
    _wait,
)
from tests.support.releases import publish
from tests.support.topic_read import topic_messages

pytestmark = [pytest.mark.kafka]
N = 256              # requests in the run
IN_FLIGHT = 64       # inference.max_in_flight and the endpoint's concurrency
LATENCY_MS = 1000    # the fake endpoint's fixed latency: 64 in flight answer ~64 requests/s
KILL_AFTER = 64      # results stored before the kill (the first round of 64)
HELD = 16            # answers received but not yet stored at the kill, at most (their group gathers for 20 ms)


def _seed(store: Store, release: str) -> None:
    """One real WikiTableQuestions table and N distinct questions over it (distinct prompts, so the
    endpoint's per-prompt counts tell which were sent twice)."""
    path, header, body = _lookup_table(8)
    table = Table(id=content_id("tbl", release, path.name), source=Source(kind="wtq", uri=str(path.relative_to(
        shared_data())), title=path.stem), header=[header], rows=body[:8], release=release)
    store.upsert(schema.tables, [table_row(table.to_proto())])
    questions = [Question(id=content_id("q", release, k), table_id=table.id, family="direct",
                          text=f"What is the {header[1]} in the row whose {header[0]} is {body[k % 8][0]}? (#{k})",
                          gold=Gold(kind="text", text=body[k % 8][1]), release=release) for k in range(N)]
    store.upsert(schema.questions, [question_row(q.to_proto()) for q in questions])
    publish(store, release)  # runs are planned over a live release's frozen questions


def _config(tmp: Path, bootstrap: str, store_url: str, spec: common_pb2.ModelSpec) -> Path:
    cfg = {
        "store": {"url": store_url},
        "log_level": "INFO",
        "kafka": {"bootstrap_servers": bootstrap, "session_timeout_ms": 6000, "heartbeat_interval_ms": 1000,
                  "poll_timeout_ms": 300},
        "inference": {"max_in_flight": IN_FLIGHT},
        "models": [{"name": spec.name, "backend": "openai", "base_url": spec.base_url, "model": spec.model,
                    "pool": spec.pool, "timeout_s": 30, "params": dict(spec.params)}],
    }
    path = tmp / "inference.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def _published_ids(bootstrap: str, run_id: str) -> list[str]:
    """Every result of the run on the results topic, read from the beginning to the current end."""
    results = (inference_pb2.InferenceResult.FromString(v) for v in topic_messages(bootstrap, RESULTS_TOPIC))
    return [r.id for r in results if r.run_id == run_id]


def test_killed_with_64_in_flight_loses_none_and_resends_only_the_unpublished(kafka_bootstrap: str,
                                                                               tmp_path: Path) -> None:
    tag = uuid.uuid4().hex[:8]
    pool = f"k{tag}"
    topic = requests_topic(pool)
    store_url = f"sqlite:///{tmp_path / 'kill.db'}"
    store = open_store(store_url)
    _seed(store, release=tag)
    ensure_topics(kafka_bootstrap, names=[RESULTS_TOPIC], extra=[topic])
    server_proc, server = _start_fault_server(tmp_path / "fault_server.log", LATENCY_MS)
    services: list[_Service] = []
    bus = KafkaBus(KafkaSettings(bootstrap_servers=kafka_bootstrap))
    try:
        spec = common_pb2.ModelSpec(name=f"fault-{LATENCY_MS}ms", backend="openai", base_url=f"{server}/v1",
                                    model="fake-chat", pool=pool, params={"concurrency": str(IN_FLIGHT)})
        run = build_run("kill", tag, spec, max_tokens=16, temperature=0.0, seed=5)
        requests = plan_requests(run, store)
        assert len(requests) == N
        for r in requests:
            bus.publish(Outgoing(topic, r, key=r.question_id, message_id=r.id))
        bus.flush()
        cfg = _config(tmp_path, kafka_bootstrap, store_url, spec)
        log = tmp_path / "inference.log"

        first = _Service(cfg, pool, log)
        services.append(first)
        _wait(lambda: store.count(schema.results, run_id=run.id) >= KILL_AFTER, 120, first, f"{KILL_AFTER} results")
        # The first 64 were sent together, so they finish together; the next 64 are sent as they finish.
        # Half a latency later those are all still waiting for their answers: kill then.
        time.sleep(LATENCY_MS / 2000)
        first.kill()
        sent_at_kill = _prompt_stats(server)["total"]
        stored_at_kill = store.count(schema.results, run_id=run.id)
        cached_at_kill = store.count(schema.response_cache)  # this test's store: only this run's answers
        published_at_kill = set(_published_ids(kafka_bootstrap, run.id))
        unpublished = N - len(published_at_kill)
        in_flight_at_kill = sent_at_kill - cached_at_kill  # sent, answer not yet stored
        assert stored_at_kill < N, f"the kill should land mid-run; {stored_at_kill} of {N} stored"
        assert IN_FLIGHT // 2 <= in_flight_at_kill <= IN_FLIGHT + HELD, (
            f"{in_flight_at_kill} requests in flight at the kill (sent {sent_at_kill}, cached {cached_at_kill})")

        second = _Service(cfg, pool, log)
        services.append(second)
        _wait(lambda: store.count(schema.results, run_id=run.id) >= N, 120, second, f"all {N} results")
        assert second.stop() == 0, "the worker should drain and exit 0 on SIGTERM:\n" + log.read_text()[-3000:]
        after = _prompt_stats(server)

        stored = [inference_pb2.InferenceResult.FromString(r["payload"]) for r in
                  store.select(schema.results, run_id=run.id)]
        assert sorted(r.id for r in stored) == sorted(r.id for r in requests)  # exactly one row per request
        assert all(not r.error and r.response for r in stored), [r.error for r in stored if r.error][:3]
        published = _published_ids(kafka_bootstrap, run.id)
        assert set(published) == {r.id for r in requests}  # none lost (a re-published one has the same id)
        calls_after = after["total"] - sent_at_kill
        assert after["distinct"] == N
        assert calls_after == N - cached_at_kill  # exactly the requests without a stored answer at the kill
        assert unpublished - IN_FLIGHT - HELD <= calls_after <= unpublished, (
            f"{calls_after} calls after the restart; {unpublished} results were unpublished at the kill")
        resent = after["total"] - N  # the calls in flight at the kill, whose answers died with the process
        assert resent == in_flight_at_kill <= IN_FLIGHT + HELD
        assert after["peak_active"] <= IN_FLIGHT  # the endpoint's bound held throughout, restart included
        assert max(after["counts"].values()) <= 2
        print(f"\nkilled with {in_flight_at_kill} in flight ({stored_at_kill}/{N} stored, {len(published_at_kill)} "
              f"published); after the restart {calls_after} calls for {unpublished} unpublished requests; "
              f"{resent} re-sent; {len(published)} results on the topic for {N} requests")
    finally:
        for s in services:
            if s.proc.poll() is None:
                s.proc.kill()
                s.proc.wait(10)
        bus.close()
        server_proc.send_signal(signal.SIGTERM)
        try:
            server_proc.wait(10)
        except Exception:
            server_proc.kill()
        store.close()
