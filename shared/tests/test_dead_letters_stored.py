"""Failures do not vanish (issue 16: "a bad model spec ... ends as a traceback in a service log and a record on
the dead-letter topic, but the dead_letters table stays empty"): a record a handler cannot process is stored as
a dead letter with its run, its service and its reason, and the worker goes on with the next record.

Written against names that exist both before the fix (8a52a0f) and now, so deploy/failed_before.py runs this
very file on the old code, where it fails (nothing stored)."""

from __future__ import annotations

from pathlib import Path

from google.protobuf.message import Message
from livetab.bus import HandlerContext, InProcBus, Outgoing, Worker
from livetab.store import open_store, schema
from livetab.v1 import common_pb2, inference_pb2


class _BadSpecModel:
    """Fault injection: the model stage meets a spec it cannot build a backend for on the second record."""

    service = "inference"
    topics = ["livetab.inference.requests.v1"]

    def __init__(self) -> None:
        self.handled: list[str] = []

    def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
        assert isinstance(message, inference_pb2.InferenceRequest)
        if message.model.params.get("bogus"):
            raise ValueError(f"model spec {message.model.name!r}: unknown option(s) for backend llama_local: bogus")
        self.handled.append(message.id)
        return []


def test_a_record_the_handler_cannot_process_is_stored_with_its_run_and_reason(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'd.db'}")
    bus = InProcBus()
    good = common_pb2.ModelSpec(name="m", backend="llama_local")
    bad = common_pb2.ModelSpec(name="m", backend="llama_local", params={"bogus": "1"})
    for i, spec in enumerate([good, bad, good]):
        bus.publish(Outgoing("livetab.inference.requests.v1",
                             inference_pb2.InferenceRequest(id=f"req{i}", run_id="run-1", model=spec)))
    handler = _BadSpecModel()
    Worker(handler, bus, HandlerContext(store=store, settings=None), poll_timeout_s=0).run(until_idle=True)
    assert handler.handled == ["req0", "req2"]  # the worker went on
    letters = store.select(schema.dead_letters)
    assert len(letters) == 1, "the dead letter was not stored"
    (letter,) = letters
    assert (letter["run_id"], letter["service"], letter["source_topic"], letter["offset"]) == (
        "run-1", "inference", "livetab.inference.requests.v1", 1)
    assert "unknown option(s) for backend llama_local: bogus" in letter["error"]
    assert len(bus.records("livetab.dlq.v1")) == 1
    store.close()
