"""The HTTP API (FastAPI): submit runs and scrapes, follow a run's progress, read its leaderboard."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, HTTPException
from livetab.bus import Bus, Outgoing
from livetab.ids import content_id
from livetab.runs import build_run
from livetab.store import Store, schema
from livetab.v1 import common_pb2, run_pb2, table_pb2
from pydantic import BaseModel, ConfigDict, Field

__all__ = ["RunRequest", "ScrapeRequest", "create_app"]

log = logging.getLogger(__name__)


class ModelIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    backend: str = "llama_local"
    base_url: str = ""
    model: str = ""
    api_key_ref: str = ""
    pool: str = "remote"
    params: dict[str, str] = Field(default_factory=dict)


class SettingsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    formats: list[str] = Field(default_factory=lambda: ["markdown"])
    settings: list[str] = Field(default_factory=lambda: ["with_table"])
    samples: int = 1
    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 32
    seed: int = 0
    max_rows: int = 40
    families: list[str] = Field(default_factory=list)
    limit: int = 0


class RunRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    team: str = "local"
    release: str
    model: ModelIn
    settings: SettingsIn = Field(default_factory=SettingsIn)


class ScrapeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    source: str
    location: str
    release: str
    language: str = "en"
    options: dict[str, str] = Field(default_factory=dict)


def run_from_request(req: RunRequest) -> run_pb2.Run:
    s = req.settings
    return build_run(req.team, req.release, common_pb2.ModelSpec(**req.model.model_dump()), formats=s.formats,
                     settings=s.settings, samples=s.samples, temperature=s.temperature, top_p=s.top_p,
                     max_tokens=s.max_tokens, seed=s.seed, max_rows=s.max_rows, families=s.families, limit=s.limit)


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
