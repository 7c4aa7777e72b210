"""Long polls of a run's status (`GET /runs/{id}?wait_s=S` with `If-None-Match`): 304 while the status is the
caller's, 200 at once when it differs, and woken by the run's leaderboard update (a LeaderboardUpdate on the
reports topic, which the api reads from its end) long before its periodic re-read would have seen the change."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from livetab import topics as topic_names
from livetab.bus import InProcBus, Outgoing
from livetab.settings import ApiSettings
from livetab.store import Store, open_store, schema
from livetab.topics import TOPICS
from livetab.v1 import report_pb2
from livetab_api.app import create_app
from livetab_api.watch import RunWatch

from tests.support.tokens import bearer


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[tuple[Store, InProcBus, RunWatch, TestClient]]:
    store = open_store(f"sqlite:///{tmp_path / 'watch.db'}")
    store.upsert(schema.runs, [{"id": "run-a", "team": "alpha", "model": "m", "release": "r", "planned": 4,
                                "payload": b"", "refused": ""}])
    bus = InProcBus(known_topics={t.name for t in TOPICS})
    watch = RunWatch(recheck_s=30.0)  # only a notification can wake a poll within these tests' waits
    watch.start(bus)
    yield store, bus, watch, TestClient(create_app(bus, store, ApiSettings(), watch=watch),
                                        raise_server_exceptions=False)
    watch.stop()


def _judged(store: Store, bus: InProcBus, n: int, *, publish: bool = True) -> None:
    """What the reporter does on a recompute: the rows stored, then the update published."""
    store.upsert(schema.leaderboard, [{"id": "run-a|all", "run_id": "run-a", "model": "m", "slice": "all", "n": n,
                                       "correct": n, "accuracy": 1.0, "ci_low": 0.5, "ci_high": 1.0}])
    if publish:
        update = report_pb2.LeaderboardUpdate(id=f"lb-{n}", run_id="run-a", judged=n, planned=4)
        bus.publish(Outgoing(topic_names.REPORTS, update, key="run-a", message_id=update.id))


def test_the_etag_says_whether_the_status_changed(setup: tuple[Store, InProcBus, RunWatch, TestClient]) -> None:
    store, _, _, client = setup
    alpha = bearer(store, team="alpha", role="member")
    first = client.get("/runs/run-a", headers=alpha)
    tag = first.headers["etag"]
    assert first.status_code == 200 and tag.startswith('"') and first.json()["leaderboard"] == []
    assert client.get("/runs/run-a", headers={**alpha, "If-None-Match": tag}).status_code == 304
    assert client.get("/runs/run-a", headers={**alpha, "If-None-Match": f'"other", W/{tag}'}).status_code == 304
    assert client.get("/runs/run-a", headers={**alpha, "If-None-Match": '"other"'}).status_code == 200
    began = time.monotonic()
    r = client.get("/runs/run-a", params={"wait_s": 0.3}, headers={**alpha, "If-None-Match": tag})
    assert r.status_code == 304 and r.headers["etag"] == tag and 0.3 <= time.monotonic() - began < 5
    for bad in (-1, 31, "soon"):
        assert client.get("/runs/run-a", params={"wait_s": bad}, headers=alpha).status_code == 422
    # another team's run stays absent, waiting or not
    beta = bearer(store, team="beta", role="member")
    assert client.get("/runs/run-a", params={"wait_s": 1}, headers={**beta, "If-None-Match": tag}).status_code == 404


def test_a_long_poll_answers_when_the_runs_leaderboard_is_updated(
        setup: tuple[Store, InProcBus, RunWatch, TestClient]) -> None:
    store, bus, watch, client = setup
    alpha = bearer(store, team="alpha", role="member")
    tag = client.get("/runs/run-a", headers=alpha).headers["etag"]
    threading.Timer(0.5, _judged, (store, bus, 3)).start()
    began = time.monotonic()
    r = client.get("/runs/run-a", params={"wait_s": 20}, headers={**alpha, "If-None-Match": tag})
    waited = time.monotonic() - began
    # woken by the update, not by the re-read (every 30 s) nor the wait's end
    assert r.status_code == 200 and 0.4 < waited < 10, waited
    assert [row["n"] for row in r.json()["leaderboard"]] == [3] and r.headers["etag"] != tag
    assert watch.heard == 1


def test_a_change_that_no_update_announces_is_seen_at_the_next_re_read(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'watch.db'}")
    store.upsert(schema.runs, [{"id": "run-a", "team": "alpha", "model": "m", "release": "r", "planned": 4,
                                "payload": b"", "refused": ""}])
    bus = InProcBus(known_topics={t.name for t in TOPICS})
    client = TestClient(create_app(bus, store, ApiSettings(), watch=RunWatch(recheck_s=0.2)))  # no tail started
    alpha = bearer(store, team="alpha", role="member")
    tag = client.get("/runs/run-a", headers=alpha).headers["etag"]
    threading.Timer(0.3, _judged, (store, bus, 2), {"publish": False}).start()
    began = time.monotonic()
    r = client.get("/runs/run-a", params={"wait_s": 20}, headers={**alpha, "If-None-Match": tag})
    assert r.status_code == 200 and [row["n"] for row in r.json()["leaderboard"]] == [2]
    assert time.monotonic() - began < 10


def test_the_leaderboard_rows_come_in_slice_order_whatever_the_stores_order(
        setup: tuple[Store, InProcBus, RunWatch, TestClient]) -> None:
    """The status's ETag hashes its JSON: the same rows must make the same document, in whatever order the store
    returns them (PostgreSQL's changes as rows are updated)."""
    store, _, _, client = setup
    alpha = bearer(store, team="alpha", role="member")
    slices = ["skill=lookup", "all", "format=csv", "insight"]  # stored out of order
    store.upsert(schema.leaderboard, [{"id": f"run-a|{s}", "run_id": "run-a", "model": "m", "slice": s, "n": 2,
                                       "correct": 1, "accuracy": 0.5, "ci_low": 0.1, "ci_high": 0.9} for s in slices])
    first = client.get("/runs/run-a", headers=alpha)
    assert [row["slice"] for row in first.json()["leaderboard"]] == sorted(slices)
    with store.engine.begin() as conn:  # stored again, now last: the same document, the same ETag
        conn.execute(schema.leaderboard.delete().where(schema.leaderboard.c.id == "run-a|all"))
    store.upsert(schema.leaderboard, [{"id": "run-a|all", "run_id": "run-a", "model": "m", "slice": "all", "n": 2,
                                       "correct": 1, "accuracy": 0.5, "ci_low": 0.1, "ci_high": 0.9}])
    again = client.get("/runs/run-a", headers={**alpha, "If-None-Match": first.headers["etag"]})
    assert again.status_code == 304
