"""Cancelling a run (POST /runs/{id}/cancel): a team cancels its own run, not another's (404, as if absent),
an admin any; a second cancel changes nothing; the run then shows status "cancelled" and counts as complete;
each cancel is in the audit log; and the planner does not plan a cancelled run again."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from livetab.bus import HandlerContext, InProcBus
from livetab.records import run_row
from livetab.runs import build_run
from livetab.settings import ApiSettings, Settings
from livetab.store import Store, open_store, schema
from livetab.topics import TOPICS
from livetab.v1 import common_pb2
from livetab_api.app import create_app
from livetab_api.planner import PlannerHandler

from tests.support.tokens import bearer


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Store, TestClient]:
    store = open_store(f"sqlite:///{tmp_path / 'cancel.db'}")
    for rid, team in (("run-a", "alpha"), ("run-b", "beta")):
        store.upsert(schema.runs, [{"id": rid, "team": team, "model": "m", "release": "r", "planned": 4,
                                    "payload": b"", "refused": ""}])
    bus = InProcBus(known_topics={t.name for t in TOPICS})
    return store, TestClient(create_app(bus, store, ApiSettings()), raise_server_exceptions=False)


def test_a_team_cancels_its_own_run_once_and_not_another_teams(setup: tuple[Store, TestClient]) -> None:
    store, client = setup
    alpha = bearer(store, team="alpha", role="member")
    assert client.get("/runs/run-a", headers=alpha).json()["status"] == "running"
    r = client.post("/runs/run-a/cancel", headers=alpha)
    assert r.status_code == 200 and (r.json()["status"], r.json()["complete"]) == ("cancelled", True)
    first = store.get(schema.runs, "run-a")["cancelled_at"]  # type: ignore[index]
    assert first is not None
    again = client.post("/runs/run-a/cancel", headers=alpha)  # idempotent: the first cancel's time stays
    assert again.status_code == 200 and store.get(schema.runs, "run-a")["cancelled_at"] == first  # type: ignore[index]
    assert client.get("/runs/run-a", headers=alpha).json()["status"] == "cancelled"
    other = client.post("/runs/run-b/cancel", headers=alpha)
    assert other.status_code == 404 and "beta" not in other.text
    assert store.get(schema.runs, "run-b")["cancelled_at"] is None  # type: ignore[index]
    assert client.post("/runs/no-such/cancel", headers=alpha).status_code == 404
    admin = bearer(store, team="ops", role="admin")
    assert client.post("/runs/run-b/cancel", headers=admin).json()["status"] == "cancelled"
    audit = [(a["action"], a["target"], a["status"]) for a in store.select(schema.audit_log)]
    assert ("POST /runs/run-a/cancel", "run-a", 200) in audit and ("POST /runs/run-b/cancel", "run-b", 404) in audit


def test_the_planner_does_not_plan_a_cancelled_run(setup: tuple[Store, TestClient]) -> None:
    store, client = setup
    run = build_run("alpha", "r", common_pb2.ModelSpec(name="m"))
    store.upsert(schema.runs, [run_row(run, 0)])
    assert client.post(f"/runs/{run.id}/cancel", headers=bearer(store, team="alpha", role="member")).status_code == 200
    ctx = HandlerContext(store=store, settings=Settings(), topic_exists=lambda _: True)
    assert PlannerHandler().handle(run, ctx) == []  # a redelivery after the cancel: nothing planned, not refused
    row = store.get(schema.runs, run.id)
    assert row is not None and row["refused"] == "" and row["cancelled_at"] is not None
