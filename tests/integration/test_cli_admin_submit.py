"""`livetab cycle` and `livetab submit` as users run them (the installed entry point) against the api served
over HTTP on loopback.

- cycle: the api takes only location *names* (guard.scrape_locations), so the cycle sends, for each configured
  source, the name its folder has in the same settings file — and stops with a clear message, before any
  scrape is sent, when a source's folder has none.
- submit: the api probes a submitted endpoint before it takes the run; a refused probe is one line on stderr
  (exit 1) and nothing is published."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from livetab.bus import InProcBus
from livetab.ids import question_id
from livetab.records import question_row
from livetab.settings import ApiSettings, GuardSettings
from livetab.store import Store, open_store, schema
from livetab.topics import RUNS, SCRAPES, TOPICS
from livetab.v1 import question_pb2, table_pb2
from livetab_api.app import create_app

from tests.support.releases import publish
from tests.support.serve import serve
from tests.support.tokens import bearer

LIVETAB = Path(sys.executable).parent / "livetab"


@pytest.fixture
def api(tmp_path: Path) -> Iterator[tuple[Store, InProcBus, str, Path]]:
    pages = tmp_path / "pages"
    pages.mkdir()
    store = open_store(f"sqlite:///{tmp_path / 'cli.db'}")
    bus = InProcBus(known_topics={t.name for t in TOPICS})
    q = question_pb2.Question(id=question_id("t", "r1", {}), table_id="t", family="direct", text="q?",
                              status="verified", release="r1")
    store.upsert(schema.questions, [question_row(q)])
    publish(store, "r1")
    guard = GuardSettings(scrape_kinds=["local_html"], scrape_locations={"wiki": str(pages)}, allow=["127.0.0.0/8"])
    app = create_app(bus, store, ApiSettings(), guard=guard)
    with serve(app) as url:
        yield store, bus, url, pages


def _cycle(tmp: Path, url: str, token: str, cfg: dict[str, object]) -> subprocess.CompletedProcess[str]:
    path = tmp / "cycle.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return subprocess.run([str(LIVETAB), "cycle", "--config", str(path), "--api", url, "--release", "2026-12"],
                          capture_output=True, text=True, env={**os.environ, "LIVETAB_TOKEN": token}, timeout=60)


def test_cycle_sends_location_names_not_paths(api: tuple[Store, InProcBus, str, Path], tmp_path: Path) -> None:
    store, bus, url, pages = api
    token = bearer(store, team="ops", role="admin")["Authorization"].removeprefix("Bearer ")
    source = {"kind": "local_html", "location": str(pages)}
    unnamed = _cycle(tmp_path, url, token, {"sources": [source]})
    assert unnamed.returncode == 2 and "guard.scrape_locations" in unnamed.stderr, unnamed.stderr
    assert bus.records(SCRAPES) == []
    ok = _cycle(tmp_path, url, token, {"sources": [source], "guard": {"scrape_locations": {"wiki": str(pages)}}})
    assert ok.returncode == 0, ok.stderr
    [rec] = bus.records(SCRAPES)
    cmd = table_pb2.ScrapeCommand.FromString(rec.value)
    assert (cmd.location, cmd.release) == (str(pages), "2026-12")


def test_submit_says_in_one_line_why_the_probe_refused(api: tuple[Store, InProcBus, str, Path]) -> None:
    store, bus, url, _ = api
    token = bearer(store, team="blue", role="member")["Authorization"].removeprefix("Bearer ")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    proc = subprocess.run([str(LIVETAB), "submit", "--api", url, "--release", "r1", "--backend", "openai",
                           "--model", "m", "--base-url", f"http://127.0.0.1:{closed}/v1"],
                          capture_output=True, text=True, env={**os.environ, "LIVETAB_TOKEN": token}, timeout=60)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("livetab submit: the api answered 422: model probe: cannot reach")
    assert bus.records(RUNS) == []


def test_submit_rerun_makes_the_run_an_active_submission(api: tuple[Store, InProcBus, str, Path]) -> None:
    store, bus, url, _ = api
    token = bearer(store, team="blue", role="member")["Authorization"].removeprefix("Bearer ")
    proc = subprocess.run([str(LIVETAB), "submit", "--api", url, "--release", "r1", "--backend", "scripted",
                           "--model", "oracle", "--rerun"],
                          capture_output=True, text=True, env={**os.environ, "LIVETAB_TOKEN": token}, timeout=60)
    assert proc.returncode == 0, proc.stderr
    [rec] = bus.records(RUNS)
    [row] = store.select(schema.submissions)
    assert (row["team"], row["model"], row["release"], row["stopped_at"]) == ("blue", "oracle", "r1", None)
    assert row["payload"] == rec.value
