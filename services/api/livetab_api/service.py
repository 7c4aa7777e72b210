"""The api service: the HTTP API, run admission and planning (runs in, inference requests out)."""

from __future__ import annotations

from typing import Any

from livetab.bus import AnyHandler
from livetab.runtime import Build, HttpParts, Service

from livetab_api.planner import PlannerHandler
from livetab_api.releases import ReleaseHandler


def _handlers(build: Build) -> list[AnyHandler]:
    return [PlannerHandler(), ReleaseHandler()]


def _http(parts: HttpParts) -> Any:
    from livetab_api.app import create_app
    from livetab_api.watch import RunWatch

    watch = RunWatch()
    watch.start(parts.bus)  # long polls of a run's status hear of its leaderboard updates
    return create_app(parts.bus, parts.store, parts.settings.api, workers=parts.workers, guard=parts.settings.guard,
                      watch=watch)


SERVICE = Service("api", _handlers, http=_http, description="HTTP API, admission, releases and run planning")
