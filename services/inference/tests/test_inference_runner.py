"""The request loop: bounded concurrency, backpressure, a result for every request, the circuit's life."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest
from livetab.models.base import ChatMessage, Completion, GenerateRequest, ModelError, SamplingParams
from livetab.models.openai_compat import OpenAIBackend
from livetab.models.resilience import CircuitBreaker, Resilience, RetryPolicy
from livetab_inference.runner import LatencyHistogram, RequestResult, WorkItem, run_requests

from tests.fakes.fault_server import Scenario, ThreadedFaultServer


class ScriptedBackend:
    """Answers after `delay_s`; fails the keys it is told to, the way it is told to. Tracks concurrency."""

    name = "scripted"

    def __init__(self, delay_s: float = 0.002, fail: dict[str, Exception] | None = None) -> None:
        self.delay_s = delay_s
        self.fail = fail or {}
        self.in_flight = 0
        self.peak = 0
        self.calls = 0

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        self.calls += 1
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            await asyncio.sleep(self.delay_s)
            key = str(request.messages[-1].content)
            if key in self.fail:
                raise self.fail[key]
            return [Completion(text=f"<think>look at {key}</think> answer {key}", prompt_tokens=10,
                               completion_tokens=3, latency_ms=self.delay_s * 1000)]
        finally:
            self.in_flight -= 1


def item(i: int) -> WorkItem:
    return WorkItem(key=f"r{i}", request=GenerateRequest([ChatMessage("user", f"r{i}")], SamplingParams()))


def test_every_request_gets_exactly_one_result_and_stats_add_up() -> None:
    backend = ScriptedBackend(fail={"r3": ModelError("HTTP 500 from x", retryable=True),
                                    "r7": RuntimeError("backend bug")})
    results: list[RequestResult] = []
    report = asyncio.run(run_requests(backend, [item(i) for i in range(50)], concurrency=8,
                                      on_result=results.append))
    assert sorted(r.key for r in results) == sorted(f"r{i}" for i in range(50))
    failed = {r.key: r for r in results if not r.ok}
    assert set(failed) == {"r3", "r7"}
    assert "HTTP 500" in failed["r3"].error and failed["r3"].error_kind == "model_error"
    assert failed["r7"].error == "RuntimeError: backend bug"
    ok = [r for r in results if r.ok]
    assert ok[0].completions[0].text.startswith("answer ") and ok[0].completions[0].reasoning.startswith("look at")
    stats = report.models["scripted"]
    assert (stats.requests, stats.succeeded, stats.failed) == (50, 48, 2)
    assert stats.prompt_tokens == 480 and stats.completion_tokens == 144
    assert dict(stats.errors) == {"model_error": 1, "RuntimeError": 1}
    d = report.to_dict()["models"]["scripted"]
    assert 0 < d["latency_p50_ms"] <= d["latency_p95_ms"] <= d["latency_p99_ms"] <= d["latency_max_ms"]


def test_concurrency_is_bounded_and_used() -> None:
    backend = ScriptedBackend(delay_s=0.005)
    asyncio.run(run_requests(backend, (item(i) for i in range(100)), concurrency=6))
    assert backend.peak == 6 and backend.calls == 100


def test_backpressure_on_a_lazy_iterator() -> None:
    pulled = 0
    done = 0
    worst = 0

    def source() -> Iterator[WorkItem]:
        nonlocal pulled, worst
        for i in range(300):
            pulled += 1
            worst = max(worst, pulled - done)
            yield item(i)

    def count(_: RequestResult) -> None:
        nonlocal done
        done += 1

    asyncio.run(run_requests(ScriptedBackend(), source(), concurrency=4, on_result=count))
    assert done == 300
    assert worst <= 4  # never more than one item per worker taken from upstream


def test_backpressure_on_an_async_source() -> None:
    pulled = 0
    done = 0
    worst = 0

    async def source() -> AsyncIterator[WorkItem]:
        nonlocal pulled, worst
        for i in range(300):
            pulled += 1
            worst = max(worst, pulled - done)
            yield item(i)

    async def count(_: RequestResult) -> None:
        nonlocal done
        done += 1

    asyncio.run(run_requests(ScriptedBackend(), source(), concurrency=4, queue_size=5, on_result=count))
    assert done == 300
    assert worst <= 4 + 5 + 1  # workers + the bounded queue + the one the producer holds


def test_an_error_in_on_result_stops_the_run_and_propagates() -> None:
    def explode(r: RequestResult) -> None:
        if r.key == "r5":
            raise KeyError("store is down")

    with pytest.raises(KeyError, match="store is down"):
        asyncio.run(run_requests(ScriptedBackend(), [item(i) for i in range(40)], concurrency=4,
                                 on_result=explode))


def test_runner_level_guard_retries_an_unguarded_backend() -> None:
    backend = ScriptedBackend(fail={"r0": ModelError("flaky", retryable=True)})
    guard = Resilience("scripted", retry=RetryPolicy(max_attempts=3, base_delay_s=0.001))
    results: list[RequestResult] = []
    asyncio.run(run_requests(backend, [item(0)], concurrency=1, on_result=results.append, resilience=guard))
    assert not results[0].ok and "gave up after 3 attempts" in results[0].error
    assert backend.calls == 3


def test_histogram_percentiles_are_close() -> None:
    h = LatencyHistogram()
    for ms in range(1, 1001):
        h.add(float(ms))
    assert h.percentile(50) == pytest.approx(500, rel=0.01)
    assert h.percentile(95) == pytest.approx(950, rel=0.01)
    assert h.percentile(99) == pytest.approx(990, rel=0.01)
    assert len(h.buckets) < 800


def test_circuit_opens_and_closes_against_a_failing_then_recovering_server(
        fault_server: ThreadedFaultServer) -> None:
    # The first 6 requests reaching the server fail with 500; after that it has recovered.
    url = fault_server.set("outage", Scenario(mode="500", fail_first=6))
    breaker = CircuitBreaker(url, failure_threshold=3, cooldown_s=0.3)
    guard = Resilience(url, retry=RetryPolicy(max_attempts=8, base_delay_s=0.02, max_delay_s=0.1), breaker=breaker,
                       max_concurrency=2)
    backend = OpenAIBackend(url, "m", resilience=guard, timeout_s=5.0)
    items = [WorkItem(key=f"q{i}", request=GenerateRequest([ChatMessage("user", f"question {i}")]))
             for i in range(20)]
    results: list[RequestResult] = []

    async def main() -> None:
        try:
            await run_requests(backend, items, concurrency=2, on_result=results.append)
        finally:
            await backend.close()

    asyncio.run(main())
    assert sorted(r.key for r in results) == sorted(i.key for i in items)  # nothing lost
    assert all(r.ok or r.error for r in results)
    assert breaker.times_opened >= 1 and ("closed", "open") in breaker.transitions
    assert ("half_open", "closed") in breaker.transitions and breaker.state == "closed"
    assert results[-1].ok
    # While open, calls were refused without reaching the server: fewer requests than attempts made.
    assert fault_server.count("outage") < len(items) + guard.retries


def test_nothing_is_lost_under_mixed_faults(fault_server: ThreadedFaultServer) -> None:
    scenarios = {"mix-429": Scenario(mode="429", retry_after_s=0.05, fail_first=4),
                 "mix-trunc": Scenario(mode="truncated", fail_first=4),
                 "mix-500": Scenario(mode="500"),
                 "mix-hang": Scenario(mode="hang")}
    outcome: dict[str, list[RequestResult]] = {}
    for name, scenario in scenarios.items():
        url = fault_server.set(name, scenario)
        guard = Resilience(url, retry=RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.05),
                           breaker=CircuitBreaker(url, failure_threshold=100))
        backend = OpenAIBackend(url, "m", resilience=guard, timeout_s=0.3)
        results: list[RequestResult] = []

        async def main(b: OpenAIBackend = backend, out: list[RequestResult] = results) -> None:
            try:
                await run_requests(b, [item(i) for i in range(12)], concurrency=4, on_result=out.append)
            finally:
                await b.close()

        asyncio.run(main())
        outcome[name] = results
        assert sorted(r.key for r in results) == sorted(f"r{i}" for i in range(12)), name
    assert all(r.ok for r in outcome["mix-429"] + outcome["mix-trunc"])
    assert all(r.error_kind == "http_5xx" and "gave up after 3 attempts" in r.error for r in outcome["mix-500"])
    assert all(r.error_kind == "timeout" for r in outcome["mix-hang"])
