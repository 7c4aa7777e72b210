"""Releases in tests: a test that plans runs publishes its release first, through the real release handler
(the same path as `livetab release publish` in embedded mode)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from livetab.store import Store
from livetab.v1 import release_pb2
from livetab_api.releases import publish_releases

__all__ = ["publish", "publish_over_http"]


def publish(store: Store, *names: str, settings: Any = None) -> list[release_pb2.ReleaseEvent]:
    """Freeze (if a draft) and publish each release; a refusal fails the test with its reason."""
    events = publish_releases(store, settings, list(names), by="test")
    refused = [e.refused for e in events if e.refused]
    assert not refused, refused
    return events


def publish_over_http(api: str, release: str, timeout_s: float = 60.0,
                      headers: dict[str, str] | None = None, log: Path | None = None) -> dict[str, Any]:
    """POST /releases/{release}/publish to a running api service and wait until it reports the release live;
    returns its GET /releases/{release} document. `log`: the api's log file, whose tail a timeout shows (what
    its release worker did, or why it did not)."""
    import time

    import httpx

    r = httpx.post(f"{api}/releases/{release}/publish", headers=headers)
    assert r.status_code == 202, r.text
    deadline = time.monotonic() + timeout_s
    while True:
        doc: dict[str, Any] = httpx.get(f"{api}/releases/{release}", headers=headers).json()
        if doc.get("status") == "live":
            return doc
        if time.monotonic() >= deadline:
            tail = log.read_text(errors="replace")[-6000:] if log is not None and log.exists() else ""
            raise AssertionError(f"release {release} is not live after {timeout_s:.0f}s: {doc}"
                                 + (f"\n--- {log.name} (tail) ---\n{tail}" if tail else ""))
        time.sleep(0.3)
