"""The judge service: model answers in, judgments out; re-judging commands (`livetab judge --again`)."""

from __future__ import annotations

from livetab.bus import AnyHandler
from livetab.runtime import Build, Service

from livetab_judge.commands import JudgeCommandHandler
from livetab_judge.handler import JudgeHandler


def _handlers(build: Build) -> list[AnyHandler]:
    judge = JudgeHandler(build.settings.judge)
    return [judge, JudgeCommandHandler(judge)]


SERVICE = Service("judge", _handlers, description="answers -> judgments (rule judge, LLM judges, insight judge)")
