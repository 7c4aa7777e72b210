"""The rest of the worker's path from poll to commit: what a dead letter records, which handler entry a
batch goes through, the trace a record's outputs stay in, the loop's back-off, deadline and stop.
The bus is the real in-process one."""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import Iterator

import pytest
from google.protobuf.message import Message
from livetab.bus import HandlerContext, InProcBus, Outgoing, PoisonMessage, Retryable, Worker
from livetab.bus.base import Record
from livetab.bus.inproc import InProcConsumer
from livetab.v1 import dlq_pb2, report_pb2, table_pb2

TOPIC = "livetab.tables.v1"
OUT = "livetab.reports.v1"
DLQ = "livetab.dlq.v1"


class Announcer:
    """One report per table; raises what `fail` names for a table id; remembers what it was handed."""

    service = "reporter"
    topics = [TOPIC]

    def __init__(self, fail: dict[str, Exception] | None = None) -> None:
        self.fail = fail or {}
        self.seen: list[tuple[str, Record | None]] = []

    def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
        assert isinstance(message, table_pb2.Table)
        self.seen.append((message.id, ctx.record))
        if message.id in self.fail:
            raise self.fail[message.id]
        return [Outgoing(OUT, report_pb2.LeaderboardUpdate(id=message.id), key=message.id, message_id=message.id)]


class BatchAnnouncer(Announcer):
    def __init__(self, fail: dict[str, Exception] | None = None) -> None:
        super().__init__(fail)
        self.batches: list[list[str]] = []

    def handle_batch(self, messages: list[Message], ctx: HandlerContext) -> list[Outgoing]:
        assert ctx.settings == "settings"  # the worker's context, not another
        self.batches.append([m.id for m in messages])  # type: ignore[attr-defined]
        return [o for m in messages for o in self.handle(m, ctx)]


def _worker(handler: Announcer, ids: list[str], **kw: object) -> tuple[InProcBus, Worker]:
    bus = InProcBus()
    for i in ids:
        bus.publish(Outgoing(TOPIC, table_pb2.Table(id=i), key=f"k-{i}"))
    return bus, Worker(handler, bus, HandlerContext(store=None, settings="settings"), poll_timeout_s=0, **kw)  # type: ignore[arg-type]


def _letters(bus: InProcBus) -> list[dlq_pb2.DeadLetter]:
    return [dlq_pb2.DeadLetter.FromString(r.value) for r in bus.records(DLQ)]


def test_a_dead_letter_carries_everything_needed_to_replay_the_record() -> None:
    handler = Announcer(fail={"b": ValueError("no header row")})
    bus, worker = _worker(handler, ["a", "b"])
    source = bus.records(TOPIC)[1]
    assert worker.run_once() == 2
    (letter,) = _letters(bus)
    assert (letter.source_topic, letter.partition, letter.offset) == (TOPIC, 0, 1)
    assert letter.error == "ValueError: no header row"
    assert letter.consumer_group == worker.group == "livetab-reporter"
    assert letter.key == b"k-b" and letter.value == source.value and dict(letter.headers) == source.headers
    assert letter.failed_at.endswith("+00:00") and len(letter.failed_at) == len("2026-11-30T16:00:00.000+00:00")
    (record,) = bus.records(DLQ)
    assert record.key == TOPIC.encode() and record.headers["message-id"] == f"{TOPIC}:0:1"


class SecondPartition(InProcConsumer):
    """Hands out the in-process log as if it were partition 2 of a partitioned topic."""

    def poll(self, max_records: int, timeout_s: float) -> list[Record]:
        return [Record(r.topic, 2, r.offset, r.key, r.value, r.headers) for r in super().poll(max_records, timeout_s)]


