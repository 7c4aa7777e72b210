"""Keeping a model endpoint busy without breaking it: retries, a circuit breaker, rate limits, a concurrency cap.

One `Resilience` guards one endpoint. Every call made through `Resilience.call` waits for a concurrency
slot and for the rate limiter, is refused quickly while the endpoint's circuit is open, and is retried
with jittered exponential backoff on retryable errors (429, 5xx, timeouts, broken connections); a
`Retry-After` the server sent is honoured. `GuardedBackend` puts any `ModelBackend` behind one.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from livetab.models.base import Completion, GenerateRequest, ModelBackend, ModelError

__all__ = [
    "CircuitBreaker",
    "CircuitOpenError",
    "GuardedBackend",
    "RateLimiter",
    "Resilience",
    "RetryPolicy",
    "StatusError",
    "estimate_request_tokens",
]

log = logging.getLogger(__name__)

T = TypeVar("T")
Clock = Callable[[], float]


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with "equal jitter": the n-th retry waits between d/2 and d, d = base * 2**(n-1).

    A server's `Retry-After` replaces the computed delay (plus up to 10% jitter so waiting clients do not
    return in lockstep), capped at `max_retry_after_s`.
    """

    max_attempts: int = 4
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0
    max_retry_after_s: float = 120.0

    def delay(self, retry_number: int, retry_after: float | None = None, rng: random.Random | None = None) -> float:
        r = rng if rng is not None else random.Random()
        if retry_after is not None and retry_after >= 0:
            wait = min(retry_after, self.max_retry_after_s)
            return wait + r.uniform(0.0, 0.1 * wait)
        d = min(self.max_delay_s, self.base_delay_s * 2.0 ** max(0, retry_number - 1))
        return d / 2 + r.uniform(0.0, d / 2)


class CircuitOpenError(ModelError):
    """The endpoint's circuit is open: the call was not sent. `cause`: the failure that opened it, so the reason a
    request records says what the endpoint did, not only that it was given up on."""

    def __init__(self, endpoint: str, retry_after: float, cause: str = "") -> None:
        # the message is the request's recorded reason, which a run's failures are counted by: no wait time in
        # it (the same cause must read the same; it is in `retry_after`)
        super().__init__(f"circuit open for {endpoint} after repeated failures" + (f", the last: {cause}" if cause else ""),
                         retryable=True, retry_after=retry_after)


class CircuitBreaker:
    """Closed → open after `failure_threshold` consecutive failures; half-open after `cooldown_s`, when
    `half_open_probes` calls may go through; a success there closes it, a failure opens it again."""

    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"

    def __init__(self, endpoint: str, *, failure_threshold: int = 5, cooldown_s: float = 10.0,
                 half_open_probes: int = 1, clock: Clock = time.monotonic) -> None:
        if failure_threshold < 1:
            raise ValueError("failure_threshold must be at least 1")
        self.endpoint = endpoint
        self.failure_threshold = failure_threshold
        self.cooldown_s = cooldown_s
        self.half_open_probes = half_open_probes
        self._clock = clock
        self._state = self.CLOSED
        self._failures = 0
        self._opened_at = 0.0
        self._probes = 0
        self._cause = ""  # why the circuit last opened
        self.transitions: list[tuple[str, str]] = []  # (from, to), oldest first, for telemetry and tests
        self.times_opened = 0

    @property
    def state(self) -> str:
        if self._state == self.OPEN and self._clock() - self._opened_at >= self.cooldown_s:
            self._move(self.HALF_OPEN)
            self._probes = 0
        return self._state

    def before_call(self) -> None:
        """Raise `CircuitOpenError` unless a call may go out now."""
        state = self.state
        if state == self.CLOSED:
            return
        if state == self.HALF_OPEN and self._probes < self.half_open_probes:
            self._probes += 1
            return
        remaining = max(0.0, self.cooldown_s - (self._clock() - self._opened_at))
        # Half-open with its probe in flight: look again soon.
        raise CircuitOpenError(self.endpoint, remaining if state == self.OPEN else min(0.05, self.cooldown_s),
                               self._cause)

    def record_success(self) -> None:
        self._failures = 0
        if self._state != self.CLOSED:
            self._move(self.CLOSED)

    def record_failure(self, reason: str = "") -> None:
        """A call failed (`reason`: why; the one that opens the circuit is named by the calls it refuses)."""
        self._failures += 1
        if self._state == self.HALF_OPEN or (self._state == self.CLOSED and self._failures >= self.failure_threshold):
            self._cause = reason
            self._opened_at = self._clock()
            self.times_opened += 1
            self._move(self.OPEN)

    def release_probe(self) -> None:
        """A half-open probe ended without a verdict (e.g. a client-side error): free its slot."""
        if self._state == self.HALF_OPEN and self._probes > 0:
            self._probes -= 1

    def _move(self, to: str) -> None:
        level = logging.WARNING if to == self.OPEN else logging.INFO
        log.log(level, "circuit for %s: %s -> %s", self.endpoint, self._state, to)
        self.transitions.append((self._state, to))
        self._state = to


