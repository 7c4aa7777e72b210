"""A record whose output goes to a topic the bus does not have is dead-lettered (and stored with its run),
not left to block the producer; the worker goes on with the next record."""

from __future__ import annotations

from pathlib import Path

from google.protobuf.message import Message
from livetab.bus import HandlerContext, InProcBus, Outgoing, Worker
from livetab.store import open_store, schema
from livetab.topics import TOPICS
from livetab.v1 import inference_pb2, judgment_pb2


class Router:
    """Sends each result on to the topic its `format` names (fault injection: one names no topic)."""

    service = "judge"
    topics = ["livetab.inference.results.v1"]

    def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
        assert isinstance(message, inference_pb2.InferenceResult)
        return [Outgoing(message.format, judgment_pb2.Judgment(id=message.id, run_id=message.run_id))]


def test_an_output_for_a_missing_topic_is_dead_lettered_with_its_run(tmp_path: Path) -> None:
    bus = InProcBus(known_topics={t.name for t in TOPICS})
    store = open_store(f"sqlite:///{tmp_path / 'w.db'}")
    for i, topic in enumerate(["livetab.judgments.v1", "livetab.inference.requests.nowhere.v1",
                               "livetab.judgments.v1"]):
        bus.publish(Outgoing("livetab.inference.results.v1",
                             inference_pb2.InferenceResult(id=f"r{i}", run_id="run-1", format=topic)))
    worker = Worker(Router(), bus, HandlerContext(store=store, settings=None), poll_timeout_s=0)
    worker.run(until_idle=True)
    assert [r.offset for r in bus.records("livetab.judgments.v1")] == [0, 1]  # the others went on
    assert bus.records("livetab.inference.requests.nowhere.v1") == []
    (letter,) = store.select(schema.dead_letters)
    assert (letter["run_id"], letter["service"], letter["offset"]) == ("run-1", "judge", 1)
    assert "livetab.inference.requests.nowhere.v1 does not exist" in letter["error"]
    assert worker.alive and bus.lag(worker.group, "livetab.inference.results.v1") == 0
