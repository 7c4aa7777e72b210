"""`livetab cancel RUN_ID` as a user runs it (the installed entry point) against the api served over HTTP on
loopback: it sends $LIVETAB_TOKEN, cancels its team's run, and says so (exit 1 with the api's 404) for
another team's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from livetab.bus import InProcBus
from livetab.settings import ApiSettings
from livetab.store import Store, open_store, schema
from livetab.topics import TOPICS
from livetab_api.app import create_app

from tests.support.serve import serve
from tests.support.tokens import bearer

LIVETAB = Path(sys.executable).parent / "livetab"


@pytest.fixture
def api(tmp_path: Path) -> Iterator[tuple[Store, str]]:
    store = open_store(f"sqlite:///{tmp_path / 'cli.db'}")
    for rid, team in (("run-a", "alpha"), ("run-b", "beta")):
        store.upsert(schema.runs, [{"id": rid, "team": team, "model": "m", "release": "r", "planned": 2,
                                    "payload": b"", "refused": ""}])
    app = create_app(InProcBus(known_topics={t.name for t in TOPICS}), store, ApiSettings())
    with serve(app) as url:
        yield store, url


def test_livetab_cancel_sends_the_token_and_cancels_only_its_teams_run(api: tuple[Store, str]) -> None:
    store, url = api
    token = bearer(store, team="alpha", role="member")["Authorization"].removeprefix("Bearer ")
    env = {**os.environ, "LIVETAB_TOKEN": token}
    ok = subprocess.run([str(LIVETAB), "cancel", "run-a", "--api", url], capture_output=True, text=True, env=env)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["status"] == "cancelled"
    assert store.get(schema.runs, "run-a")["cancelled_at"] is not None  # type: ignore[index]
    other = subprocess.run([str(LIVETAB), "cancel", "run-b", "--api", url], capture_output=True, text=True, env=env)
    assert other.returncode == 1 and "404" in other.stderr
    assert store.get(schema.runs, "run-b")["cancelled_at"] is None  # type: ignore[index]
    anonymous = {k: v for k, v in env.items() if k != "LIVETAB_TOKEN"}
    none = subprocess.run([str(LIVETAB), "cancel", "run-a", "--api", url], capture_output=True, text=True,
                          env=anonymous)
    assert none.returncode == 1 and "401" in none.stderr
