"""Faults a user met running `livetab serve` on real Kafka and PostgreSQL: one record the planner cannot
publish must not stop all planning, and every dead letter is stored with the run it belongs to."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from livetab.bus import HandlerContext, Outgoing, Worker
from livetab.bus.kafka import KafkaBus, ensure_topics
from livetab.ids import question_id
from livetab.models.spec import model_spec
from livetab.records import question_row
from livetab.runs import build_run
from livetab.settings import KafkaSettings, ModelSettings
from livetab.store import Store, open_store, schema
from livetab.v1 import question_pb2
from livetab_api.app import run_progress
from livetab_api.planner import PlannerHandler

from tests.support.releases import publish
from tests.support.tokens import bearer

pytestmark = [pytest.mark.kafka, pytest.mark.postgres]


@pytest.fixture
def pg_store(postgres_url: str) -> Iterator[Store]:
    db = "f_" + uuid.uuid4().hex[:12]
    admin = sa.create_engine(postgres_url.replace("postgresql://", "postgresql+psycopg://"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f"CREATE DATABASE {db}"))
    admin.dispose()
    store = open_store(postgres_url.rsplit("/", 1)[0] + "/" + db)
    yield store
    store.close()


def _questions(store: Any, release: str, n: int) -> None:
    qs = [question_pb2.Question(id=question_id(f"t{i}", release, {"i": i}), table_id=f"t{i}", family="direct",
                                text=f"q{i}?", status="verified", release=release) for i in range(n)]
    store.upsert(schema.questions, [question_row(q) for q in qs])


def test_a_run_for_a_pool_without_a_topic_is_dead_lettered_and_planning_goes_on(kafka_bootstrap: str,
                                                                                pg_store: Store) -> None:
    ensure_topics(kafka_bootstrap)
    settings = KafkaSettings(bootstrap_servers=kafka_bootstrap, session_timeout_ms=6000, heartbeat_interval_ms=1000)
    bus = KafkaBus(settings)
    tag = uuid.uuid4().hex[:8]
    release = f"rel-{tag}"
    _questions(pg_store, release, 3)
    publish(pg_store, release)
    ghost = build_run("t", release, model_spec(ModelSettings(name=f"ghost-{tag}", pool=f"ghost{tag}")))
    good = build_run("t", release, model_spec(ModelSettings(name=f"good-{tag}")))
    for run in (ghost, good):
        bus.publish(Outgoing("livetab.runs.v1", run, key=run.id, message_id=run.id))
    bus.flush()
    worker = Worker(PlannerHandler(), bus, HandlerContext(store=pg_store, settings=None), group=f"plan-{tag}",
                    poll_timeout_s=1.0)
    t0 = time.monotonic()
    try:
        while time.monotonic() - t0 < 40 and pg_store.get(schema.runs, good.id) is None:
            worker.run_once()
    finally:
        worker.consumer.close()
        bus.close()
    assert time.monotonic() - t0 < 40, "the planner stalled on the run it cannot publish"
    assert pg_store.get(schema.runs, good.id)["planned"] == 3  # planning went on past the bad run
    letters = pg_store.select(schema.dead_letters, run_id=ghost.id)
    assert len(letters) == 1
    letter = letters[0]
    assert letter["source_topic"] == "livetab.runs.v1" and letter["service"] == "api"
    assert f"livetab.inference.requests.ghost{tag}.v1" in letter["error"] and "does not exist" in letter["error"]
    assert worker.stats.dead_lettered == 1
    progress = run_progress(pg_store, ghost.id)
    assert progress is not None and progress["status"] == "failed" and progress["complete"] is False
    assert progress["failures"][0]["stage"] == "api" and "does not exist" in progress["failures"][0]["reason"]
    assert run_progress(pg_store, good.id)["status"] == "running"  # type: ignore[index]


def test_records_that_never_came_through_the_door_are_dead_lettered_and_stored(kafka_bootstrap: str,
                                                                               pg_store: Store) -> None:
    """A scrape with a NUL byte in its release (PostgreSQL refuses it) and a run asking for 10**9 samples,
    put on the topics directly: each ends as a stored dead letter with its reason, and the worker goes on."""
    from livetab.v1 import table_pb2
    from livetab_scraper.handler import ScraperHandler

    ensure_topics(kafka_bootstrap)
    bus = KafkaBus(KafkaSettings(bootstrap_servers=kafka_bootstrap, session_timeout_ms=6000,
                                 heartbeat_interval_ms=1000))
    tag = uuid.uuid4().hex[:8]
    release = f"rel-{tag}"
    _questions(pg_store, release, 2)
    publish(pg_store, release)
    huge = build_run("t", release, model_spec(ModelSettings(name=f"huge-{tag}")), samples=10**9)
    cmd = table_pb2.ScrapeCommand(id=f"scrape-{tag}", source="local_html", location=f"/nonexistent/{tag}",
                                  release="bad\x00release")
    bus.publish(Outgoing("livetab.runs.v1", huge, key=huge.id, message_id=huge.id))
    bus.publish(Outgoing("livetab.scrapes.v1", cmd, key=cmd.id, message_id=cmd.id))
    bus.flush()
    workers = [Worker(PlannerHandler(), bus, HandlerContext(store=pg_store, settings=None), group=f"plan-{tag}",
                      poll_timeout_s=1.0),
               Worker(ScraperHandler(), bus, HandlerContext(store=pg_store, settings=None), group=f"scrape-{tag}",
                      poll_timeout_s=1.0)]
    def ours() -> list[dict[str, Any]]:  # this test's scrape only: the topic may hold other sessions' records
        return [d for d in pg_store.select(schema.dead_letters, source_topic="livetab.scrapes.v1")
                if d["consumer_group"] == f"scrape-{tag}" and bytes(d["key"] or b"") == cmd.id.encode()]

    t0 = time.monotonic()
    try:
        while time.monotonic() - t0 < 40 and not (ours() and pg_store.select(schema.dead_letters, run_id=huge.id)):
            for w in workers:
                w.run_once()
    finally:
        for w in workers:
            w.consumer.close()
        bus.close()
    run_letters = pg_store.select(schema.dead_letters, run_id=huge.id)
    assert len(run_letters) == 1 and "over api.max_run_requests" in run_letters[0]["error"]
    assert pg_store.get(schema.runs, huge.id) is None
    scrape_letters = ours()
    assert len(scrape_letters) == 1 and scrape_letters[0]["service"] == "scraper"
    assert "NUL" in scrape_letters[0]["error"] or "0x00" in scrape_letters[0]["error"], scrape_letters[0]["error"]


def test_livetab_serve_api_refuses_at_the_door_and_reports_ready(kafka_bootstrap: str, tmp_path: Path) -> None:
    """The api as `livetab serve api` runs it: /readyz reports its planner and release workers, a run for a
    pool with no topic is refused with 422, one for a release that is unknown or not live yet with 409; a
    publish sent over HTTP reaches its release handler over Kafka, and SIGTERM ends it with status 0."""
    import os
    import signal
    import socket
    import subprocess
    import sys

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg = tmp_path / "api.yaml"
    cfg.write_text(f"kafka:\n  bootstrap_servers: {kafka_bootstrap}\nstore:\n  url: sqlite:///{tmp_path / 'api.db'}\n"
                   f"api:\n  port: {port}\n")
    store = open_store(f"sqlite:///{tmp_path / 'api.db'}")
    _questions(store, "door", 2)
    auth = bearer(store, team="door")  # the first admin token, as `livetab token create` makes it
    store.close()
    log = (tmp_path / "api.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "livetab_cli.main", "serve", "api", "--config", str(cfg)],
                            stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ))
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        ready = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                ready = httpx.get(f"{url}/readyz", timeout=2)
                break
            except httpx.HTTPError:
                time.sleep(0.3)
        assert ready is not None and ready.status_code == 200, (tmp_path / "api.log").read_text()
        assert ready.json()["workers"] == [{"group": g, "alive": True, "failure": None}
                                           for g in ("livetab-api", "livetab-api-releases")]
        assert httpx.post(f"{url}/runs", json={"release": "door", "model": {"name": "m"}}).status_code == 401
        http = httpx.Client(headers=auth, timeout=30)
        ghost = http.post(f"{url}/runs", json={"release": "door", "model": {"name": "m", "pool": "nowhere"}})
        assert ghost.status_code == 422 and "no request topic" in ghost.text
        empty = http.post(f"{url}/runs", json={"release": "no-such", "model": {"name": "m"}})
        assert empty.status_code == 409 and "is unknown" in empty.text
        draft = http.post(f"{url}/runs", json={"release": "door", "model": {"name": "m"}})
        assert draft.status_code == 409 and "is a draft" in draft.text
        assert http.post(f"{url}/releases/door/publish").status_code == 202
        deadline = time.monotonic() + 60  # the release worker joins its group, reads the command, applies it
        while time.monotonic() < deadline and http.get(f"{url}/releases/door").json()["status"] != "live":
            time.sleep(0.3)
        assert http.get(f"{url}/releases/door").json()["status"] == "live", (tmp_path / "api.log").read_text()
        assert http.post(f"{url}/runs", json={"release": "door", "model": {"name": "m"}}).status_code == 202
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
        log.close()
    assert proc.returncode == 0, (tmp_path / "api.log").read_text()


INJECT_FATAL = """
import sys
from livetab.bus import Worker
from livetab_cli.main import main