def test_a_dead_letter_names_the_partition_of_its_record(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(InProcBus, "consumer", lambda self, g, t: SecondPartition(self, g, t))
    bus, worker = _worker(Announcer(fail={"a": ValueError("x")}), ["a"])
    worker.run_once()
    (letter,) = _letters(bus)
    assert (letter.partition, letter.offset) == (2, 0)
    assert bus.records(DLQ)[0].headers["message-id"] == f"{TOPIC}:2:0"


def test_a_record_without_key_is_dead_lettered_with_an_empty_key() -> None:
    bus = InProcBus()
    bus.publish_raw(TOPIC, b"\xff\xff not a table", {"message-type": "livetab.v1.Table"})
    worker = Worker(Announcer(), bus, HandlerContext(store=None, settings=None), poll_timeout_s=0)
    assert worker.run_once() == 1
    (letter,) = _letters(bus)
    assert letter.key == b"" and letter.error.startswith("PoisonMessage: cannot decode")


def test_every_failed_record_is_counted_and_only_real_crashes_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    handler = Announcer(fail={"a": PoisonMessage("bad content"), "b": KeyError("x"), "c": PoisonMessage("bad too")})
    bus, worker = _worker(handler, ["a", "b", "c", "d"])
    with caplog.at_level(logging.ERROR, logger="livetab.bus.worker"):
        assert worker.run_once() == 4
    assert worker.stats.dead_lettered == 3 and worker.stats.processed == 1
    assert [ltr.error for ltr in _letters(bus)] == ["PoisonMessage: bad content", "KeyError: 'x'",
                                                     "PoisonMessage: bad too"]
    crashes = [r for r in caplog.records if "failed on" in r.getMessage()]
    assert len(crashes) == 1 and f"{TOPIC}:0:1" in crashes[0].getMessage()  # poison is expected, not logged


def test_the_handler_sees_the_record_it_handles() -> None:
    handler = Announcer()
    _bus, worker = _worker(handler, ["a", "b"])
    worker.run_once()
    assert [(i, r.offset if r else None) for i, r in handler.seen] == [("a", 0), ("b", 1)]


def test_a_batch_goes_to_handle_batch_once_and_a_single_record_to_handle() -> None:
    handler = BatchAnnouncer()
    bus, worker = _worker(handler, ["a", "b", "c"])
    assert worker.run_once() == 3
    assert handler.batches == [["a", "b", "c"]]
    bus.publish(Outgoing(TOPIC, table_pb2.Table(id="d")))
    assert worker.run_once() == 1
    assert handler.batches == [["a", "b", "c"]] and handler.seen[-1][0] == "d"  # one record: handle()
    assert worker.stats.processed == 4 and worker.stats.batches == 2 and worker.stats.published == 4
    for i in ("e", "f"):
        bus.publish(Outgoing(TOPIC, table_pb2.Table(id=i)))
    assert worker.run_once() == 2 and handler.batches[-1] == ["e", "f"]
    assert worker.stats.processed == 6 and worker.stats.batches == 3


def test_undecodable_records_in_a_batch_are_dead_lettered_and_the_rest_handled_together() -> None:
    handler = BatchAnnouncer()
    bus = InProcBus()
    bus.publish(Outgoing(TOPIC, table_pb2.Table(id="a")))
    bus.publish_raw(TOPIC, b"\xff\xff", {"message-type": "livetab.v1.Table"})
    bus.publish_raw(TOPIC, b"", {})
    bus.publish(Outgoing(TOPIC, table_pb2.Table(id="b")))
    worker = Worker(handler, bus, HandlerContext(store=None, settings="settings"), poll_timeout_s=0)
    assert worker.run_once() == 4
    assert handler.batches == [["a", "b"]]
    letters = _letters(bus)
    assert [(ltr.offset, ltr.error.split(":")[0]) for ltr in letters] == [(1, "PoisonMessage"), (2, "PoisonMessage")]
    assert all(r.headers["message-type"] == "livetab.v1.DeadLetter" for r in bus.records(DLQ))
    assert worker.stats.dead_lettered == 2 and worker.stats.processed == 2
    assert len(bus.records(OUT)) == 2


def test_a_failing_batch_is_retried_record_by_record() -> None:
    handler = BatchAnnouncer(fail={"b": ValueError("bad")})  # "b" fails the batch it is in
    bus, worker = _worker(handler, ["a", "b", "c"])
    assert worker.run_once() == 3
    assert len(handler.batches) == 1 and [i for i, _ in handler.seen] == ["a", "b", "a", "b", "c"]
    assert len(bus.records(OUT)) == 2 and len(_letters(bus)) == 1 and worker.stats.processed == 2


def test_outputs_stay_in_the_trace_of_the_record_that_caused_them() -> None:
    for handler in (Announcer(), BatchAnnouncer()):
        bus, worker = _worker(handler, ["a", "b"])
        worker.run_once()
        inputs = [r.headers["traceparent"].split("-")[1] for r in bus.records(TOPIC)]
        outputs = [r.headers["traceparent"].split("-")[1] for r in bus.records(OUT)]
        if isinstance(handler, BatchAnnouncer):
            assert outputs == [inputs[0]] * 2  # a batch continues the trace of its first record
        else:
            assert outputs == inputs


def test_on_idle_gets_the_worker_context_and_publishes_add_up() -> None:
    class Idle(Announcer):
        def __init__(self) -> None:
            super().__init__()
            self.contexts: list[object] = []

        def on_idle(self, ctx: HandlerContext) -> list[Outgoing]:
            self.contexts.append(ctx.settings)
            return [Outgoing(OUT, report_pb2.LeaderboardUpdate(id=f"idle-{len(self.contexts)}"))]

    handler = Idle()
    _bus, worker = _worker(handler, ["a"])
    assert worker.run_once() == 1 and worker.stats.published == 1
    assert worker.run_once() == 0 and worker.run_once() == 0
    assert handler.contexts == ["settings", "settings"] and worker.stats.published == 3


class PollRecorder(InProcConsumer):
    polls: list[tuple[int, float]] = []

    def poll(self, max_records: int, timeout_s: float) -> list[Record]:
        self.polls.append((max_records, timeout_s))
        return super().poll(max_records, timeout_s)


def test_run_until_idle_takes_batches_of_max_records_with_the_poll_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(InProcBus, "consumer", lambda self, g, t: PollRecorder(self, g, t))
    PollRecorder.polls = []
    bus = InProcBus()
    for i in range(5):
        bus.publish(Outgoing(TOPIC, table_pb2.Table(id=str(i))))
    worker = Worker(Announcer(), bus, HandlerContext(store=None, settings=None), max_records=2, poll_timeout_s=0.25)
    stats = worker.run(until_idle=True)
    assert stats.batches == 3 and stats.processed == 5 and stats.published == 5
    assert PollRecorder.polls == [(2, 0.25)] * 4  # three batches, then the empty poll that ends the run


@pytest.fixture
def no_sleep(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[float]]:
    slept: list[float] = []
    monkeypatch.setattr("livetab.bus.worker.time.sleep", slept.append)
    monkeypatch.setattr("livetab.bus.worker.random.random", lambda: 0.5)  # no jitter: the back-off itself
    yield slept


def test_back_off_doubles_up_to_thirty_seconds_and_resets_after_a_success(no_sleep: list[float]) -> None:
    class Flaky(Announcer):
        def __init__(self, failures: int) -> None:
            super().__init__()
            self.failures = failures

        def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
            if self.failures > 0:
                self.failures -= 1
                raise Retryable("endpoint down")
            return super().handle(message, ctx)

    handler = Flaky(failures=8)
    bus, worker = _worker(handler, ["a"])
    stats = worker.run(until_idle=True)
    assert no_sleep == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]
    assert stats.retries == 8 and stats.processed == 1 and bus.lag(worker.group, TOPIC) == 0

    no_sleep.clear()
    handler.failures = 2
    bus.publish(Outgoing(TOPIC, table_pb2.Table(id="b")))
    worker = Worker(handler, bus, HandlerContext(store=None, settings=None), poll_timeout_s=0)
    worker.run(until_idle=True)
    assert no_sleep == [0.5, 1.0]


