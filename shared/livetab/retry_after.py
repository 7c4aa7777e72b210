"""Reading an HTTP `Retry-After` header: one definition for every client livetab has."""

from __future__ import annotations

import email.utils
import time
from datetime import UTC, datetime

__all__ = ["retry_after_seconds"]


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """`Retry-After` as seconds to wait: either delta-seconds or an HTTP date; None if absent/unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    ref = datetime.fromtimestamp(now if now is not None else time.time(), tz=UTC)
    return max(0.0, (when - ref).total_seconds())
