"""The asynchronous request loop: many model calls in flight, bounded memory, nothing lost.

`run_requests` keeps `concurrency` calls in flight against one backend (one endpoint). Items are pulled
from the source only when a worker is free (a plain iterable) or through a bounded queue (an async
iterable), so however many requests wait upstream, only about `concurrency` are held here. Every item
ends in exactly one `RequestResult`: completions, or an error with its reason. Latency (p50/p95/p99,
from a log-bucketed histogram of bounded size) and token counts are kept per model.

Retries, the circuit breaker and rate limits live in the backend's `Resilience` (the registry guards
every remote backend); pass `resilience=` here only for a backend that has no guard of its own.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import math
import time
from collections import Counter
from collections.abc import AsyncIterable, Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from livetab.models.base import Completion, GenerateRequest, ModelBackend, ModelError
from livetab.models.resilience import CircuitOpenError, Resilience, StatusError, estimate_request_tokens
from livetab.reasoning import split_completion

__all__ = ["LatencyHistogram", "ModelStats", "RequestResult", "RunReport", "WorkItem", "error_kind",
           "run_requests"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WorkItem:
    key: str                      # the request id; results carry it back
    request: GenerateRequest
    model: str = ""               # the name statistics are kept under; the backend's name when empty
    meta: Any = None              # passed through untouched (e.g. the InferenceRequest message)


@dataclass
class RequestResult:
    key: str
    model: str
    completions: list[Completion]
    error: str = ""               # empty when the call succeeded; otherwise the reason it failed
    error_kind: str = ""
    latency_ms: float = 0.0
    meta: Any = None

    @property
    def ok(self) -> bool:
        return not self.error


class LatencyHistogram:
    """Latencies in buckets 1% wide on a log scale: percentiles within 0.5%, memory independent of count."""

    _STEP = math.log(1.01)

    def __init__(self) -> None:
        self.buckets: Counter[int] = Counter()
        self.count = 0
        self.total_ms = 0.0
        self.max_ms = 0.0

    def add(self, ms: float) -> None:
        self.buckets[math.ceil(math.log(max(ms, 0.001)) / self._STEP)] += 1
        self.count += 1
        self.total_ms += ms
        self.max_ms = max(self.max_ms, ms)

    def percentile(self, p: float) -> float:
        """Nearest-rank percentile (0 < p <= 100); 0.0 when empty."""
        if not self.count:
            return 0.0
        rank = max(1, math.ceil(p / 100.0 * self.count))
        seen = 0
        for index in sorted(self.buckets):
            seen += self.buckets[index]
            if seen >= rank:
                return min(self.max_ms, math.exp((index - 0.5) * self._STEP))
        return self.max_ms  # pragma: no cover - unreachable


@dataclass
class ModelStats:
    requests: int = 0
    succeeded: int = 0
    failed: int = 0
    completions: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    latency: LatencyHistogram = field(default_factory=LatencyHistogram)

    def to_dict(self) -> dict[str, Any]:
        lat = self.latency
        return {
            "requests": self.requests, "succeeded": self.succeeded, "failed": self.failed,
            "completions": self.completions, "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens, "errors": dict(self.errors),
            "latency_p50_ms": round(lat.percentile(50), 3), "latency_p95_ms": round(lat.percentile(95), 3),
            "latency_p99_ms": round(lat.percentile(99), 3), "latency_max_ms": round(lat.max_ms, 3),
            "latency_mean_ms": round(lat.total_ms / lat.count, 3) if lat.count else 0.0,
        }


@dataclass
class RunReport:
    models: dict[str, ModelStats] = field(default_factory=dict)
    elapsed_s: float = 0.0

    @property
    def requests(self) -> int:
        return sum(s.requests for s in self.models.values())

    @property
    def failed(self) -> int:
        return sum(s.failed for s in self.models.values())

    def to_dict(self) -> dict[str, Any]:
        return {"elapsed_s": round(self.elapsed_s, 3), "requests": self.requests, "failed": self.failed,
                "models": {name: s.to_dict() for name, s in self.models.items()}}


def error_kind(e: BaseException) -> str:
    """A short class for an error, for counting: http_429, http_5xx, timeout, invalid_response, circuit_open..."""
    if isinstance(e, CircuitOpenError):
        return "circuit_open"
    cause = e.__cause__ if isinstance(e.__cause__, ModelError) else e
    if isinstance(cause, CircuitOpenError):
        return "circuit_open"
    if isinstance(cause, StatusError):
        if cause.code:
            return f"grpc_{cause.code.lower()}"
        if cause.status == 200:
            return "invalid_response"
        if cause.status is not None:
            return "http_429" if cause.status == 429 else f"http_{cause.status // 100}xx"
        text = str(cause)
        if text.startswith("timeout"):
            return "timeout"
        if text.startswith(("connection", "client error")):
            return "connection"
    if isinstance(e, ModelError):
        return "model_error"
    return type(e).__name__


OnResult = Callable[[RequestResult], Awaitable[None] | None]


async def run_requests(backend: ModelBackend, items: Iterable[WorkItem] | AsyncIterable[WorkItem], *,
                       concurrency: int = 16, on_result: OnResult | None = None, queue_size: int | None = None,
                       resilience: Resilience | None = None, split_thinking: bool = True) -> RunReport:
    """Send every item's request; call `on_result` once per item (success or recorded failure).

    An exception raised by `on_result` stops the run and propagates (the caller's bug, never swallowed);
    a cancelled run leaves the items in flight without results, so a restart sends them again.
    """
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    report = RunReport()
    started = time.perf_counter()
    default_model = getattr(backend, "name", "model")

    def call(request: GenerateRequest) -> Awaitable[list[Completion]]:
        if resilience is None:
            return backend.generate(request)
        tokens = estimate_request_tokens(request) if resilience.counts_tokens else 0
        return resilience.call(lambda: backend.generate(request), tokens=tokens)

    async def handle(item: WorkItem) -> None:
        model = item.model or default_model
        stats = report.models.get(model)
        if stats is None:
            stats = report.models[model] = ModelStats()
        t0 = time.perf_counter()
        try:
            completions = await call(item.request)
        except ModelError as e:
            result = RequestResult(item.key, model, [], error=str(e) or type(e).__name__, error_kind=error_kind(e),
                                   meta=item.meta)
        except (asyncio.CancelledError, KeyboardInterrupt, SystemExit):
            raise
        except Exception as e:  # a backend bug must not lose the request: record it, with its traceback in the log
            log.exception("backend %s raised on %s", model, item.key)
            result = RequestResult(item.key, model, [], error=f"{type(e).__name__}: {e}", error_kind=error_kind(e),
                                   meta=item.meta)
        else:
            if split_thinking:
                completions = [split_completion(c) for c in completions]
            result = RequestResult(item.key, model, completions, meta=item.meta)
        result.latency_ms = (time.perf_counter() - t0) * 1000.0
        stats.requests += 1
        if result.ok:
            stats.succeeded += 1
            stats.completions += len(result.completions)
            for c in result.completions:
                stats.prompt_tokens += c.prompt_tokens
                stats.completion_tokens += c.completion_tokens
            stats.latency.add(result.latency_ms)
        else:
            stats.failed += 1
            stats.errors[result.error_kind] += 1
            log.warning("request %s to %s failed: %s", item.key, model, result.error)
        if on_result is not None:
            maybe = on_result(result)
            if inspect.isawaitable(maybe):
                await maybe

    if isinstance(items, AsyncIterable):
        await _run_from_async(items, handle, concurrency, queue_size or 2 * concurrency)
    else:
        await _run_from_iterator(iter(items), handle, concurrency)
    report.elapsed_s = time.perf_counter() - started
    return report


async def _run_from_iterator(it: Iterator[WorkItem], handle: Callable[[WorkItem], Awaitable[None]],
                             concurrency: int) -> None:
    # Workers pull the next item only when free: the iterator is the queue, and it is never read ahead.
    async def worker() -> None:
        for item in it:
            await handle(item)

    await _all_or_nothing([worker() for _ in range(concurrency)])


async def _run_from_async(source: AsyncIterable[WorkItem], handle: Callable[[WorkItem], Awaitable[None]],
                          concurrency: int, queue_size: int) -> None:
    queue: asyncio.Queue[WorkItem | None] = asyncio.Queue(maxsize=queue_size)

    async def produce() -> None:
        async for item in source:
            await queue.put(item)  # blocks while the queue is full: backpressure on the source
        for _ in range(concurrency):
            await queue.put(None)

    async def worker() -> None:
        while (item := await queue.get()) is not None:
            await handle(item)

    await _all_or_nothing([produce(), *(worker() for _ in range(concurrency))])


async def _all_or_nothing(coros: list[Awaitable[None]]) -> None:
    """Run all; on the first exception cancel the rest and raise that exception itself."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    try:
        done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    except asyncio.CancelledError:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    for t in pending:
        t.cancel()
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)
    for t in done:
        if not t.cancelled() and t.exception() is not None:
            raise t.exception()  # type: ignore[misc]
