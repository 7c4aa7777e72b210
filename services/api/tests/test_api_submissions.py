"""Re-run on a new release (livetab_api.submissions): a run submitted with `rerun: true` is its team's active
submission; when an admin publishes a new release, the api's release handler sends a run of every active
submission on it — same team, model spec and knobs — and nothing for a plain run or a stopped submission.

Driven as deployed: the routes over the app with real tokens, the release command through the bus to the
real release handler (the api service's worker), whose output is read from the bus."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from livetab.bus import HandlerContext, InProcBus, Outgoing, Worker
from livetab.ids import question_id
from livetab.records import question_row
from livetab.settings import ApiSettings
from livetab.store import open_store, schema
from livetab.topics import RELEASES, RUNS, TOPICS
from livetab.v1 import question_pb2, release_pb2, run_pb2
from livetab_api.app import create_app
from livetab_api.releases import ReleaseHandler

from tests.support.releases import publish
from tests.support.tokens import bearer

OLD, NEW = "2026-11", "2026-12"


class World:
    def __init__(self, tmp: Path) -> None:
        self.store = open_store(f"sqlite:///{tmp / 'api.db'}")
        for release in (OLD, NEW):
            qs = [question_pb2.Question(id=question_id(f"t{i}", release, {}), table_id=f"t{i}", family="direct",
                                        text=f"q{i}?", status="verified", release=release) for i in range(2)]
            self.store.upsert(schema.questions, [question_row(q) for q in qs])
        publish(self.store, OLD)  # NEW stays a draft until the test publishes it
        self.bus = InProcBus(known_topics={t.name for t in TOPICS})
        self.client = TestClient(create_app(self.bus, self.store, ApiSettings(rate_burst=1000)))
        self.blue = bearer(self.store, team="blue", role="member")
        self.admin = bearer(self.store, team="ops", role="admin")
        self.worker = Worker(ReleaseHandler(), self.bus, HandlerContext(store=self.store, settings=None),
                             poll_timeout_s=0)

    def submit(self, model: str, rerun: bool, **knobs: object) -> str:
        r = self.client.post("/runs", headers=self.blue, json={
            "release": OLD, "rerun": rerun, "settings": knobs,
            "model": {"name": model, "backend": "scripted", "params": {"policy": "oracle"}}})
        assert r.status_code == 202 and r.json()["rerun"] is rerun, r.text
        return str(r.json()["run_id"])

    def planned(self, rid: str) -> None:
        """What the planner writes when it plans a run (a cancel needs the run planned)."""
        rec = next(r for r in self.bus.records(RUNS) if run_pb2.Run.FromString(r.value).id == rid)
        self.store.upsert(schema.runs, [{"id": rid, "team": "blue", "model": "m", "release": OLD, "planned": 2,
                                         "payload": rec.value, "refused": ""}])

    def drive(self) -> None:
        while self.worker.run_once():
            pass
        assert self.bus.records("livetab.dlq.v1") == []

    def runs_on(self, release: str) -> list[run_pb2.Run]:
        return [run for run in (run_pb2.Run.FromString(r.value) for r in self.bus.records(RUNS))
                if run.release == release]


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def test_active_submissions_are_rerun_when_a_release_goes_live(world: World) -> None:
    kept = world.submit("sub-a", True, samples=2, temperature=0.5, formats=["markdown", "html"])
    world.submit("plain", False)
    stopped = world.submit("sub-c", True)
    world.planned(stopped)
    assert world.client.post(f"/runs/{stopped}/cancel", headers=world.blue).status_code == 200
    assert world.runs_on(NEW) == []

    r = world.client.post(f"/releases/{NEW}/publish", headers=world.admin)
    assert r.status_code == 202, r.text
    world.drive()
    live = [release_pb2.ReleaseEvent.FromString(e.value) for e in world.bus.records(RELEASES)]
    assert live and live[-1].release == NEW and live[-1].status == release_pb2.LIVE

    [rerun] = world.runs_on(NEW)  # the active submission only: not the plain run, not the stopped one
    [first] = [run for run in world.runs_on(OLD) if run.id == kept]
    assert (rerun.team, rerun.model, rerun.settings) == (first.team, first.model, first.settings)
    assert rerun.id != kept
    row = world.store.get(schema.submissions, next(r["id"] for r in world.store.select(schema.submissions)
                                                   if r["model"] == "sub-a"))
    assert row is not None and (row["run_id"], row["release"], row["stopped_at"]) == (rerun.id, NEW, None)
    stopped_row = [r for r in world.store.select(schema.submissions) if r["model"] == "sub-c"]
    assert stopped_row and stopped_row[0]["stopped_at"] is not None

    # the same publish command delivered again (a consumer that crashed before committing) sends the same run again (same id) while it is not planned ...
    cmd = world.bus.records("livetab.releases.commands.v1")[-1]
    world.bus.publish(Outgoing("livetab.releases.commands.v1",
                               release_pb2.ReleaseCommand.FromString(cmd.value), key=NEW, message_id="again"))
    world.drive()
    assert [r.id for r in world.runs_on(NEW)] == [rerun.id, rerun.id]
    # ... and not once it is planned
    world.store.upsert(schema.runs, [{"id": rerun.id, "team": "blue", "model": "sub-a", "release": NEW,
                                      "planned": 2, "payload": rerun.SerializeToString(), "refused": ""}])
    world.bus.publish(Outgoing("livetab.releases.commands.v1",
                               release_pb2.ReleaseCommand.FromString(cmd.value), key=NEW, message_id="third"))
    world.drive()
    assert len(world.runs_on(NEW)) == 2
