"""Which handlers make up each service, built from settings. The one place the CLI learns about services."""

from __future__ import annotations

from typing import Any

from livetab.bus import Handler
from livetab.settings import Settings

__all__ = ["handlers_for"]


def handlers_for(service: str, settings: Settings, **kw: Any) -> list[Handler]:
    if service == "scraper":
        from livetab_scraper.handler import ScraperHandler

        return [ScraperHandler()]
    if service == "qagen":
        from livetab_qagen.handler import QagenHandler

        return [QagenHandler()]
    if service == "api":
        from livetab_api.planner import PlannerHandler

        return [PlannerHandler()]
    if service == "inference":
        from livetab_inference.handler import InferenceHandler

        timeout = max((m.timeout_s for m in settings.models), default=120.0)
        return [InferenceHandler(kw.get("backends"), timeout_s=timeout, pool=kw.get("pool") or "")]
    if service == "judge":
        from livetab_judge.commands import JudgeCommandHandler
        from livetab_judge.handler import JudgeHandler

        judge = JudgeHandler(settings.judge)
        return [judge, JudgeCommandHandler(judge)]
    if service == "reporter":
        from livetab_reporter.handler import ReporterHandler

        return [ReporterHandler()]
    raise ValueError(f"unknown service {service!r}")
