"""The api's door: what can be known when a run or scrape is submitted is refused there (413/422, never
500, never an echo of the whole body); what is accepted is planned, and every planned request ends
answered, failed with a reason or dead-lettered with a reason, which GET /runs/{id} shows.

The bus is the in-process one with the topics a broker without auto-creation would have; the store is
SQLite. The worker, planner and store are the real ones; the only fake is a model stage that fails on
purpose."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from google.protobuf.message import Message
from livetab.bus import HandlerContext, InProcBus, Outgoing, Worker
from livetab.ids import question_id
from livetab.records import question_row, result_row
from livetab.settings import MAX_SAMPLES, ApiSettings
from livetab.store import Store, open_store, schema
from livetab.topics import TOPICS
from livetab.v1 import inference_pb2, question_pb2
from livetab_api.app import create_app
from livetab_api.planner import PlannerHandler

from tests.support.releases import publish
from tests.support.tokens import bearer

RELEASE = "r1"
TOPIC_NAMES = {t.name for t in TOPICS}


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = open_store(f"sqlite:///{tmp_path / 'api.db'}")
    qs = [question_pb2.Question(id=question_id(f"t{i}", RELEASE, {"i": i}), table_id=f"t{i}", family="direct",
                                text=f"q{i}?", status="verified", release=RELEASE) for i in range(4)]
    s.upsert(schema.questions, [question_row(q) for q in qs])
    publish(s, RELEASE)
    return s


@pytest.fixture
def bus() -> InProcBus:
    return InProcBus(known_topics=set(TOPIC_NAMES))


@pytest.fixture
def client(bus: InProcBus, store: Store) -> TestClient:
    return TestClient(create_app(bus, store, ApiSettings()), headers=bearer(store))


def _run(**model: Any) -> dict[str, Any]:
    return {"release": RELEASE, "model": {"name": "m", **model}}


@pytest.mark.parametrize(("body", "says"), [
    (_run(pool="ghost"), "no request topic"),
    (_run(pool="bad pool!"), "pool name"),
    (_run(params={"temperature_x": "1"}), "unknown option"),
    (_run(backend="openai", base_url="file:///etc/passwd"), "base_url scheme"),
    ({**_run(), "settings": {"samples": 10**9}}, "less than or equal to"),
    ({**_run(), "settings": {"max_tokens": 10**9}}, "less than or equal to"),
    (_run(n_ctx=10**9), "less than or equal to"),
    (_run(n_threads=100000), "less than or equal to"),
    ({**_run(), "settings": {"formats": ["markdown", "pdf"]}}, "format 'pdf'"),
    ({**_run(), "settings": {"formats": []}}, "at least 1"),
    ({**_run(), "release": ""}, "at least 1 character"),
    ({**_run(), "release": "r\x00 1"}, "NUL byte"),
    (_run(name="m\x00"), "NUL byte"),
])
def test_a_run_that_cannot_be_planned_is_refused_at_the_door(client: TestClient, bus: InProcBus, body: dict[str, Any],
                                                             says: str) -> None:
    r = client.post("/runs", json=body)
    assert r.status_code == 422, r.text
    assert says in r.text
    assert bus.records("livetab.runs.v1") == []  # nothing reached the planner


def test_a_run_that_would_plan_too_many_requests_is_refused(bus: InProcBus, store: Store) -> None:
    client = TestClient(create_app(bus, store, ApiSettings(max_run_requests=10)), headers=bearer(store))
    body = {**_run(), "settings": {"samples": 3, "formats": ["markdown", "csv"]}}  # 4 x 2 x 3 = 24
    r = client.post("/runs", json=body)
    assert r.status_code == 422 and "24 requests" in r.text
    assert client.post("/runs", json={**_run(), "settings": {"samples": 2}}).status_code == 202  # 8


def test_bodies_over_the_limit_get_413_and_422s_quote_only_an_excerpt(client: TestClient) -> None:
    big = "x" * (20 * 1024 * 1024)
    valid = _run(params={"model_path": big})
    r = client.post("/runs", json=valid)
    assert r.status_code == 413 and len(r.content) < 200
    r = client.post("/runs", json={"release": big})
    assert r.status_code == 413 and len(r.content) < 200
    # chunked, without a Content-Length: refused while it is read
    r = client.post("/runs", content=iter([b'{"release": "', b"y" * 70000, b'"}']),
                    headers={"content-type": "application/json"})
    assert r.status_code == 413
    # under the body limit, invalid: the 422 quotes a short excerpt, not the value
    r = client.post("/runs", json={**_run(), "team": "t" * 20000, "release": "z" * 20000})
    assert r.status_code == 422 and len(r.content) < 2000
    assert "z" * 200 not in r.text and "t" * 200 not in r.text
    assert MAX_SAMPLES >= 1 and client.post("/runs", json={**_run(), "settings": {"samples": MAX_SAMPLES}}).status_code == 202


@pytest.mark.parametrize(("body", "says"), [
    ({"source": "ftp_dump", "location": "x", "release": "r"}, "local_html"),
    ({"source": "local_html", "location": "/tmp/x\x00", "release": "r"}, "NUL byte"),
    ({"source": "local_html", "location": "/tmp/x", "release": "r\x00"}, "NUL byte"),
    ({"source": "local_html", "location": "/tmp/x", "release": ""}, "at least 1 character"),
])
def test_a_scrape_that_cannot_run_is_refused(client: TestClient, bus: InProcBus, body: dict[str, Any],
                                             says: str) -> None:
    r = client.post("/scrapes", json=body)
    assert r.status_code == 422 and says in r.text, r.text
    assert bus.records("livetab.scrapes.v1") == []


def test_a_nul_byte_in_a_path_is_not_a_server_error(client: TestClient) -> None:
    assert client.get("/runs/a%00b").status_code == 404
    assert client.get("/releases/a%00b").status_code == 404


class _FlakyModel:
    """Fault injection: answers the first request, records a model error for the second, and cannot process
    the rest at all (the worker dead-letters them)."""

    service = "inference"
    topics = ["livetab.inference.requests.v1"]

    def __init__(self) -> None:
        self.seen = 0

    def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
        assert isinstance(message, inference_pb2.InferenceRequest)
        self.seen += 1
        if self.seen > 2:
            raise ValueError("model spec 'm': unknown option(s) for backend llama_local: bogus")
        result = inference_pb2.InferenceResult(id=message.id, run_id=message.run_id, question_id=message.question_id,
                                               model=message.model.name, sample_index=message.sample_index,
                                               response="4" if self.seen == 1 else "",
                                               error="" if self.seen == 1 else "timeout after 120 s")
        ctx.store.upsert(schema.results, [result_row(result)])
        return []


def test_every_planned_request_ends_answered_failed_or_dead_lettered_with_its_reason(
        client: TestClient, bus: InProcBus, store: Store, caplog: pytest.LogCaptureFixture) -> None:
    r = client.post("/runs", json=_run())
    assert r.status_code == 202
    rid = r.json()["run_id"]
    assert client.get(f"/runs/{rid}").status_code == 404  # not planned yet
    ctx = HandlerContext(store=store, settings=None)
    Worker(PlannerHandler(), bus, ctx, poll_timeout_s=0).run(until_idle=True)
    running = client.get(f"/runs/{rid}").json()
    assert running["planned"] == 4 and running["status"] == "running" and running["complete"] is False
    with caplog.at_level(logging.INFO, logger="livetab.bus.worker"):
        Worker(_FlakyModel(), bus, ctx, poll_timeout_s=0).run(until_idle=True)
    assert "inference batch: 4 in, 2 out, 2 dead-lettered" in caplog.text and f"(runs {rid[:12]}:4)" in caplog.text
    body = client.get(f"/runs/{rid}").json()
    assert body["status"] == "complete" and body["complete"] is True
    assert (body["planned"], body["answered"], body["failed"], body["dead_lettered"]) == (4, 2, 1, 2)
    reasons = {(f["stage"], f["reason"]): f["count"] for f in body["failures"]}
    assert reasons[("inference", "timeout after 120 s")] == 1
    assert reasons[("inference", "ValueError: model spec 'm': unknown option(s) for backend llama_local: bogus")] == 2
    letters = store.select(schema.dead_letters, run_id=rid)
    assert {d["service"] for d in letters} == {"inference"} and len(letters) == 2
    assert all(d["source_topic"] == "livetab.inference.requests.v1" for d in letters)
    assert len(bus.records("livetab.dlq.v1")) == 2
    listed = client.get("/dead-letters", params={"run_id": rid}).json()
    assert listed["count"] == 2 and {d["service"] for d in listed["dead_letters"]} == {"inference"}
    assert client.get("/dead-letters", params={"service": "judge"}).json()["count"] == 0
    json.dumps(body)
    # a redriven request (livetab dlq redrive) is outstanding again: the run is running until it is answered
    from livetab.dlq import redrive
    assert redrive(store, bus, [letters[0]]) == (1, [])
    assert client.get(f"/runs/{rid}").json()["status"] == "running"


class _Broken:
    service = "api"
    topics = ["livetab.runs.v1"]
    group = "livetab-api"

    def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
        return []


def test_readyz_reports_a_worker_that_died(bus: InProcBus, store: Store) -> None:
    worker = Worker(_Broken(), bus, HandlerContext(store=store, settings=None), poll_timeout_s=0)
    client = TestClient(create_app(bus, store, ApiSettings(), workers=[worker]), headers=bearer(store))
    assert client.get("/readyz").status_code == 200 and client.get("/healthz").status_code == 200

    def boom() -> None:
        raise RuntimeError("flush failed: KafkaTimeoutError")

    bus.flush = boom  # type: ignore[method-assign]
    bus.publish(Outgoing("livetab.runs.v1", __import__("livetab.v1.run_pb2", fromlist=["Run"]).Run(id="x")))
    with pytest.raises(RuntimeError):
        worker.run()
    r = client.get("/readyz")
    assert r.status_code == 503
    assert "worker livetab-api stopped: RuntimeError: flush failed" in r.json()["problems"][0]
    assert client.get("/healthz").status_code == 503


def test_a_bus_that_cannot_take_a_run_gives_503_not_500(bus: InProcBus, store: Store) -> None:
    def down(timeout_s: float = 30.0) -> None:
        raise RuntimeError("KafkaError: 1 record(s) were not acknowledged")

    bus.flush = down  # type: ignore[method-assign]
    r = TestClient(create_app(bus, store, ApiSettings()), headers=bearer(store), raise_server_exceptions=False).post("/runs", json=_run())
    assert r.status_code == 503 and "try again" in r.text
