"""The team quotas at the door (`POST /runs`: api.runs_per_day, api.concurrent_runs) read the team's day of
submissions in a fixed number of queries, however many runs it holds, and count as running exactly the runs
whose status `GET /runs/{id}` shows as running (or that are not planned yet).

The store is SQLite, the bus the in-process one with every topic, the tokens as `livetab token create` makes
them (test_api_authz.py covers the quotas' refusals themselves)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from livetab.bus import InProcBus
from livetab.ids import question_id
from livetab.records import question_row
from livetab.settings import ApiSettings
from livetab.store import Store, open_store, schema
from livetab.topics import RUNS, TOPICS, requests_topic
from livetab.v1 import question_pb2
from livetab_api.app import create_app
from livetab_api.progress import RunningCount, run_progress
from livetab_api.teams import accepted_runs, audit

from tests.support.queries import statements
from tests.support.releases import publish
from tests.support.tokens import bearer

LIVE = "live1"


def _store(tmp_path: Path) -> Store:
    store = open_store(f"sqlite:///{tmp_path / 'quota.db'}")
    qs = [question_pb2.Question(id=question_id(f"t{i}", LIVE, {"i": i}), table_id=f"t{i}", family="direct",
                                text=f"q{i}?", status="verified", release=LIVE,
                                gold=question_pb2.Gold(kind="text", text=str(i))) for i in range(3)]
    store.upsert(schema.questions, [question_row(q) for q in qs])
    publish(store, LIVE)
    return store


def _run(store: Store, rid: str, *, planned: int, answered: int, team: str = "alpha", **row: Any) -> None:
    """A run the team submitted (its accepted POST in the audit log) with `answered` of `planned` results."""
    audit(store, actor="m", action="POST /runs", status=202, target=rid, team=team)
    store.upsert(schema.runs, [{"id": rid, "team": team, "model": "m", "release": LIVE, "planned": planned,
                                "payload": b"", "refused": "", "cancelled_at": None} | row])
    store.upsert(schema.results, [{"id": f"{rid}-{i}", "run_id": rid, "question_id": "q", "model": "m",
                                   "sample_index": i, "error": "", "payload": b""} for i in range(answered)])


def _letter(store: Store, rid: str, topic: str, n: int) -> str:
    key = f"g|{topic}:0:{n}"
    store.upsert(schema.dead_letters, [{"id": key, "source_topic": topic, "partition": 0, "offset": n,
                                        "consumer_group": "g", "error": "poison", "service": "inference",
                                        "run_id": rid, "headers": "{}", "redriven_at": None}])
    return key


def test_the_door_reads_a_teams_day_in_a_fixed_number_of_queries(tmp_path: Path) -> None:
    """Before, each of the team's runs of the day cost five queries at every submission (its status read as
    GET /runs/{id} reads it): 37 ms a POST by the bench's thirtieth run, and growing."""
    store = _store(tmp_path)
    bus = InProcBus(known_topics={t.name for t in TOPICS})
    client = TestClient(create_app(bus, store, ApiSettings(runs_per_day=1000, concurrent_runs=1000)))
    member = bearer(store, team="alpha", role="member")
    body = {"release": LIVE, "model": {"name": "m"}, "settings": {"limit": 1}}
    counts = []
    for i, more in enumerate((3, 30)):
        for j in range(more):
            _run(store, f"r{i}-{j}", planned=2, answered=j % 3)  # some complete, some running
        with statements(store) as seen:
            assert client.post("/runs", json={**body, "settings": {"limit": 1, "seed": i}},
                               headers=member).status_code == 202
        counts.append(len(seen))
    assert counts[0] == counts[1], counts


def test_the_running_count_is_what_each_runs_status_says(tmp_path: Path) -> None:
    store = _store(tmp_path)
    _run(store, "running", planned=3, answered=1)
    _run(store, "complete", planned=2, answered=2)
    _run(store, "lettered", planned=2, answered=1)  # complete: its other request is dead-lettered
    letter = _letter(store, "lettered", requests_topic("remote"), 1)
    _run(store, "refused", planned=0, answered=0, refused="release retired")
    _run(store, "cancelled", planned=3, answered=0, cancelled_at=time.time())
    audit(store, actor="m", action="POST /runs", status=202, target="not-planned-yet", team="alpha")
    audit(store, actor="m", action="POST /runs", status=202, target="dead", team="alpha")
    _letter(store, "dead", RUNS, 7)  # the run itself dead-lettered: failed
    _run(store, "beta's", planned=3, answered=0, team="beta")
    ids = accepted_runs(store, "alpha", since=time.time() - 86400)
    assert sorted(ids) == sorted(["running", "complete", "lettered", "refused", "cancelled", "not-planned-yet",
                                  "dead"])

    def expected() -> int:
        return sum(p is None or p["status"] == "running" for p in (run_progress(store, r) for r in ids))

    count = RunningCount(store)
    assert count("alpha", ids) == expected() == 2  # "running" and "not-planned-yet"
    # a redrive makes the dead-lettered request outstanding again: the run is running until it is answered
    store.update(schema.dead_letters, letter, redriven_at=datetime.now(UTC))
    assert count("alpha", ids) == expected() == 3
    _run(store, "lettered", planned=2, answered=2)
    _run(store, "running", planned=3, answered=3)
    assert count("alpha", ids) == expected() == 1
    with statements(store) as seen:  # every run but the one not planned yet is over: only that one is read
        assert count("alpha", ids) == 1
    assert len(seen) == 2 and not any("results" in s for s in seen), seen  # its row, its dead letters


def test_only_the_last_days_accepted_submissions_count(tmp_path: Path) -> None:
    store = _store(tmp_path)
    _run(store, "old", planned=1, answered=0)
    _run(store, "new", planned=1, answered=0)
    audit(store, actor="m", action="POST /runs", status=429, target="refused-at-the-door", team="alpha")
    old = next(r for r in store.select(schema.audit_log, target="old"))
    store.update(schema.audit_log, old["id"], at=time.time() - 90000)
    assert accepted_runs(store, "alpha", since=time.time() - 86400) == ["new"]


def test_the_running_count_keeps_only_the_runs_it_is_still_asked_about(tmp_path: Path) -> None:
    """What it remembers of finished runs is the team's day of runs: a run out of the day is forgotten, so an api
    that runs for months does not hold every run it ever counted."""
    store = _store(tmp_path)
    for i in range(4):
        _run(store, f"done{i}", planned=1, answered=1)
    count = RunningCount(store)
    assert count("alpha", ["done0", "done1", "done2", "done3"]) == 0
    assert count._over["alpha"] == {"done0", "done1", "done2", "done3"}
    assert count("alpha", ["done3"]) == 0  # the others out of the day
    assert count._over["alpha"] == {"done3"}
