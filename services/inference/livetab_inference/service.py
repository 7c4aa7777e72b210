"""The inference service: inference requests in (one topic per worker pool), model answers out."""

from __future__ import annotations

from livetab.bus import AnyHandler
from livetab.netguard import NetPolicy
from livetab.runtime import Build, Service

from livetab_inference.handler import InferenceHandler


def _handlers(build: Build) -> list[AnyHandler]:
    timeout = max((m.timeout_s for m in build.settings.models), default=120.0)
    guard = build.settings.guard
    # submitted endpoints re-checked at every connect; those the admin configured (settings.models) are trusted
    net = NetPolicy.of(guard.allow, guard.cluster_cidrs, trusted=[m.base_url for m in build.settings.models if m.base_url],
                       max_response_bytes=guard.max_response_bytes)
    return [InferenceHandler(build.backends, timeout_s=timeout, pool=build.pool, net=net)]


SERVICE = Service("inference", _handlers, description="requests -> model answers, many in flight per endpoint")
