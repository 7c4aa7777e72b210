"""The guard of an endpoint: backoff, Retry-After, the circuit breaker, rate limits, the concurrency cap."""

from __future__ import annotations

import asyncio
import random
import time

import pytest
from livetab.models.base import ModelError
from livetab.models.resilience import (
    CircuitBreaker,
    CircuitOpenError,
    RateLimiter,
    Resilience,
    RetryPolicy,
    StatusError,
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_backoff_grows_with_equal_jitter_and_is_capped() -> None:
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=8.0)
    rng = random.Random(1)
    for n, full in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (7, 8.0)]:
        delays = [policy.delay(n, None, rng) for _ in range(200)]
        assert min(delays) >= full / 2 and max(delays) <= full
        assert max(delays) - min(delays) > full / 4  # jittered, not constant


def test_retry_after_replaces_backoff_and_is_capped() -> None:
    policy = RetryPolicy(base_delay_s=0.01, max_retry_after_s=5.0)
    rng = random.Random(2)
    assert all(3.0 <= policy.delay(1, 3.0, rng) <= 3.3 for _ in range(100))
    assert all(5.0 <= policy.delay(1, 3600.0, rng) <= 5.5 for _ in range(100))


def test_breaker_opens_after_consecutive_failures_half_opens_and_closes() -> None:
    clock = FakeClock()
    b = CircuitBreaker("e", failure_threshold=3, cooldown_s=10.0, clock=clock)
    b.record_failure()
    b.record_failure()
    b.record_success()  # a success resets the count: failures must be consecutive
    b.record_failure()
    b.record_failure()
    assert b.state == "closed"
    b.record_failure()
    assert b.state == "open"
    with pytest.raises(CircuitOpenError) as info:
        b.before_call()
    assert info.value.retryable and info.value.retry_after == pytest.approx(10.0)
    clock.now += 10.0
    assert b.state == "half_open"
    b.before_call()  # the one probe
    with pytest.raises(CircuitOpenError):
        b.before_call()  # a second caller waits for the probe's verdict
    b.record_failure()  # the probe failed: open again for a full cool-down
    assert b.state == "open"
    clock.now += 9.9
    assert b.state == "open"
    clock.now += 0.2
    b.before_call()
    b.record_success()
    assert b.state == "closed"
    assert b.times_opened == 2
    assert ("half_open", "closed") in b.transitions


def test_rate_limiter_waits_for_tokens() -> None:
    async def main() -> float:
        limiter = RateLimiter(tokens_per_minute=120)  # 2 tokens per second, one minute's allowance up front
        await limiter.acquire(120)
        t0 = time.perf_counter()
        await limiter.acquire(1)
        return time.perf_counter() - t0

    assert asyncio.run(main()) >= 0.4


def test_requests_per_minute_limit_spaces_requests() -> None:
    async def main() -> float:
        limiter = RateLimiter(requests_per_minute=600)  # 10 per second after the first minute's burst of 600
        for _ in range(600):
            await limiter.acquire()
        t0 = time.perf_counter()
        for _ in range(3):
            await limiter.acquire()
        return time.perf_counter() - t0

    assert asyncio.run(main()) >= 0.25


def test_call_retries_retryable_errors_then_gives_up_with_reason() -> None:
    calls = 0

    async def failing() -> str:
        nonlocal calls
        calls += 1
        raise StatusError("HTTP 503 from x", status=503, retryable=True)

    guard = Resilience("x", retry=RetryPolicy(max_attempts=3, base_delay_s=0.001), seed=0)
    with pytest.raises(ModelError, match=r"HTTP 503 .*gave up after 3 attempts"):
        asyncio.run(guard.call(failing))
    assert calls == 3


def test_call_does_not_retry_a_client_error() -> None:
    calls = 0

    async def bad_request() -> str:
        nonlocal calls
        calls += 1
        raise StatusError("HTTP 400", status=400, retryable=False)

    guard = Resilience("x", retry=RetryPolicy(max_attempts=5, base_delay_s=0.001))
    with pytest.raises(StatusError, match="HTTP 400"):
        asyncio.run(guard.call(bad_request))
    assert calls == 1
    assert guard.breaker is not None and guard.breaker.state == "closed"


def test_concurrency_cap_holds() -> None:
    in_flight = peak = 0

    async def work() -> None:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.01)
        in_flight -= 1

    async def main() -> None:
        guard = Resilience("x", max_concurrency=3)
        await asyncio.gather(*(guard.call(work) for _ in range(20)))

    asyncio.run(main())
    assert peak == 3


def test_rate_limited_responses_do_not_open_the_circuit() -> None:
    async def limited() -> None:
        raise StatusError("HTTP 429", status=429, retryable=True, retry_after=0.0)

    guard = Resilience("x", retry=RetryPolicy(max_attempts=4, base_delay_s=0.001),
                       breaker=CircuitBreaker("x", failure_threshold=2))
    with pytest.raises(ModelError):
        asyncio.run(guard.call(limited))
    assert guard.breaker is not None and guard.breaker.state == "closed"


def test_an_open_circuit_names_the_failure_that_opened_it() -> None:
    """A request refused by an open circuit records what the endpoint did, not only that it was given up on: the
    failure that opened the circuit (the same for every refused call, so a run's failures still count by cause)."""
    clock = FakeClock()
    b = CircuitBreaker("http://e/v1", failure_threshold=2, cooldown_s=10.0, clock=clock)
    b.record_failure("HTTP 503 from http://e/v1/chat/completions: overloaded")
    b.record_failure("HTTP 500 from http://e/v1/chat/completions: internal error")
    with pytest.raises(CircuitOpenError) as info:
        b.before_call()
    assert str(info.value) == ("circuit open for http://e/v1 after repeated failures, the last: HTTP 500 from "
                               "http://e/v1/chat/completions: internal error")
    with pytest.raises(CircuitOpenError) as again:
        b.before_call()
    assert str(again.value) == str(info.value)
    plain = CircuitBreaker("http://f/v1", failure_threshold=1, clock=clock)
    plain.record_failure()
    with pytest.raises(CircuitOpenError, match=r"^circuit open for http://f/v1 after repeated failures$"):
        plain.before_call()
