"""The service's request path end to end in one process: requests on the in-process bus, the in-flight
worker, the inference handler, `calls.call_model`, the backend. Bounded concurrency, backpressure on the
topic, a result for every request (errors recorded with their reason and kind), the circuit's life."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from livetab.bus import HandlerContext, InProcBus, Outgoing
from livetab.bus.base import Record, make_headers
from livetab.bus.inflight import InFlightWorker
from livetab.models.base import Completion, GenerateRequest, ModelBackend, ModelError
from livetab.models.openai_compat import OpenAIBackend
from livetab.models.resilience import CircuitBreaker, Resilience, RetryPolicy
from livetab.questions import Gold, Question
from livetab.records import question_row, table_row
from livetab.store import Store, open_store, schema
from livetab.topics import requests_topic
from livetab.v1 import common_pb2, inference_pb2
from livetab_inference.calls import LatencyHistogram
from livetab_inference.handler import TOPIC_OUT, InferenceHandler

from services.inference.tests.inference_data import wtq_table
from tests.fakes.fault_server import Scenario, ThreadedFaultServer

TOPIC = requests_topic("")


class ScriptedBackend:
    """Answers after `delay_s`; fails the questions it is told to, the way it is told to. Tracks concurrency."""

    name = "scripted"

    def __init__(self, delay_s: float = 0.002, fail: dict[str, Exception] | None = None) -> None:
        self.delay_s = delay_s
        self.fail = fail or {}
        self.in_flight = 0
        self.peak = 0
        self.calls = 0
        self.done = 0

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        self.calls += 1
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            await asyncio.sleep(self.delay_s)
            key = request.question.id if request.question is not None else ""
            if key in self.fail:
                raise self.fail[key]
            return [Completion(text=f"<think>look at {key}</think> answer {key}", prompt_tokens=10,
                               completion_tokens=3, latency_ms=self.delay_s * 1000)]
        finally:
            self.in_flight -= 1
            self.done += 1


def _store(tmp_path: Path, n: int) -> Store:
    store = open_store(f"sqlite:///{tmp_path / 'calls.db'}")
    table, _ = wtq_table(0)
    store.upsert(schema.tables, [table_row(table.to_proto())])
    store.upsert(schema.questions, [question_row(Question(
        id=f"r{i}", table_id=table.id, family="direct", text=f"What is in row {i}?",
        gold=Gold(kind="text", text="x")).to_proto()) for i in range(n)])
    return store


def _request(i: int, model: str) -> inference_pb2.InferenceRequest:
    return inference_pb2.InferenceRequest(
        id=f"req-r{i}", run_id="run", question_id=f"r{i}", model=common_pb2.ModelSpec(name=model, backend="openai"),
        format="markdown", setting="with_table", max_rows=8, sampling=common_pb2.Sampling(max_tokens=8, seed=i))


def _serve(tmp_path: Path, backend: ModelBackend, n: int, *, max_in_flight: int,
           read_ahead: int | None = None) -> tuple[dict[str, inference_pb2.InferenceResult], InferenceHandler]:
    """Publish n requests for `backend`, run the service's worker until idle; the published results by id."""
    name = str(getattr(backend, "name", "model"))
    store = _store(tmp_path, n)
    bus = InProcBus()
    for i in range(n):
        req = _request(i, name)
        bus.publish(Outgoing(TOPIC, req, key=req.question_id, message_id=req.id))
    handler = InferenceHandler({name: backend}, timeout_s=30)
    InFlightWorker(handler, bus, HandlerContext(store=store, settings=None), max_in_flight=max_in_flight,
                   poll_timeout_s=0, read_ahead=read_ahead).run(until_idle=True)
    results = [inference_pb2.InferenceResult.FromString(r.value) for r in bus.records(TOPIC_OUT)]
    assert store.count(schema.results) == n
    store.close()
    by_id = {r.id: r for r in results}
    assert len(by_id) == len(results)  # each published once
    return by_id, handler


def test_every_request_gets_exactly_one_result_and_stats_add_up(tmp_path: Path) -> None:
    backend = ScriptedBackend(fail={"r3": ModelError("HTTP 500 from x", retryable=True),
                                    "r7": RuntimeError("backend bug")})
    results, handler = _serve(tmp_path, backend, 50, max_in_flight=8)
    assert sorted(results) == sorted(f"req-r{i}" for i in range(50))
    failed = {r.question_id: r.error for r in results.values() if r.error}
    assert failed == {"r3": "model error: HTTP 500 from x", "r7": "RuntimeError: backend bug"}
    ok = results["req-r0"]
    assert ok.response == "answer r0" and ok.reasoning == "look at r0"  # thinking split off
    stats = handler.stats["scripted"]
    assert (stats.requests, stats.succeeded, stats.failed) == (50, 48, 2)
    assert stats.prompt_tokens == 480 and stats.completion_tokens == 144
    assert dict(stats.errors) == {"model_error": 1, "RuntimeError": 1}
    d = stats.to_dict()
    assert 0 < d["latency_p50_ms"] <= d["latency_p95_ms"] <= d["latency_p99_ms"] <= d["latency_max_ms"]


