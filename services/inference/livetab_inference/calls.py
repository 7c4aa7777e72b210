"""One model call: the only place the inference service sends a request to an endpoint.

The service's handler (livetab_inference.handler) calls `call_model` once per request, from the coroutines
the in-flight worker keeps running (livetab.bus.inflight); the benchmarks run that same service path. A
call ends in completions or in an error with its reason and a short kind for counting; nothing a backend
raises (but cancellation) escapes, so every request gets its result. Retries, the circuit breaker, rate
limits and the per-endpoint concurrency live in the backend's `Resilience` (the registry guards every
remote backend). Latency (p50/p95/p99 from a log-bucketed histogram of bounded size), tokens and error
kinds are kept per model (`ModelStats`).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from livetab.models.base import Completion, GenerateRequest, ModelBackend, ModelError
from livetab.models.resilience import CircuitOpenError, StatusError

__all__ = ["CallOutcome", "LatencyHistogram", "ModelStats", "call_model", "error_kind"]

log = logging.getLogger(__name__)


@dataclass
class CallOutcome:
    completions: list[Completion]
    error: str = ""               # empty when the call succeeded; otherwise the reason it failed
    error_kind: str = ""          # http_429, http_5xx, timeout, circuit_open, ... (see `error_kind`)
    latency_ms: float = 0.0

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
    prompt_tokens: int = 0
    completion_tokens: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    latency: LatencyHistogram = field(default_factory=LatencyHistogram)

    def add(self, outcome: CallOutcome) -> None:
        self.requests += 1
        if outcome.ok:
            self.succeeded += 1
            for c in outcome.completions:
                self.prompt_tokens += c.prompt_tokens
                self.completion_tokens += c.completion_tokens
            self.latency.add(outcome.latency_ms)
        else:
            self.failed += 1
            self.errors[outcome.error_kind] += 1

    def to_dict(self) -> dict[str, Any]:
        lat = self.latency
        return {
            "requests": self.requests, "succeeded": self.succeeded, "failed": self.failed,
            "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
            "errors": dict(self.errors),
            "latency_p50_ms": round(lat.percentile(50), 3), "latency_p95_ms": round(lat.percentile(95), 3),
            "latency_p99_ms": round(lat.percentile(99), 3), "latency_max_ms": round(lat.max_ms, 3),
            "latency_mean_ms": round(lat.total_ms / lat.count, 3) if lat.count else 0.0,
        }


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
    if isinstance(e, TimeoutError):
        return "timeout"
    if isinstance(e, ModelError):
        return "model_error"
    return type(e).__name__


async def call_model(backend: ModelBackend, request: GenerateRequest, *, model: str, timeout_s: float,
                     stats: ModelStats | None = None) -> CallOutcome:
    """Send `request` to `backend`, waiting at most `timeout_s` (retries included); the completions, or the
    error that ended the call. A backend bug (any other exception) is logged (its traceback at DEBUG) and
    recorded as the request's error, never lost; cancellation propagates."""
    t0 = time.perf_counter()
    try:
        async with asyncio.timeout(timeout_s):  # no extra task per call, unlike wait_for
            completions = await backend.generate(request)
        outcome = CallOutcome(completions)
    except TimeoutError as e:
        outcome = CallOutcome([], f"timeout: no answer from {model} within {timeout_s:.0f}s", error_kind(e))
    except ModelError as e:
        outcome = CallOutcome([], f"model error: {e}", error_kind(e))
    except (asyncio.CancelledError, KeyboardInterrupt, SystemExit):
        raise
    except Exception as e:  # the traceback at DEBUG: a client torn down mid-call (Ctrl-C, shutdown) lands here too
        log.error("backend %s raised %s: %s", model, type(e).__name__, e)
        log.debug("backend %s traceback", model, exc_info=True)
        outcome = CallOutcome([], f"{type(e).__name__}: {e}", error_kind(e))
    outcome.latency_ms = (time.perf_counter() - t0) * 1000.0
    if stats is not None:
        stats.add(outcome)
    if not outcome.ok:
        log.warning("a request to %s failed: %s", model, outcome.error)
    return outcome
