"""A polite HTTP client for public APIs (Wikidata, MediaWiki): identify, throttle, back off, cache.

- a descriptive User-Agent with a contact (Wikimedia's User-Agent policy requires one);
- one request at a time per host, at least `min_interval_s` apart (a rate limit);
- MediaWiki's `maxlag` parameter on API calls, and its `maxlag` error answered by waiting;
- `Retry-After` honoured on 429 and 503 (seconds or an HTTP date), capped by `max_retry_after_s`;
- bounded retries with jittered exponential backoff on 429/502/503/504, timeouts and dropped connections;
- timeouts on every request, and a response cache on disk so a re-run does not hit the servers again.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from livetab.retry_after import retry_after_seconds

from livetab_scraper.sources.cache import ResponseCache, cache_key

__all__ = ["HttpError", "HttpPolicy", "HttpResponse", "PoliteClient", "RequestTimedOut", "retry_after_seconds"]

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({429, 502, 503, 504})


class HttpError(Exception):
    """A request failed for good (after any retries); `status` is None when no response came."""

    def __init__(self, url: str, status: int | None, reason: str, body: str = "") -> None:
        super().__init__(f"{url}: {reason}")
        self.url = url
        self.status = status
        self.reason = reason
        self.body = body


class RequestTimedOut(HttpError):
    """The server did not answer within the timeout (not retried when the caller said so)."""


@dataclass(frozen=True)
class HttpPolicy:
    contact: str
    agent: str = "livetab/0.1 (live table benchmark scraper)"
    timeout_s: float = 30.0
    max_retries: int = 4
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0
    max_retry_after_s: float = 300.0
    min_interval_s: float = 1.0
    maxlag_s: int = 5
    cache_dir: str | Path | None = None
    cache_ttl_s: float | None = None

    def user_agent(self) -> str:
        return f"{self.agent} (contact: {self.contact}) httpx/{httpx.__version__}"


@dataclass(frozen=True)
class HttpResponse:
    url: str
    status: int
    text: str
    headers: dict[str, str] = field(default_factory=dict)
    from_cache: bool = False

    def json(self) -> Any:
        try:
            return json.loads(self.text)
        except json.JSONDecodeError as e:
            raise HttpError(self.url, self.status, f"response is not JSON ({e})", self.text[:300]) from None


def _maxlag_error(text: str) -> str | None:
    """The `info` of a MediaWiki `{"error": {"code": "maxlag", ...}}` answer, else None."""
    if '"maxlag"' not in text:
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, dict) and err.get("code") == "maxlag":
        return str(err.get("info") or "database replication lag")
    return None


class PoliteClient:
    """Synchronous, one request at a time. `sleep`, `clock` and `rng` are injectable for tests."""

    def __init__(self, policy: HttpPolicy, *, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic, rng: random.Random | None = None) -> None:
        if not policy.contact.strip():
            raise ValueError("the HTTP client needs a contact (an e-mail address or URL) for its User-Agent; "
                             "set `contact` in the source config or LIVETAB_CONTACT")
        self.policy = policy
        self._sleep = sleep
        self._clock = clock
        self._rng = rng or random.Random()
        self._last: dict[str, float] = {}
        self.cache = ResponseCache(policy.cache_dir, policy.cache_ttl_s) if policy.cache_dir else None
        self.requests = 0
        self.retries = 0
        self.waited_s = 0.0
        self._client = httpx.Client(timeout=httpx.Timeout(policy.timeout_s), follow_redirects=True,
                                    headers={"User-Agent": policy.user_agent()})

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> PoliteClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _wait(self, seconds: float, why: str) -> None:
        if seconds > 0:
            log.debug("waiting %.3f s: %s", seconds, why)
            self.waited_s += seconds
            self._sleep(seconds)

    def _take_turn(self, host: str) -> None:
        last = self._last.get(host)
        if last is not None:
            self._wait(last + self.policy.min_interval_s - self._clock(), f"rate limit for {host}")
        self._last[host] = self._clock()

    def _backoff(self, attempt: int) -> float:
        p = self.policy
        return float(min(p.backoff_max_s, p.backoff_base_s * 2 ** attempt) * (0.5 + 0.5 * self._rng.random()))

    def _server_delay(self, url: str, response: httpx.Response, attempt: int) -> float:
        asked = retry_after_seconds(response.headers.get("Retry-After"))
        if asked is None:
            return self._backoff(attempt)
        if asked > self.policy.max_retry_after_s:
            raise HttpError(url, response.status_code,
                            f"server asked to retry after {asked:.0f} s, more than max_retry_after_s="
                            f"{self.policy.max_retry_after_s:.0f}")
        return asked * (1.0 + 0.1 * self._rng.random())

    def get(self, url: str, params: Mapping[str, Any] | None = None, *, accept: str = "application/json",
            mediawiki: bool = False, retry_on_timeout: bool = True, use_cache: bool = True) -> HttpResponse:
        """GET with the policy applied. `mediawiki=True` adds `maxlag` and recognises maxlag errors."""
        query = {str(k): str(v) for k, v in (params or {}).items()}
        if mediawiki and self.policy.maxlag_s > 0:
            query.setdefault("maxlag", str(self.policy.maxlag_s))
        key = cache_key("GET", url, {k: v for k, v in query.items() if k != "maxlag"})
        if use_cache and self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return HttpResponse(url=hit.url, status=hit.status, text=hit.text, headers=hit.headers,
                                    from_cache=True)
        host = urlsplit(url).netloc
        last_reason = ""
        for attempt in range(self.policy.max_retries + 1):
            final = attempt == self.policy.max_retries
            self._take_turn(host)
            self.requests += 1
            try:
                r = self._client.get(url, params=query, headers={"Accept": accept})
            except httpx.TimeoutException as e:
                last_reason = f"timed out after {self.policy.timeout_s} s ({type(e).__name__})"
                if not retry_on_timeout or final:
                    raise RequestTimedOut(url, None, last_reason) from None
                delay = self._backoff(attempt)
            except httpx.TransportError as e:
                last_reason = f"connection failed: {e}"
                if final:
                    raise HttpError(url, None, last_reason) from None
                delay = self._backoff(attempt)
            else:
                text = r.text
                lag = _maxlag_error(text) if mediawiki else None
                if r.status_code in RETRY_STATUSES or lag is not None:
                    last_reason = f"maxlag: {lag}" if lag is not None else f"HTTP {r.status_code}"
                    if final:
                        raise HttpError(url, r.status_code, f"gave up after {attempt + 1} attempts: {last_reason}",
                                        text[:500])
                    delay = self._server_delay(url, r, attempt)
                elif r.status_code >= 400:
                    raise HttpError(url, r.status_code, f"HTTP {r.status_code}", text[:2000])
                else:
                    headers = {k.lower(): v for k, v in r.headers.items()
                               if k.lower() in ("content-type", "etag", "last-modified", "content-location")}
                    if use_cache and self.cache is not None:
                        self.cache.put(key, r.status_code, text, headers, str(r.url))
                    return HttpResponse(url=str(r.url), status=r.status_code, text=text, headers=headers)
            self.retries += 1
            log.info("retrying %s in %.2f s (attempt %d): %s", url, delay, attempt + 1, last_reason)
            self._wait(delay, last_reason)
        raise HttpError(url, None, f"gave up: {last_reason}")  # not reached: the last attempt raises
