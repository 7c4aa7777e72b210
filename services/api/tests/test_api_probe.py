"""The probe at the door (livetab.models.probe through livetab_api.guard.probe_model): `POST /runs` with an
OpenAI-compatible or gRPC endpoint is accepted only after one tiny request, through the inference client and
the api's net policy, shows the endpoint reachable, speaking its protocol, taking the key and serving the
model. Each failure is a 422 with one line and nothing published (so nothing is planned).

Every endpoint is a real listener on 127.0.0.1 (allowed by the test's guard.allow): an aiohttp server with an
OpenAI model list, one that needs a key, one answering HTML, one redirecting to an internal address; the
example gRPC ModelService; and a port nothing listens on."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from fastapi.testclient import TestClient
from livetab.bus import InProcBus
from livetab.ids import question_id
from livetab.records import question_row
from livetab.settings import ApiSettings, GuardSettings
from livetab.store import Store, open_store, schema
from livetab.topics import RUNS, TOPICS
from livetab.v1 import question_pb2
from livetab_api.app import create_app

from services.inference.tests.test_inference_grpc import ScriptedBackend, example_server
from tests.support.releases import publish

RELEASE = "r1"
KEY = "sk-probe-test-0b6e1f3a"


class Listeners:
    """The loopback endpoints, on one event loop in a background thread; `seen` records every request."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, str]] = []  # (method, path, Authorization)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.http_port = self.grpc_port = 0
        self._stop: list[Any] = []

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        auth = request.headers.get("Authorization", "")
        self.seen.append((request.method, request.path, auth))
        kind = request.match_info["kind"]
        if kind == "html":
            return web.Response(text="<html><body>a web page</body></html>", content_type="text/html")
        if kind == "redirect":
            raise web.HTTPFound("http://10.1.2.3/v1/models")
        if kind == "keyed" and auth != f"Bearer {KEY}":
            return web.json_response({"error": "invalid api key"}, status=401)
        return web.json_response({"object": "list", "data": [{"id": "m", "object": "model"}]})

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/{kind}/{rest:.*}", self._handle)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        self.http_port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        server, self.grpc_port, _ = await example_server().start_server(ScriptedBackend())
        self._stop = [runner.cleanup, lambda: server.stop(grace=None)]

    def __enter__(self) -> Listeners:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(10)
        return self

    def __exit__(self, *exc: object) -> None:
        for stop in self._stop:
            asyncio.run_coroutine_threadsafe(stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    def url(self, kind: str) -> str:
        return f"http://127.0.0.1:{self.http_port}/{kind}/v1"


@pytest.fixture(scope="module")
def listeners() -> Iterator[Listeners]:
    with Listeners() as ls:
        yield ls


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def world(tmp_path: Path) -> tuple[InProcBus, Store]:
    store = open_store(f"sqlite:///{tmp_path / 'api.db'}")
    q = question_pb2.Question(id=question_id("t", RELEASE, {}), table_id="t", family="direct", text="q?",
                              status="verified", release=RELEASE)
    store.upsert(schema.questions, [question_row(q)])
    publish(store, RELEASE)
    return InProcBus(known_topics={t.name for t in TOPICS}), store


def _client(world: tuple[InProcBus, Store], probe: bool = True) -> TestClient:
    bus, store = world
    return TestClient(create_app(bus, store, ApiSettings(auth=False, probe_endpoints=probe, probe_timeout_s=5),
                                 guard=GuardSettings(allow=["127.0.0.0/8"])))


def _run(**model: Any) -> dict[str, Any]:
    return {"team": "blue", "release": RELEASE, "model": {"name": "sub", **model}}


def test_a_good_openai_endpoint_is_probed_once_then_accepted(world: tuple[InProcBus, Store],
                                                              listeners: Listeners) -> None:
    listeners.seen.clear()
    r = _client(world).post("/runs", json=_run(backend="openai", base_url=listeners.url("ok"), model="m"))
    assert r.status_code == 202, r.text
    assert listeners.seen == [("GET", "/ok/v1/models", "")]  # one tiny request, nothing asked of the model
    assert len(world[0].records(RUNS)) == 1


@pytest.mark.parametrize(("case", "says"), [
    ("unreachable", "cannot reach"),
    ("wrong model", "does not serve a model named 'gpt-none' (it serves: m)"),
    ("another protocol", "does not speak the OpenAI API: GET /models answered text/html"),
    ("a gRPC server", "does not speak the OpenAI API"),
    ("key needed", "refused the request (401): it needs a key"),
    ("redirect inside", "does not speak the OpenAI API: GET /models answered 302"),
    ("grpc unreachable", "cannot reach a gRPC ModelService"),
    ("grpc at http", "is it a gRPC server?"),
])
def test_a_bad_endpoint_is_refused_with_one_line_and_nothing_planned(world: tuple[InProcBus, Store],
                                                                      listeners: Listeners, case: str,
                                                                      says: str) -> None:
    model = {
        "unreachable": dict(backend="openai", base_url=f"http://127.0.0.1:{_closed_port()}/v1", model="m"),
        "wrong model": dict(backend="openai", base_url=listeners.url("ok"), model="gpt-none"),
        "another protocol": dict(backend="openai", base_url=listeners.url("html"), model="m"),
        "a gRPC server": dict(backend="openai", base_url=f"http://127.0.0.1:{listeners.grpc_port}/v1", model="m"),
        "key needed": dict(backend="openai", base_url=listeners.url("keyed"), model="m"),
        "redirect inside": dict(backend="openai", base_url=listeners.url("redirect"), model="m"),
        "grpc unreachable": dict(backend="grpc", base_url=f"127.0.0.1:{_closed_port()}", model="m"),
        "grpc at http": dict(backend="grpc", base_url=f"127.0.0.1:{listeners.http_port}", model="m"),
    }[case]
    r = _client(world).post("/runs", json=_run(**model))
    assert r.status_code == 422 and "model probe: " in r.text and says in r.text, r.text
    assert "\n" not in r.json()["detail"] and len(r.text) < 500
    assert world[0].records(RUNS) == []


def test_the_key_is_probed_with_and_never_echoed(world: tuple[InProcBus, Store], listeners: Listeners,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    client = _client(world)
    r = client.post("/runs", json=_run(backend="openai", base_url=listeners.url("keyed"), model="m",
                                       api_key_ref="missing"))
    assert r.status_code == 422 and "api_key_ref" in r.text  # a key the team has not registered: refused first
    monkeypatch.setenv("LIVETAB_TEAM_BLUE_WRONG", "sk-not-the-key")
    r = client.post("/runs", json=_run(backend="openai", base_url=listeners.url("keyed"), model="m",
                                       api_key_ref="wrong"))
    assert r.status_code == 422 and "check the secret api_key_ref names" in r.text and "sk-not" not in r.text
    monkeypatch.setenv("LIVETAB_TEAM_BLUE_OPENAI", KEY)
    listeners.seen.clear()
    r = client.post("/runs", json=_run(backend="openai", base_url=listeners.url("keyed"), model="m",
                                       api_key_ref="openai"))
    assert r.status_code == 202 and KEY not in r.text, r.text
    assert listeners.seen == [("GET", "/keyed/v1/models", f"Bearer {KEY}")]
    assert len(world[0].records(RUNS)) == 1


def test_a_serving_grpc_model_service_is_accepted(world: tuple[InProcBus, Store], listeners: Listeners) -> None:
    r = _client(world).post("/runs", json=_run(backend="grpc", base_url=f"127.0.0.1:{listeners.grpc_port}",
                                               model="m"))
    assert r.status_code == 202, r.text


def test_the_probe_can_be_turned_off(world: tuple[InProcBus, Store]) -> None:
    r = _client(world, probe=False).post("/runs", json=_run(backend="openai", model="m",
                                                            base_url=f"http://127.0.0.1:{_closed_port()}/v1"))
    assert r.status_code == 202, r.text