def test_back_off_starts_again_after_a_success(no_sleep: list[float]) -> None:
    class FirstTryFails(Announcer):
        def __init__(self) -> None:
            super().__init__()
            self.tried: set[str] = set()

        def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
            if message.id not in self.tried:  # type: ignore[attr-defined]
                self.tried.add(message.id)  # type: ignore[attr-defined]
                raise Retryable("cold start")
            return super().handle(message, ctx)

    _bus, worker = _worker(FirstTryFails(), ["c", "d"], max_records=1)
    stats = worker.run(until_idle=True)
    assert no_sleep == [0.5, 0.5]  # "c" fails, then succeeds; "d" fails: the back-off is fresh again
    assert stats.retries == 2 and stats.processed == 2


def test_without_until_idle_the_loop_runs_until_its_deadline() -> None:
    class Refill(Announcer):
        """On the first quiet poll, a new table arrives (as one would from another service)."""

        def on_idle(self, ctx: HandlerContext) -> list[Outgoing]:
            if len(self.seen) == 1:
                bus.publish(Outgoing(TOPIC, table_pb2.Table(id="second")))
            return []

    bus, worker = _worker(Refill(), ["a"])
    stats = worker.run(max_seconds=0.3)  # a quiet poll does not end it: "second" is taken too
    assert stats.processed == 2
    bus.publish(Outgoing(TOPIC, table_pb2.Table(id="late")))
    assert bus.lag(worker.group, TOPIC) == 1  # the loop had ended: nobody took it


def test_a_deadline_already_passed_processes_nothing() -> None:
    bus, worker = _worker(Announcer(), ["a"])
    stats = worker.run(max_seconds=1e-9)
    assert stats.processed == 0 and bus.lag(worker.group, TOPIC) == 1


def test_sigterm_finishes_and_commits_the_current_batch_then_stops() -> None:
    class Terminated(Announcer):
        def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
            if message.id == "b":  # type: ignore[attr-defined]
                os.kill(os.getpid(), signal.SIGTERM)
            return super().handle(message, ctx)

    previous = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    bus, worker = _worker(Terminated(), ["a", "b", "c"], max_records=2)
    try:
        worker.install_signal_handlers()
        assert signal.getsignal(signal.SIGINT) == worker.stop
        stats = worker.run()  # no deadline, not until idle: only the signal ends it
    finally:
        signal.signal(signal.SIGTERM, previous[0])
        signal.signal(signal.SIGINT, previous[1])
    assert stats.processed == 2 and stats.batches == 1
    assert bus.lag(worker.group, TOPIC) == 1 and len(bus.records(OUT)) == 2  # "c" waits for the next worker
