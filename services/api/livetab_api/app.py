"""The HTTP API (FastAPI): submit runs and scrapes, follow a run's progress, read its leaderboard."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, HTTPException
from livetab.bus import Bus, Outgoing
from livetab.ids import content_id
from livetab.models.spec import model_spec
from livetab.runs import build_run
from livetab.settings import ModelSettings, RunKnobs
from livetab.store import Store, schema
from livetab.v1 import run_pb2, table_pb2
from pydantic import BaseModel, ConfigDict, Field

__all__ = ["RunRequest", "ScrapeRequest", "create_app"]

log = logging.getLogger(__name__)


class RunRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    team: str = "local"
    release: str
    model: ModelSettings
    settings: RunKnobs = Field(default_factory=RunKnobs)


class ScrapeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    source: str
    location: str
    release: str
    language: str = "en"
    options: dict[str, str] = Field(default_factory=dict)


def run_from_request(req: RunRequest) -> run_pb2.Run:
    return build_run(req.team, req.release, model_spec(req.model), **req.settings.model_dump())


def create_app(bus: Bus, store: Store) -> FastAPI:
    app = FastAPI(title="livetab", version="0.1.0")

    @app.get("/healthz")
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.post("/runs", status_code=202)
    def submit_run(req: RunRequest) -> dict[str, Any]:
        run = run_from_request(req)
        bus.publish(Outgoing("livetab.runs.v1", run, key=run.id, message_id=run.id))
        bus.flush()
        return {"run_id": run.id, "release": run.release, "model": run.model.name}

    @app.post("/scrapes", status_code=202)
    def submit_scrape(req: ScrapeRequest) -> dict[str, Any]:
        cmd = table_pb2.ScrapeCommand(id=content_id("scrape", req.source, req.location, req.release, req.language),
                                      source=req.source, location=req.location, release=req.release,
                                      language=req.language, options=req.options)
        bus.publish(Outgoing("livetab.scrapes.v1", cmd, key=cmd.id, message_id=cmd.id))
        bus.flush()
        return {"scrape_id": cmd.id}

    @app.get("/releases/{release}")
    def release(release: str) -> dict[str, Any]:
        return {"release": release, "tables": store.count(schema.tables, release=release),
                "questions": store.count(schema.questions, release=release)}

    @app.get("/runs/{rid}")
    def run_status(rid: str) -> dict[str, Any]:
        run = store.get(schema.runs, rid)
        if run is None:
            raise HTTPException(404, f"run {rid} is not planned (yet)")
        rows = [{k: r[k] for k in ("model", "slice", "n", "correct", "accuracy", "ci_low", "ci_high")}
                for r in store.select(schema.leaderboard, run_id=rid)]
        return {"run_id": rid, "release": run["release"], "model": run["model"], "planned": run["planned"],
                "answered": store.count(schema.results, run_id=rid),
                "judged": store.count(schema.judgments, run_id=rid), "leaderboard": rows}

    return app
