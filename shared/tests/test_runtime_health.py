"""Every served service answers the health probes: a service without routes of its own gets /healthz and
/readyz from the runtime, failing (503) once a worker has stopped or the store is gone."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from fastapi.testclient import TestClient
from livetab.runtime.health import health_app
from livetab.store import open_store


def test_health_routes_report_workers_and_store(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 's.db'}")
    worker = SimpleNamespace(group="livetab-judge", alive=True, failure=None)
    client = TestClient(health_app("judge", [worker], store))  # type: ignore[list-item]
    assert client.get("/healthz").status_code == 200
    assert client.get("/readyz").json()["status"] == "ready"
    worker.alive, worker.failure = False, "RuntimeError: boom"
    assert client.get("/healthz").status_code == 503
    body = client.get("/readyz").json()
    assert body["problems"] == ["worker livetab-judge stopped: RuntimeError: boom"]
    worker.alive, worker.failure = True, None
    store.engine.dispose()
    Path(tmp_path / "s.db").unlink()
    (tmp_path / "s.db").mkdir()  # the file is gone and its path cannot be opened as a database
    assert "store unreachable" in client.get("/readyz").json()["problems"][0]
