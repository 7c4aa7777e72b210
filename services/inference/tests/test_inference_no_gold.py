"""The inference handler hands in-process backends the question (the scripted oracle reads its gold), and a
remote backend never sends it: the OpenAI request body and the gRPC request carry the prompt and sampling,
nothing of the gold."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from livetab.bus import HandlerContext
from livetab.models.base import ChatMessage, Completion, GenerateRequest, SamplingParams
from livetab.models.grpc_backend import GrpcBackend
from livetab.questions import Gold, Question
from livetab.records import question_row, table_row
from livetab.settings import Settings
from livetab.store import open_store, schema
from livetab.v1 import common_pb2, inference_pb2
from livetab_inference.handler import InferenceHandler

from services.inference.tests.inference_data import wtq_table
from services.inference.tests.test_inference_grpc import example_server

GOLD_TEXT = "Zqxv-gold-7f3a"  # in no table and no prompt: if it reaches the wire, the gold leaked


class _Capture:
    """A one-route OpenAI-compatible server that keeps every raw request body."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []
        self.loop = asyncio.new_event_loop()
        self.port = 0
        self._runner: web.AppRunner | None = None

    async def _chat(self, request: web.Request) -> web.Response:
        self.bodies.append(await request.read())
        return web.json_response({"id": "c", "object": "chat.completion", "model": "m",
                                  "choices": [{"index": 0, "message": {"role": "assistant", "content": "42"},
                                               "finish_reason": "stop"}],
                                  "usage": {"prompt_tokens": 5, "completion_tokens": 1}})

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    def __enter__(self) -> _Capture:
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(10)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)


class _Spy:
    name = "spy"

    def __init__(self) -> None:
        self.requests: list[GenerateRequest] = []

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        self.requests.append(request)
        return [Completion(text="42")]


@pytest.fixture
def stored(tmp_path: Path) -> Iterator[tuple[HandlerContext, list[Question]]]:
    store = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    table, record = wtq_table(0)
    store.upsert(schema.tables, [table_row(table.to_proto())])
    qs = [Question(id="q-num", table_id=table.id, family="direct", text=str(record["question"]),
                   gold=Gold(kind="number", number=98765.4321, text=GOLD_TEXT, unit="%")),
          Question(id="q-list", table_id=table.id, family="direct", text="Which rows?",
                   gold=Gold(kind="list", items=[GOLD_TEXT, GOLD_TEXT + "-2"], text=GOLD_TEXT))]
    store.upsert(schema.questions, [question_row(q.to_proto()) for q in qs])
    yield HandlerContext(store=store, settings=Settings()), qs
    store.close()


def _requests(model: common_pb2.ModelSpec, settings: list[str]) -> list[inference_pb2.InferenceRequest]:
    return [inference_pb2.InferenceRequest(id=f"r-{qid}-{s}", run_id="run", question_id=qid, model=model,
                                           format="markdown", setting=s,
                                           sampling=common_pb2.Sampling(temperature=0.0, max_tokens=8, seed=1))
            for qid in ("q-num", "q-list") for s in settings]


def test_in_process_backends_get_the_question_and_its_table(stored: tuple[HandlerContext, list[Question]]) -> None:
    ctx, qs = stored
    spy = _Spy()
    InferenceHandler({"spy": spy}).handle_batch(_requests(common_pb2.ModelSpec(name="spy"), ["with_table"]), ctx)
    assert {r.question.id for r in spy.requests if r.question} == {q.id for q in qs}
    assert all(r.table is not None and r.table.id == qs[0].table_id for r in spy.requests)


def test_the_openai_request_body_carries_no_gold(stored: tuple[HandlerContext, list[Question]]) -> None:
    ctx, _ = stored
    with _Capture() as server:
        model = common_pb2.ModelSpec(name="remote", backend="openai", base_url=f"http://127.0.0.1:{server.port}/v1",
                                     model="m")
        out = InferenceHandler(timeout_s=10).handle_batch(_requests(model, ["with_table", "closed_book"]), ctx)
    assert len(server.bodies) == 4 and all(o.message.response == "42" and not o.message.error for o in out)
    for raw in server.bodies:
        text = raw.decode("utf-8")
        body: dict[str, Any] = json.loads(text)
        assert set(body) <= {"model", "messages", "temperature", "top_p", "max_tokens", "seed", "n"}, set(body)
        assert GOLD_TEXT.lower() not in text.lower() and "98765" not in text
        assert "q-num" not in text and "q-list" not in text  # not even the question's id
        assert all(set(m) == {"role", "content"} for m in body["messages"])


def test_the_grpc_request_carries_no_gold(stored: tuple[HandlerContext, list[Question]]) -> None:
    """A team's ModelService gets the messages and sampling; the question and table stay in this process."""
    _, qs = stored
    spy = _Spy()
    sent = GenerateRequest([ChatMessage("user", "How many rows?")], SamplingParams(seed=2), question=qs[0],
                           table=None)

    async def main() -> None:
        server, port, _health = await example_server().start_server(spy)
        b = GrpcBackend(f"127.0.0.1:{port}", "team-model", timeout_s=5.0)
        try:
            await b.generate(sent)
        finally:
            await b.close()
            await server.stop(grace=None)

    asyncio.run(main())
    (got,) = spy.requests
    assert got.question is None and got.table is None
    assert [(m.role, m.content) for m in got.messages] == [("user", "How many rows?")]