class _Bucket:
    """A token bucket holding up to one minute's allowance, refilled continuously."""

    def __init__(self, per_minute: float, clock: Clock) -> None:
        self.capacity = float(per_minute)
        self.rate = per_minute / 60.0
        self.level = self.capacity
        self._clock = clock
        self._at = clock()

    def wait_for(self, amount: float) -> float:
        now = self._clock()
        self.level = min(self.capacity, self.level + (now - self._at) * self.rate)
        self._at = now
        amount = min(amount, self.capacity)
        return 0.0 if self.level >= amount else (amount - self.level) / self.rate

    def take(self, amount: float) -> None:
        self.level -= min(amount, self.capacity)


class RateLimiter:
    """Requests-per-minute and tokens-per-minute limits; waiters are served first come, first served."""

    def __init__(self, *, requests_per_minute: float | None = None, tokens_per_minute: float | None = None,
                 clock: Clock = time.monotonic) -> None:
        self._requests = _Bucket(requests_per_minute, clock) if requests_per_minute else None
        self._tokens = _Bucket(tokens_per_minute, clock) if tokens_per_minute else None
        self._lock = asyncio.Lock()

    def rebind(self) -> None:
        """Start using a fresh lock (the previous event loop is gone)."""
        self._lock = asyncio.Lock()

    @property
    def active(self) -> bool:
        return self._requests is not None or self._tokens is not None

    @property
    def counts_tokens(self) -> bool:
        return self._tokens is not None

    async def acquire(self, tokens: int = 0) -> None:
        if not self.active:
            return
        async with self._lock:
            while True:
                wait = max(self._requests.wait_for(1) if self._requests else 0.0,
                           self._tokens.wait_for(tokens) if self._tokens else 0.0)
                if wait <= 0:
                    break
                await asyncio.sleep(wait)
            if self._requests:
                self._requests.take(1)
            if self._tokens:
                self._tokens.take(tokens)


def estimate_request_tokens(request: GenerateRequest) -> int:
    """A cheap upper-ish estimate for rate limiting: ~4 characters per token plus the completion budget."""
    chars = 0
    for m in request.messages:
        if isinstance(m.content, str):
            chars += len(m.content)
        else:
            for part in m.content:
                text = part.get("text")
                chars += len(text) if isinstance(text, str) else 4 * 765  # an image: a high-detail tile budget
    n = max(1, request.sampling.n)
    return chars // 4 + 1 + n * request.sampling.max_tokens