def test_calls_in_flight_are_bounded_and_the_bound_is_used(tmp_path: Path) -> None:
    backend = ScriptedBackend(delay_s=0.005)
    results, _ = _serve(tmp_path, backend, 100, max_in_flight=6)
    assert backend.peak == 6 and backend.calls == 100 and len(results) == 100


class _LazyTopic(InProcBus):
    """A request topic of n requests made only when polled (as a broker holds them, outside the process);
    tracks how far what was taken runs ahead of what the backend has answered."""

    def __init__(self, n: int, backend: ScriptedBackend) -> None:
        super().__init__()
        self.n, self.backend, self.taken, self.worst = n, backend, 0, 0

    def consumer(self, group: str, topic_names: list[str]) -> Any:
        topic = self

        class Lazy:
            def poll(self, max_records: int, timeout_s: float) -> list[Record]:
                out = []
                while topic.taken < topic.n and len(out) < max_records:
                    req = _request(topic.taken, topic.backend.name)
                    out.append(Record(TOPIC, 0, topic.taken, None, req.SerializeToString(),
                                      make_headers(TOPIC, req, req.id)))
                    topic.taken += 1
                    topic.worst = max(topic.worst, topic.taken - topic.backend.done)
                return out

            def commit(self, records: list[Record]) -> None:
                return None

            def rewind(self) -> None:
                return None

            def close(self) -> None:
                return None

        return Lazy()


def test_backpressure_the_worker_holds_at_most_its_capacity(tmp_path: Path) -> None:
    store = _store(tmp_path, 300)
    backend = ScriptedBackend()
    bus = _LazyTopic(300, backend)
    handler = InferenceHandler({backend.name: backend}, timeout_s=30)
    InFlightWorker(handler, bus, HandlerContext(store=store, settings=None), max_in_flight=4, poll_timeout_s=0,
                   read_ahead=4).run(until_idle=True)
    assert len(bus.records(TOPIC_OUT)) == 300 and backend.peak == 4
    assert bus.worst <= 8  # never more taken from upstream than running + read ahead
    store.close()


def test_histogram_percentiles_are_close() -> None:
    h = LatencyHistogram()
    for ms in range(1, 1001):
        h.add(float(ms))
    assert h.percentile(50) == pytest.approx(500, rel=0.01)
    assert h.percentile(95) == pytest.approx(950, rel=0.01)
    assert h.percentile(99) == pytest.approx(990, rel=0.01)
    assert len(h.buckets) < 800


def _closed_after(handler: InferenceHandler, backend: OpenAIBackend) -> None:
    handler._loop.run(backend.close())  # the backend's session lives on the handler's loop


def test_circuit_opens_and_closes_against_a_failing_then_recovering_server(
        fault_server: ThreadedFaultServer, tmp_path: Path) -> None:
    # The first 6 requests reaching the server fail with 500; after that it has recovered.
    url = fault_server.set("outage", Scenario(mode="500", fail_first=6))
    breaker = CircuitBreaker(url, failure_threshold=3, cooldown_s=0.3)
    guard = Resilience(url, retry=RetryPolicy(max_attempts=8, base_delay_s=0.02, max_delay_s=0.1), breaker=breaker,
                       max_concurrency=2)
    backend = OpenAIBackend(url, "m", name="outage", resilience=guard, timeout_s=5.0)
    results, handler = _serve(tmp_path, backend, 20, max_in_flight=2)
    _closed_after(handler, backend)
    assert sorted(results) == sorted(f"req-r{i}" for i in range(20))  # nothing lost
    assert breaker.times_opened >= 1 and ("closed", "open") in breaker.transitions
    assert ("half_open", "closed") in breaker.transitions and breaker.state == "closed"
    assert list(results.values())[-1].error == ""
    # While open, calls were refused without reaching the server: fewer requests than attempts made.
    assert fault_server.count("outage") < 20 + guard.retries


def test_nothing_is_lost_under_mixed_faults(fault_server: ThreadedFaultServer, tmp_path: Path) -> None:
    scenarios = {"mix-429": Scenario(mode="429", retry_after_s=0.05, fail_first=4),
                 "mix-trunc": Scenario(mode="truncated", fail_first=4),
                 "mix-500": Scenario(mode="500"),
                 "mix-hang": Scenario(mode="hang")}
    for name, scenario in scenarios.items():
        url = fault_server.set(name, scenario)
        guard = Resilience(url, retry=RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.05),
                           breaker=CircuitBreaker(url, failure_threshold=100))
        backend = OpenAIBackend(url, "m", name=name, resilience=guard, timeout_s=0.3)
        results, handler = _serve(tmp_path / name, backend, 12, max_in_flight=4)
        _closed_after(handler, backend)
        assert sorted(results) == sorted(f"req-r{i}" for i in range(12)), name
        errors = [r.error for r in results.values()]
        stats = handler.stats[name]
        if name in ("mix-429", "mix-trunc"):
            assert errors == [""] * 12, name
        elif name == "mix-500":
            assert all("gave up after 3 attempts" in e for e in errors) and dict(stats.errors) == {"http_5xx": 12}
        else:
            assert all(e for e in errors) and dict(stats.errors) == {"timeout": 12}