def fatal(self):  # fault injection: the worker loop meets an error it cannot handle (e.g. the producer died)
    raise RuntimeError("injected: producer closed")

Worker.run_once = fatal
sys.exit(main(sys.argv[1:]))
"""


def test_livetab_serve_api_exits_non_zero_when_its_worker_dies(kafka_bootstrap: str, tmp_path: Path) -> None:
    import subprocess
    import sys

    cfg = tmp_path / "api.yaml"
    cfg.write_text(f"kafka:\n  bootstrap_servers: {kafka_bootstrap}\nstore:\n  url: sqlite:///{tmp_path / 'api.db'}\n"
                   "api:\n  port: 0\n")
    proc = subprocess.run([sys.executable, "-c", INJECT_FATAL, "serve", "api", "--config", str(cfg)],
                          capture_output=True, text=True, timeout=90)
    assert proc.returncode == 1, proc.stderr
    assert "worker livetab-api stopped: RuntimeError: injected: producer closed" in proc.stderr


class _Inflate:
    """Fault injection: turns a table whose caption says so into an output over the producer's 1 MB limit."""

    service = "qagen"
    topics = ["livetab.tables.v1"]

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.seen: list[str] = []

    def handle(self, message, ctx):  # type: ignore[no-untyped-def]
        from livetab.v1 import question_pb2 as q

        if not message.id.startswith(self.tag):
            return []
        self.seen.append(message.id)
        text = "x" * (2 * 1024 * 1024) if message.caption == "huge" else "ok"
        return [Outgoing("livetab.questions.v1", q.Question(id=f"q-{message.id}", text=text), key=self.tag)]


