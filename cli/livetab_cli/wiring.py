"""Which handlers make up each service, built from settings. The one place the CLI learns about services."""

from __future__ import annotations

from typing import Any

from livetab.bus import Handler
from livetab.settings import ModelSettings, Settings
from livetab.v1 import common_pb2

__all__ = ["handlers_for", "model_spec"]


def model_spec(m: ModelSettings) -> common_pb2.ModelSpec:
    params = dict(m.params)
    if m.backend == "llama_local":
        params.setdefault("n_ctx", str(m.n_ctx))
        params.setdefault("n_threads", str(m.n_threads))
    return common_pb2.ModelSpec(name=m.name, backend=m.backend, base_url=m.base_url, model=m.model or m.name,
                                api_key_ref=m.api_key_ref, pool=m.pool, params=params)


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
        from livetab_judge.handler import JudgeHandler

        return [JudgeHandler()]
    if service == "reporter":
        from livetab_reporter.handler import ReporterHandler

        return [ReporterHandler()]
    raise ValueError(f"unknown service {service!r}")
