"""The qagen service: tables in, verified questions out."""

from __future__ import annotations

from livetab.bus import AnyHandler
from livetab.runtime import Build, Service

from livetab_qagen.handler import QagenHandler


def _handlers(build: Build) -> list[AnyHandler]:
    return [QagenHandler()]


SERVICE = Service("qagen", _handlers, description="tables -> verified questions (livetab.questions.v1)")
