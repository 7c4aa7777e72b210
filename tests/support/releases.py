"""Releases in tests: a test that plans runs publishes its release first, through the real release handler
(the same path as `livetab release publish` in embedded mode)."""

from __future__ import annotations

from typing import Any

from livetab.store import Store
from livetab.v1 import release_pb2
from livetab_api.releases import publish_releases

__all__ = ["publish"]


def publish(store: Store, *names: str, settings: Any = None) -> list[release_pb2.ReleaseEvent]:
    """Freeze (if a draft) and publish each release; a refusal fails the test with its reason."""
    events = publish_releases(store, settings, list(names), by="test")
    refused = [e.refused for e in events if e.refused]
    assert not refused, refused
    return events