@dataclass
class Resilience:
    """The guard of one endpoint; share one instance between every backend that calls that endpoint."""

    endpoint: str
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    breaker: CircuitBreaker | None = None
    limiter: RateLimiter | None = None
    max_concurrency: int = 16
    seed: int | None = None
    _slots: asyncio.Semaphore | None = field(default=None, init=False, repr=False)
    _loop: asyncio.AbstractEventLoop | None = field(default=None, init=False, repr=False)
    _rng: random.Random = field(init=False, repr=False)
    retries: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if self.breaker is None:
            self.breaker = CircuitBreaker(self.endpoint)
        self._rng = random.Random(self.seed)

    @classmethod
    def for_endpoint(cls, endpoint: str, *, max_concurrency: int = 16, max_attempts: int = 4,
                     base_delay_s: float = 0.5, max_delay_s: float = 30.0, failure_threshold: int = 5,
                     cooldown_s: float = 10.0, requests_per_minute: float | None = None,
                     tokens_per_minute: float | None = None) -> Resilience:
        return cls(endpoint=endpoint,
                   retry=RetryPolicy(max_attempts=max_attempts, base_delay_s=base_delay_s, max_delay_s=max_delay_s),
                   breaker=CircuitBreaker(endpoint, failure_threshold=failure_threshold, cooldown_s=cooldown_s),
                   limiter=RateLimiter(requests_per_minute=requests_per_minute, tokens_per_minute=tokens_per_minute),
                   max_concurrency=max_concurrency)

    @property
    def counts_tokens(self) -> bool:
        """Whether `call` needs a token estimate (a tokens-per-minute limit is set)."""
        return self.limiter is not None and self.limiter.counts_tokens

    async def call(self, fn: Callable[[], Awaitable[T]], *, tokens: int = 0) -> T:
        """Run `fn` under the guard; raise the last `ModelError` (message says how many attempts) when it gives up."""
        loop = asyncio.get_running_loop()
        if self._slots is None or self._loop is not loop:  # asyncio primitives belong to one event loop
            self._slots = asyncio.Semaphore(self.max_concurrency)
            self._loop = loop
            if self.limiter is not None:
                self.limiter.rebind()
        breaker = self.breaker
        assert breaker is not None
        attempt = 0
        while True:
            attempt += 1
            try:
                breaker.before_call()
            except CircuitOpenError as e:
                error: ModelError = e
            else:
                try:
                    if self.limiter is not None and self.limiter.active:
                        await self.limiter.acquire(tokens)
                    async with self._slots:
                        result = await fn()
                except ModelError as e:
                    error = e
                    if e.retryable and not _is_rate_limit(e):
                        breaker.record_failure(str(e))
                    else:
                        breaker.release_probe()
                except BaseException:
                    breaker.release_probe()
                    raise
                else:
                    breaker.record_success()
                    return result
            if not error.retryable or attempt >= self.retry.max_attempts:
                if attempt > 1:
                    raise ModelError(f"{error} (gave up after {attempt} attempts)", retryable=error.retryable,
                                     retry_after=error.retry_after) from error
                raise error
            self.retries += 1
            wait = self.retry.delay(attempt, error.retry_after, self._rng)
            log.debug("retrying %s in %.2fs after: %s", self.endpoint, wait, error)
            await asyncio.sleep(wait)


def _is_rate_limit(e: ModelError) -> bool:
    return isinstance(e, StatusError) and (e.status == 429 or e.code == "RESOURCE_EXHAUSTED")


class StatusError(ModelError):
    """A model call failed with a protocol status (HTTP status, or a gRPC code name in `code`)."""

    def __init__(self, message: str, *, status: int | None = None, code: str = "", retryable: bool = False,
                 retry_after: float | None = None) -> None:
        super().__init__(message, retryable=retryable, retry_after=retry_after)
        self.status = status
        self.code = code


class GuardedBackend:
    """Any backend behind a `Resilience` guard (retries, breaker, limits, concurrency)."""

    def __init__(self, inner: ModelBackend, resilience: Resilience) -> None:
        self.inner = inner
        self.resilience = resilience
        self.name = inner.name

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        return await self.resilience.call(lambda: self.inner.generate(request),
                                          tokens=estimate_request_tokens(request))

    async def close(self) -> None:
        closer = getattr(self.inner, "close", None)
        if closer is not None:
            await closer()

    def __repr__(self) -> str:
        return f"GuardedBackend({self.inner!r}, endpoint={self.resilience.endpoint!r})"
