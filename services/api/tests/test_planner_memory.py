"""The planner's memory is bounded by what the producer holds, not by the run's size (issue 16: the api held
~2-3 KB per planned request while publishing a run, +300 MB at 100,000): a run's requests are made as the
worker publishes them (OutgoingStream), so publishing a run ten times as large takes about the same peak.

The bus is the in-process one, except that request records are counted and dropped as a broker would take
them (the in-process bus keeps every record, which is the memory this test must not measure)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from livetab.bus import HandlerContext, InProcBus, Outgoing, Worker
from livetab.records import question_row
from livetab.runs import build_run
from livetab.store import Store, open_store, schema
from livetab.topics import TOPICS
from livetab.v1 import common_pb2, question_pb2
from livetab_api.planner import PlannerHandler

from tests.support.releases import publish

SPEC = common_pb2.ModelSpec(name="m", backend="openai", base_url="http://127.0.0.1:9/v1", model="m")


class _Broker(InProcBus):
    """Request records serialised (as the Kafka bus does) and counted, not kept."""

    def __init__(self) -> None:
        super().__init__(known_topics={t.name for t in TOPICS})
        self.sent = 0
        self.ids: set[str] = set()

    def publish(self, out: Outgoing, headers: dict[str, str] | None = None) -> None:
        if out.topic.startswith("livetab.inference.requests."):
            assert out.message.SerializeToString() and headers  # the worker made this record's headers
            self.sent += 1
            if self.sent <= 50:
                self.ids.add(out.message_id)
            return
        super().publish(out, headers)


def _store(tmp_path: Path) -> Store:
    store = open_store(f"sqlite:///{tmp_path / 'm.db'}")
    store.upsert(schema.questions, [question_row(question_pb2.Question(
        id=f"q{i:04d}", table_id=f"t{i}", family="direct", text=f"What is in row {i}?", status="verified",
        release="r")) for i in range(200)])
    publish(store, "r")
    return store


def _peak_publishing(store: Store, samples: int) -> tuple[int, int]:
    """(requests published, tracemalloc peak in bytes) for planning and publishing one run."""
    bus = _Broker()
    run = build_run("team", "r", SPEC, samples=samples, formats=["markdown", "csv"])
    bus.publish(Outgoing("livetab.runs.v1", run, key=run.id, message_id=run.id))
    worker = Worker(PlannerHandler(), bus, HandlerContext(store=store, settings=None), poll_timeout_s=0)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        worker.run(until_idle=True)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert store.get(schema.runs, run.id)["planned"] == bus.sent  # type: ignore[index]
    assert len(bus.ids) == min(50, bus.sent)  # distinct requests, each published once
    return bus.sent, peak


def test_publishing_a_run_holds_memory_bounded_by_the_stream_not_the_run(tmp_path: Path) -> None:
    store = _store(tmp_path)
    small, small_peak = _peak_publishing(store, 5)  # 2,000 requests
    large, large_peak = _peak_publishing(store, 50)  # 20,000 requests
    assert (small, large) == (2_000, 20_000)
    # held as a list, 18,000 more requests cost >= 13 MB of Python objects alone (730 B each, measured on the
    # list-returning planner); streamed, the peak does not grow with the run
    assert large_peak < small_peak + 2_000_000, (small_peak, large_peak)
    assert large_peak < 6_000_000, large_peak
