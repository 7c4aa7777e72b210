"""A model's API key is held as a reference to the team's secret and reaches only the model endpoint.

An embedded cycle runs against a local OpenAI-compatible listener with a known key, then the api is asked about
it; the key must appear in the Authorization header the listener received and nowhere else: not in any log
record or captured output, any row of any table of the store, any file the cycle wrote, or any api answer."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from aiohttp import web
from fastapi.testclient import TestClient
from livetab.bus import InProcBus
from livetab.settings import ApiSettings, GuardSettings, load_settings
from livetab.store import open_store, schema
from livetab.topics import TOPICS
from livetab_api.app import create_app
from livetab_cli.embedded import run_embedded

from tests.support.sample import sample_pages
from tests.support.tokens import bearer

KEY = "sk-livetab-secret-7c3f9e21b04d"
ENV = "LIVETAB_TEAM_LOCAL_OPENAI"


@pytest.fixture
def listener() -> Iterator[tuple[str, list[str]]]:
    """An OpenAI-compatible endpoint on 127.0.0.1 that answers "1" and records every Authorization header."""
    seen: list[str] = []
    ready = threading.Event()
    state: dict[str, Any] = {}

    async def models(request: web.Request) -> web.Response:  # what the api's probe asks before it takes a run
        seen.append(request.headers.get("Authorization", ""))
        return web.json_response({"object": "list", "data": [{"id": "x", "object": "model"}]})

    async def chat(request: web.Request) -> web.Response:
        seen.append(request.headers.get("Authorization", ""))
        await request.read()
        return web.json_response({"choices": [{"index": 0, "message": {"content": "1"}}],
                                  "usage": {"prompt_tokens": 5, "completion_tokens": 1}})

    def serve() -> None:
        loop = asyncio.new_event_loop()
        app = web.Application()
        app.router.add_post("/v1/chat/completions", chat)
        app.router.add_get("/v1/models", models)
        runner = web.AppRunner(app, access_log=None)
        loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", 0)
        loop.run_until_complete(site.start())
        state["port"] = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        state["loop"], state["runner"] = loop, runner
        ready.set()
        loop.run_forever()
        loop.run_until_complete(runner.cleanup())

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    assert ready.wait(10)
    yield f"http://127.0.0.1:{state['port']}/v1", seen
    state["loop"].call_soon_threadsafe(state["loop"].stop)
    t.join(5)


def test_the_key_reaches_the_endpoint_and_nowhere_else(tmp_path: Path, listener: tuple[str, list[str]],
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       caplog: pytest.LogCaptureFixture,
                                                       capfd: pytest.CaptureFixture[str]) -> None:
    url, seen = listener
    monkeypatch.setenv(ENV, KEY)
    caplog.set_level(logging.DEBUG)
    pages = sample_pages(tmp_path / "pages", ["203-733", "203-278"])
    cfg = {
        "out_dir": str(tmp_path / "out"),
        "store": {"url": f"sqlite:///{tmp_path / 's.db'}"},
        "sources": [{"kind": "local_html", "location": str(pages)}],
        "models": [{"name": "keyed", "backend": "openai", "base_url": url, "model": "x", "api_key_ref": ENV,
                    "params": {"max_attempts": "1"}}],
        "qagen": {"families": ["direct"], "per_table": 2},
        "run": {"release": "k", "max_tokens": 8},
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    summary = run_embedded(load_settings(tmp_path / "c.yaml", env={}))
    assert summary.run_ids and seen and set(seen) == {f"Bearer {KEY}"}  # the endpoint got the key, every call

    store = open_store(cfg["store"]["url"])
    guard = GuardSettings(allow=["127.0.0.0/8"])
    client = TestClient(create_app(InProcBus(known_topics={t.name for t in TOPICS}), store, ApiSettings(), guard=guard),
                        headers=bearer(store))  # an admin of team "local", whose secrets are LIVETAB_TEAM_LOCAL_*
    answers = [client.get(p) for p in ("/releases", "/releases/k", "/dead-letters", *(f"/runs/{r}" for r in summary.run_ids))]
    model = {"name": "keyed", "backend": "openai", "base_url": url, "model": "x"}
    answers += [client.post("/runs", json={"release": "k", "model": {**model, "api_key_ref": ref}})
                for ref in ("openai", ENV, KEY, "HOME")]
    own, foreign = answers[-4:-2], answers[-2:]
    assert all(a.status_code == 202 for a in own), [a.text for a in own]  # the team's own: probed, accepted
    assert all(a.status_code == 422 and "api_key_ref" in a.text for a in foreign), [a.text for a in foreign]
    texts = [a.text for a in answers]

    rows = [repr(store.select(table)) for table in schema.metadata.sorted_tables]
    files = [p.read_bytes().decode("utf-8", "replace") for p in Path(cfg["out_dir"]).rglob("*") if p.is_file()]
    out, err = capfd.readouterr()
    logs = [r.getMessage() for r in caplog.records] + [out, err]
    assert rows and files and logs
    for where, texts_of in (("the store", rows), ("an output file", files), ("the logs", logs),
                            ("an api answer", texts)):
        leaked = [t[:200] for t in texts_of if KEY in t]
        assert not leaked, f"the key appears in {where}: {leaked}"
