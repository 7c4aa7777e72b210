"""Who may call what: Bearer tokens (livetab_api.teams), role and scope checks, a per-token rate limit.

Every route but /healthz and /readyz needs a token: those two say only whether the process and its workers
are up, and the kubelet probes them without one. With `api.auth` off (a private test harness only) every
request acts as a local admin of team "local" and the body's `team` is used.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

from fastapi import HTTPException, Request
from livetab.settings import ApiSettings
from livetab.store import Store

from livetab_api.teams import Principal, parse_token, verify_token

__all__ = ["LOCAL", "Authenticator", "RateLimiter", "require"]

LOCAL = Principal(member="local", team="local", role="admin", token_id="", scopes=frozenset(
    {"read", "submit", "review", "admin"}))
PUBLIC_PATHS = frozenset({"/healthz", "/readyz"})


class RateLimiter:
    """A token bucket per key: `burst` requests at once, refilled at `per_minute`."""

    def __init__(self, per_minute: float, burst: int) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str, now: float | None = None) -> float:
        """0 when the request may go ahead, else the seconds until it may."""
        t = time.monotonic() if now is None else now
        with self._lock:
            level, at = self._buckets.get(key, (self.burst, t))
            level = min(self.burst, level + (t - at) * self.rate)
            if level >= 1:
                self._buckets[key] = (level - 1, t)
                return 0.0
            self._buckets[key] = (level, t)
            return (1 - level) / self.rate


class Authenticator:
    def __init__(self, store: Store, settings: ApiSettings) -> None:
        self.store = store
        self.enabled = settings.auth
        self.limiter = RateLimiter(settings.rate_per_minute, settings.rate_burst)
        self.failures = RateLimiter(settings.auth_failures_per_minute, settings.auth_failures_per_minute)
        self._blocked: dict[str, float] = {}
        self._checked: dict[str, tuple[str, str]] = {}

    def principal(self, request: Request) -> Principal:
        """The caller, or 401 (no, malformed, unknown, expired or revoked token) / 429 (over its rate)."""
        if not self.enabled:
            request.state.principal = LOCAL
            return LOCAL
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise HTTPException(401, "an API token is required: Authorization: Bearer <token> (livetab token create)",
                                headers={"WWW-Authenticate": "Bearer"})
        token = token.strip()
        parsed = parse_token(token)
        key = parsed[0] if parsed else f"addr:{request.client.host if request.client else ''}"
        now = time.monotonic()
        if self._blocked.get(key, 0.0) > now:
            raise HTTPException(429, "too many refused tokens; retry later (api.auth_failures_per_minute)",
                                headers={"Retry-After": str(max(1, math.ceil(self._blocked[key] - now)))})
        who, why = verify_token(self.store, token, checked=self._checked)
        if who is None:
            wait = self.failures.take(key, now)
            if wait > 0:
                self._blocked[key] = now + wait
            raise HTTPException(401, f"{why}", headers={"WWW-Authenticate": 'Bearer error="invalid_token"'})
        request.state.principal = who
        wait = self.limiter.take(who.token_id)
        if wait > 0:
            raise HTTPException(429, "too many requests for this token (api.rate_per_minute); retry later",
                                headers={"Retry-After": str(max(1, math.ceil(wait)))})
        return who


def require(auth: Authenticator, scope: str, *, admin: bool = False) -> Callable[[Request], Principal]:
    """A FastAPI dependency: the caller, who must hold `scope` (and be an admin when `admin`), else 403."""

    def dependency(request: Request) -> Principal:
        who = auth.principal(request)
        if scope not in who.scopes:
            raise HTTPException(403, f"this token lacks the {scope!r} scope")
        if admin and not who.is_admin:
            raise HTTPException(403, "admins only")
        return who

    return dependency
