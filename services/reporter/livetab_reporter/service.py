"""The reporter service: judgments in, leaderboards and report files out."""

from __future__ import annotations

from livetab.bus import AnyHandler
from livetab.runtime import Build, Service

from livetab_reporter.handler import ReporterHandler


def _handlers(build: Build) -> list[AnyHandler]:
    # a service process writes report files on a thread of their own, so consuming judgments never waits for
    # them; embedded mode writes them before its caller reads them
    return [ReporterHandler(background_files=not build.embedded)]


SERVICE = Service("reporter", _handlers, description="judgments -> leaderboards, reports and release files")
