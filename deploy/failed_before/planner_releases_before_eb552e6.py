"""3b2af9f:services/api/tests/test_planner_releases.py::test_the_api_refuses_a_run_on_a_release_that_is_not_live_with_409
adapted to the code before the release lifecycle (42dd706, before ef62f16/eb552e6): the README's order
(POST /scrapes, then POST /runs at once) submitted a run while the release's questions were still arriving, and
it was planned over the few stored so far. Adaptations: only the test's first part is kept (the run on a
release whose questions are still arriving, i.e. not published, is refused with 409 and reaches no planner);
its second part drives the release routes and `livetab.releases`, which did not exist; RUNS is the topic's
name (livetab.topics had no constant for it)."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from livetab.bus import InProcBus
from livetab.records import question_row
from livetab.settings import ApiSettings
from livetab.store import Store, open_store, schema
from livetab.topics import TOPICS
from livetab.v1 import question_pb2
from livetab_api.app import create_app

RUNS = "livetab.runs.v1"  # adaptation: livetab.topics had no name constants before eb552e6


def _store(tmp_path: Path, *releases: str) -> Store:
    store = open_store(f"sqlite:///{tmp_path / 'plan.db'}")
    for r in releases:
        store.upsert(schema.questions, [question_row(question_pb2.Question(
            id=f"q_{r}_{i}", table_id=f"t{i}", family="direct", text="?", status="verified", release=r))
            for i in range(3)])
    return store


def test_the_api_refuses_a_run_on_a_release_that_is_not_live_with_409(tmp_path: Path) -> None:
    store = _store(tmp_path, "r")
    bus = InProcBus(known_topics={t.name for t in TOPICS})
    client = TestClient(create_app(bus, store, ApiSettings()))
    body = {"release": "r", "model": {"name": "m"}}
    r = client.post("/runs", json=body)
    assert r.status_code == 409 and "is a draft" in r.json()["detail"], r.text
    r = client.post("/runs", json={**body, "release": "nope"})
    assert r.status_code == 409 and "'nope' is unknown" in r.json()["detail"]
    store.upsert(schema.questions, [question_row(question_pb2.Question(  # stored, never seen by the handler
        id="q_old_0", table_id="t", family="direct", text="?", status="verified", release="old"))])
    r = client.post("/runs", json={**body, "release": "old"})
    assert r.status_code == 409 and "'old' is a draft" in r.json()["detail"]
    assert bus.records(RUNS) == []  # nothing reached the planner
