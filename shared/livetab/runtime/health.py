"""Health routes for every served service: `/healthz` (liveness: every worker loop alive) and `/readyz`
(readiness: workers alive and the store reachable), so an orchestrator can probe a service that has no API
of its own. A service with HTTP routes of its own (the api) serves the same two."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI
from fastapi.responses import JSONResponse

from livetab.bus import Worker
from livetab.store import Store, schema

__all__ = ["add_health_routes", "health_app", "worker_states"]


def worker_states(workers: Sequence[Any]) -> list[dict[str, Any]]:
    return [{"group": getattr(w, "group", "?"), "alive": bool(w.alive), "failure": w.failure} for w in workers]


def add_health_routes(app: FastAPI, workers: Sequence[Any], store: Store) -> None:
    @app.get("/healthz")
    def healthz() -> JSONResponse:
        states = worker_states(workers)
        ok = all(s["alive"] for s in states)
        return JSONResponse({"status": "ok" if ok else "failing", "workers": states}, status_code=200 if ok else 503)

    @app.get("/readyz")
    def readyz() -> JSONResponse:
        states = worker_states(workers)
        problems = [f"worker {s['group']} stopped: {s['failure']}" for s in states if not s["alive"]]
        try:
            store.count(schema.runs, id="")
        except Exception as e:  # the store is part of being ready
            problems.append(f"store unreachable: {type(e).__name__}")
        body = {"status": "failing" if problems else "ready", "workers": states, "problems": problems}
        return JSONResponse(body, status_code=503 if problems else 200)


def health_app(name: str, workers: Sequence[Worker], store: Store) -> FastAPI:
    app = FastAPI(title=f"livetab {name}", docs_url=None, redoc_url=None, openapi_url=None)
    add_health_routes(app, workers, store)
    return app
