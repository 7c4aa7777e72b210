"""93e94bc:services/api/tests/test_api_guard.py::test_api_key_ref_names_only_the_teams_secrets adapted to the
code before the endpoint guard (96303a6, the parent of 174fcd2). Adaptations: `GuardSettings` and
`create_app(..., guard=)` did not exist, so the client is `create_app(bus, store, ApiSettings())` with the
loopback base_url the old door accepted; only the test's refusal half is kept (its second half checks how
accepted references are rewritten and read from a mounted folder, features that did not exist)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from livetab.bus import InProcBus
from livetab.ids import question_id
from livetab.records import question_row
from livetab.settings import ApiSettings
from livetab.store import Store, open_store, schema
from livetab.topics import RUNS, TOPICS
from livetab.v1 import question_pb2
from livetab_api.app import create_app

from tests.support.releases import publish

RELEASE = "r1"
KEY = "sk-guard-test-5f1c0e7d9a"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = open_store(f"sqlite:///{tmp_path / 'api.db'}")
    qs = [question_pb2.Question(id=question_id(f"t{i}", RELEASE, {"i": i}), table_id=f"t{i}", family="direct",
                                text=f"q{i}?", status="verified", release=RELEASE) for i in range(2)]
    s.upsert(schema.questions, [question_row(q) for q in qs])
    publish(s, RELEASE)
    return s


@pytest.fixture
def bus() -> InProcBus:
    return InProcBus(known_topics={t.name for t in TOPICS})


def _run(team: str = "local", **model: Any) -> dict[str, Any]:
    return {"team": team, "release": RELEASE, "model": {"name": "m", **model}}


def test_api_key_ref_names_only_the_teams_secrets(bus: InProcBus, store: Store,
                                                  monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("LIVETAB_TEAM_BLUE_OPENAI", KEY)
    monkeypatch.setenv("LIVETAB_TEAM_RED_OPENAI", "sk-red-other-team")
    client = TestClient(create_app(bus, store, ApiSettings()))  # adaptation: no guard before 174fcd2
    model = {"backend": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "x"}
    for ref in ("HOME", "PATH", "LIVETAB_TEAM_RED_OPENAI", "LIVETAB_KAFKA__BOOTSTRAP", "MISSING", "../x", "A__B"):
        r = client.post("/runs", json=_run("blue", **model, api_key_ref=ref))
        assert r.status_code == 422 and "api_key_ref" in r.text, (ref, r.text)
        assert os.environ.get("HOME", "\0") not in r.text
    assert bus.records(RUNS) == []