def test_an_output_the_broker_refuses_is_dead_lettered_and_the_worker_goes_on(kafka_bootstrap: str,
                                                                               pg_store: Store) -> None:
    from livetab.v1 import table_pb2

    ensure_topics(kafka_bootstrap)
    bus = KafkaBus(KafkaSettings(bootstrap_servers=kafka_bootstrap, session_timeout_ms=6000,
                                 heartbeat_interval_ms=1000))
    tag = uuid.uuid4().hex[:8]
    for i, caption in enumerate(["small", "huge", "small"]):
        bus.publish(Outgoing("livetab.tables.v1", table_pb2.Table(id=f"{tag}-{i}", caption=caption), key=tag))
    bus.flush()
    handler = _Inflate(tag)
    worker = Worker(handler, bus, HandlerContext(store=pg_store, settings=None), group=f"inflate-{tag}",
                    poll_timeout_s=1.0)
    t0 = time.monotonic()
    try:
        while time.monotonic() - t0 < 30 and len(handler.seen) < 3:
            worker.run_once()
    finally:
        worker.consumer.close()
        bus.close()
    assert sorted(handler.seen) == [f"{tag}-0", f"{tag}-1", f"{tag}-2"]
    # the group reads the session broker's topic from its start: records other tests left there (their poison
    # among them) are this group's dead letters too; the one for the huge output is the one asked about
    letters = [d for d in pg_store.select(schema.dead_letters, service="qagen") if d["consumer_group"] == f"inflate-{tag}"
               and "the bus refused its output" in d["error"]]
    assert len(letters) == 1 and "MSG_SIZE_TOO_LARGE" in letters[0]["error"], letters
