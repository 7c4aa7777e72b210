"""The planner plans only a live release, over its frozen question set; a run against a draft, frozen,
retired or unknown release is refused with its reason (failures row, run row marked, nothing published),
and the HTTP API refuses it with 409 before publishing. The release routes show and move releases."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from livetab import releases as rel
from livetab.bus import HandlerContext, InProcBus, Outgoing, Worker
from livetab.records import question_row
from livetab.runs import build_run
from livetab.settings import ApiSettings
from livetab.store import Store, open_store, schema
from livetab.topics import RELEASE_COMMANDS, RUNS, TOPICS
from livetab.v1 import common_pb2, question_pb2, run_pb2
from livetab_api.app import create_app, run_progress
from livetab_api.planner import PlannerHandler
from livetab_api.releases import ReleaseHandler, apply_commands, release_command

from tests.support.releases import publish
from tests.support.tokens import bearer

SPEC = common_pb2.ModelSpec(name="m", backend="openai", model="m")


def _store(tmp_path: Path, *releases: str) -> Store:
    store = open_store(f"sqlite:///{tmp_path / 'plan.db'}")
    for r in releases:
        store.upsert(schema.questions, [question_row(question_pb2.Question(
            id=f"q_{r}_{i}", table_id=f"t{i}", family="direct", text="?", status="verified", release=r))
            for i in range(3)])
    return store


def _plan(store: Store, run: run_pb2.Run) -> list[str]:
    bus = InProcBus()
    bus.publish(Outgoing(RUNS, run, key=run.id, message_id=run.id))
    Worker(PlannerHandler(), bus, HandlerContext(store=store, settings=None), poll_timeout_s=0).run(until_idle=True)
    assert bus.records("livetab.dlq.v1") == []
    return sorted(r.topic for r in bus.records("livetab.inference.requests.v1"))


@pytest.mark.parametrize(("steps", "says"), [
    ([], "is unknown"),
    (["draft"], "is a draft"),
    (["draft", "freeze"], "is frozen but not live"),
    (["draft", "publish", "retire"], "is retired"),
])
def test_a_run_on_a_release_that_is_not_live_is_refused_and_recorded(tmp_path: Path, steps: list[str],
                                                                     says: str) -> None:
    store = _store(tmp_path, "other")
    for step in steps:
        if step == "draft":
            store.upsert(schema.questions, [question_row(question_pb2.Question(
                id="q_r_0", table_id="t", family="direct", text="?", status="verified", release="r"))])
            continue
        [ev, *_] = apply_commands(store, None, [release_command("r", step, by="test")])
        assert not ev.refused
    run = build_run("team", "r", SPEC)
    assert _plan(store, run) == []
    row = store.get(schema.runs, run.id)
    assert row is not None and row["planned"] == 0 and says in row["refused"]
    [failure] = store.select(schema.failures, stage="planner")
    assert failure["entity"] == run.id and failure["reason"] == row["refused"] and failure["release"] == "r"
    progress = run_progress(store, run.id)
    assert progress is not None and progress["status"] == "refused" and progress["complete"] is False
    assert progress["failures"] == [{"stage": "planner", "reason": row["refused"], "count": 1}]
    if steps and steps[-1] != "retire":  # published afterwards, the same run is planned and no longer refused
        publish(store, "r")
        assert len(_plan(store, run)) == 1
        assert store.get(schema.runs, run.id)["refused"] == ""  # type: ignore[index]
        assert run_progress(store, run.id)["status"] == "running"  # type: ignore[index]


def test_a_live_release_is_planned_over_its_frozen_set_only(tmp_path: Path) -> None:
    store = _store(tmp_path, "r")
    publish(store, "r")
    store.upsert(schema.questions, [question_row(question_pb2.Question(
        id="q_r_late", table_id="t9", family="direct", text="?", status="verified", release="r"))])
    run = build_run("team", "r", SPEC)
    out = [o.message for o in PlannerHandler().handle(run, HandlerContext(store=store, settings=None))]
    assert sorted(r.question_id for r in out) == rel.frozen_questions(store, "r") == [f"q_r_{i}" for i in range(3)]  # type: ignore[attr-defined]


def test_the_api_refuses_a_run_on_a_release_that_is_not_live_with_409(tmp_path: Path) -> None:
    store = _store(tmp_path, "r")
    bus = InProcBus(known_topics={t.name for t in TOPICS})
    client = TestClient(create_app(bus, store, ApiSettings()), headers=bearer(store))
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

    # the release routes: the draft is shown, a publish command goes to the release handler
    assert client.get("/releases/r").json()["status"] == "draft"
    assert client.get("/releases/nope").status_code == 404
    assert client.post("/releases/r/launch").status_code == 404
    sent = client.post("/releases/r/publish")
    assert sent.status_code == 202
    assert len(bus.records(RELEASE_COMMANDS)) == 1
    Worker(ReleaseHandler(), bus, HandlerContext(store=store, settings=None), poll_timeout_s=0).run(until_idle=True)
    doc = client.get("/releases/r").json()
    assert doc["status"] == "live" and doc["frozen_questions"] == 3 and doc["questions"] == 3
    assert doc["manifest_hash"] == rel.manifest_hash(rel.frozen_questions(store, "r"))
    assert [h["status"] for h in doc["history"]] == ["draft", "frozen", "live"]
    assert doc["history"][-1]["command_id"] == sent.json()["command_id"] and doc["history"][-1]["by"] == "api:admin@local"
    assert client.get("/releases").json()["releases"] == [
        {"release": "r", "status": "live", "manifest_hash": doc["manifest_hash"], "frozen_questions": 3}]
    assert client.post("/runs", json=body).status_code == 202
    assert len(bus.records(RUNS)) == 1


def test_the_column_filter_and_the_payload_filter_plan_the_same_questions(tmp_path: Path) -> None:
    """The planner filters on the questions' columns (no payload read); with a closed-book setting it also reads the
    chosen questions' payloads (for the gold's kind). Both choose the same questions: frozen members only, verified,
    of the run's families, up to its limit, by id, including a member whose status changed after the freeze."""
    from livetab_api.planner import _questions

    store = open_store(f"sqlite:///{tmp_path / 'plan.db'}")
    store.upsert(schema.questions, [question_row(question_pb2.Question(
        id=f"q{i:02d}", table_id="t", family=("direct", "aggregation", "comparison")[i % 3], text="?",
        status="verified", release="r", gold=question_pb2.Gold(kind="number", text="1"))) for i in range(12)])
    publish(store, "r")
    store.upsert(schema.questions, [question_row(question_pb2.Question(  # withdrawn after the freeze
        id="q04", table_id="t", family="aggregation", text="?", status="rejected", release="r"))])
    store.upsert(schema.questions, [question_row(question_pb2.Question(  # stored under r after the freeze
        id="q99", table_id="t", family="direct", text="?", status="verified", release="r"))])
    for families, limit in [((), 0), (("aggregation",), 0), (("direct", "comparison"), 3)]:
        picked = {}
        for settings in (["with_table"], ["with_table", "closed_book"]):
            run = build_run("team", "r", SPEC, settings=settings, families=list(families), limit=limit)
            picked[len(settings)] = [q.id for q in _questions(run, store)]
        assert picked[1] == picked[2], (families, limit, picked)
        assert "q04" not in picked[1] and "q99" not in picked[1]
        want = [f"q{i:02d}" for i in range(12) if i != 4
                and (not families or ("direct", "aggregation", "comparison")[i % 3] in families)]
        assert picked[1] == (want[:limit] if limit else want)
