"""The reporter service: judgments in, leaderboards and report files out."""

from __future__ import annotations

from livetab.bus import AnyHandler
from livetab.runtime import Build, Service

from livetab_reporter.handler import ReporterHandler


def _handlers(build: Build) -> list[AnyHandler]:
    return [ReporterHandler()]


SERVICE = Service("reporter", _handlers, description="judgments -> leaderboards, reports and release files")
