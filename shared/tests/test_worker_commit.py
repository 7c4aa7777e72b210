"""The worker commits a record's offset only after everything the record caused is done: the handler's
store writes, its outputs published and flushed. Committing earlier loses work on a crash (the record is
never delivered again, but its effects were never stored). A retryable failure commits nothing, and the
records come again. The bus is the real in-process one; a thin recorder around it only measures the order."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

import pytest
from google.protobuf.message import Message
from livetab.bus import HandlerContext, InProcBus, Outgoing, OutgoingStream, Retryable, Worker
from livetab.bus.base import Record
from livetab.bus.inproc import InProcConsumer
from livetab.v1 import report_pb2, table_pb2

TOPIC = "livetab.tables.v1"
OUT = "livetab.reports.v1"


class Recorder:
    """One ordered log of what happened: store writes, publishes, flushes, commits."""

    def __init__(self) -> None:
        self.events: list[str] = []


class RecordingConsumer(InProcConsumer):
    def __init__(self, bus: RecordingBus, group: str, topic_names: list[str]) -> None:
        super().__init__(bus, group, topic_names)
        self.log = bus.log

    def commit(self, records: list[Record]) -> None:
        self.log.events.append("commit:" + ",".join(str(r.offset) for r in records))
        super().commit(records)

    def rewind(self) -> None:
        self.log.events.append("rewind")
        super().rewind()


class RecordingBus(InProcBus):
    def __init__(self, log: Recorder) -> None:
        super().__init__()
        self.log = log

    def publish(self, out: Outgoing, headers: dict[str, str] | None = None) -> None:
        if out.topic != TOPIC:
            self.log.events.append(f"publish:{out.topic}")
        super().publish(out, headers)

    def flush(self, timeout_s: float = 30.0) -> None:
        self.log.events.append("flush")

    def consumer(self, group: str, topic_names: list[str]) -> RecordingConsumer:
        return RecordingConsumer(self, group, topic_names)


class Store:
    """A store whose upserts land in the shared log (what matters here is when, not what)."""

    def __init__(self, log: Recorder) -> None:
        self.log = log
        self.rows: dict[str, str] = {}
        self.dead_letters: list[object] = []

    def upsert(self, key: object, value: object) -> None:
        if isinstance(key, str):  # the handler's own effect
            self.rows[key] = str(value)
            self.log.events.append(f"store:{key}")
        else:  # a table of the store: the worker storing dead letters
            self.dead_letters.extend(value if isinstance(value, list) else [value])
            self.log.events.append(f"store:{getattr(key, 'name', key)}")


class Cleaner:
    """Stores each table, then announces it; `fail` makes it raise for tables with that id."""

    service = "scraper"
    topics = [TOPIC]

    def __init__(self, fail: dict[str, Exception] | None = None) -> None:
        self.fail = fail or {}

    def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
        assert isinstance(message, table_pb2.Table)
        if message.id in self.fail:
            raise self.fail[message.id]
        ctx.store.upsert(message.id, message.caption)
        return [Outgoing(OUT, report_pb2.LeaderboardUpdate(id=message.id), key=message.id, message_id=message.id)]


class BatchCleaner(Cleaner):
    def handle_batch(self, messages: list[Message], ctx: HandlerContext) -> list[Outgoing]:
        return [o for m in messages for o in self.handle(m, ctx)]


def _setup(handler: Cleaner, ids: list[str]) -> tuple[Recorder, RecordingBus, Worker, Store]:
    log = Recorder()
    bus = RecordingBus(log)
    for i in ids:
        bus.publish(Outgoing(TOPIC, table_pb2.Table(id=i, caption=f"caption {i}")))
    store = Store(log)
    worker = Worker(handler, bus, HandlerContext(store=store, settings=None), poll_timeout_s=0)
    return log, bus, worker, store


@pytest.mark.parametrize("handler", [Cleaner(), BatchCleaner()], ids=["one_by_one", "batch"])
def test_offsets_are_committed_after_effects_are_stored_and_published(handler: Cleaner) -> None:
    log, bus, worker, store = _setup(handler, ["a", "b", "c"])
    assert worker.run_once() == 3
    assert log.events == ["store:a", "store:b", "store:c", *[f"publish:{OUT}"] * 3, "flush", "commit:0,1,2"]
    assert set(store.rows) == {"a", "b", "c"}
    assert bus.lag(worker.group, TOPIC) == 0
    assert worker.stats.processed == 3 and worker.stats.published == 3 and worker.stats.batches == 1
    assert worker.run_once() == 0  # nothing is delivered twice once committed


@pytest.mark.parametrize("handler_type", [Cleaner, BatchCleaner], ids=["one_by_one", "batch"])
def test_a_retryable_failure_commits_nothing_and_the_records_come_again(handler_type: type[Cleaner]) -> None:
    handler = handler_type(fail={"b": Retryable("store down")})
    log, bus, worker, store = _setup(handler, ["a", "b", "c"])
    with pytest.raises(Retryable):
        worker.run_once()
    assert not any(e.startswith("commit") for e in log.events)
    assert bus.lag(worker.group, TOPIC) == 3 and worker.stats.batches == 0
    worker.consumer.rewind()  # what run() does before it backs off
    handler.fail.clear()
    log.events.clear()
    assert worker.run_once() == 3  # all three again: "a" was stored but not committed, it is redone
    assert log.events[-1] == "commit:0,1,2" and log.events.index("flush") < len(log.events) - 1
    assert {e for e in log.events if e.startswith("store")} == {"store:a", "store:b", "store:c"}
    assert set(store.rows) == {"a", "b", "c"} and bus.lag(worker.group, TOPIC) == 0


def test_run_rewinds_after_a_retryable_failure_and_finishes_the_work(monkeypatch: pytest.MonkeyPatch) -> None:
    handler = Cleaner(fail={"a": Retryable("endpoint down")})
    log, bus, worker, store = _setup(handler, ["a", "b"])
    slept: list[float] = []

    def sleep(s: float) -> None:  # the back-off: record it, and let the endpoint come back
        slept.append(s)
        handler.fail.clear()

    monkeypatch.setattr("livetab.bus.worker.time.sleep", sleep)
    stats = worker.run(until_idle=True)
    assert stats.retries == 1 and len(slept) == 1 and 0.25 <= slept[0] <= 0.75
    assert "rewind" in log.events and log.events.index("rewind") < log.events.index("store:a")
    assert set(store.rows) == {"a", "b"} and bus.lag(worker.group, TOPIC) == 0


@pytest.mark.parametrize("handler_type", [Cleaner, BatchCleaner], ids=["one_by_one", "batch"])
def test_a_poison_record_is_dead_lettered_before_the_batch_is_committed(handler_type: type[Cleaner]) -> None:
    handler = handler_type(fail={"b": ValueError("bad table")})
    log, bus, worker, store = _setup(handler, ["a", "b", "c"])
    assert worker.run_once() == 3
    assert log.events[-2:] == ["flush", "commit:0,1,2"]
    assert log.events.count("publish:livetab.dlq.v1") == 1 and log.events.count(f"publish:{OUT}") == 2
    assert set(store.rows) == {"a", "c"} and len(store.dead_letters) == 1
    assert log.events.index("store:dead_letters") < log.events.index("commit:0,1,2")  # stored before committed
    letters = bus.records("livetab.dlq.v1")
    assert len(letters) == 1 and worker.stats.dead_lettered == 1 and worker.stats.processed == 2
    assert letters[0].headers["message-id"] == f"{TOPIC}:0:1"


class _Coordinator:
    """What `KafkaBusConsumer` asks of confluent-kafka's consumer for its commits. librdkafka answers a commit
    through the consumer's `on_commit` callback during a later poll; here the test answers each sent commit when
    it says so (`answer`): a success, or the error a broker would give."""

    def __init__(self, assigned: set[tuple[str, int]] | None = None) -> None:
        self.sent: list[dict[tuple[str, int], int]] = []  # offsets of each async commit
        self.waited: list[dict[tuple[str, int], int]] = []  # offsets of each commit waited for
        self.assigned = assigned
        self.consumer: object = None

    def commit(self, offsets: list[object], asynchronous: bool = True) -> None:
        (self.sent if asynchronous else self.waited).append({(tp.topic, tp.partition): tp.offset for tp in offsets})

    def answer(self, error: object = None) -> None:
        """The broker's answer to the oldest unanswered commit, as librdkafka hands it to the callback."""
        self.consumer._answered(error, [])  # type: ignore[attr-defined]

    def assignment(self) -> list[object]:
        from confluent_kafka import TopicPartition

        mine = self.assigned if self.assigned is not None else {w for o in self.sent for w in o}
        return [TopicPartition(t, p) for t, p in sorted(mine)]

    def close(self) -> None:
        pass

    def poll(self, timeout: float = 0) -> object:
        return None  # nothing new on the topic


def _consumer(coordinator: _Coordinator) -> object:
    from livetab.bus.kafka import KafkaBusConsumer

    consumer = object.__new__(KafkaBusConsumer)
    consumer._c = coordinator  # type: ignore[attr-defined]
    consumer._unanswered, consumer._refused = 0, None  # type: ignore[attr-defined]
    consumer._last, consumer._confirmed = {}, True  # type: ignore[attr-defined]
    consumer._commit_wait_s = 5.0  # type: ignore[attr-defined]
    consumer._polled, consumer._unpacked = deque(), deque()  # type: ignore[attr-defined]
    consumer._per_record, consumer._max_poll_records = 1.0, 200  # type: ignore[attr-defined]
    consumer._group, consumer._what, consumer._rewind_due = "g", "group g", False  # type: ignore[attr-defined]
    coordinator.consumer = consumer
    return consumer


def _rec(offset: int, partition: int = 0) -> Record:
    return Record("livetab.tables.v1", partition, offset, b"k", b"v", {})


def _error(name: str) -> object:
    from confluent_kafka import KafkaError

    return KafkaError(getattr(KafkaError, name))


@pytest.mark.parametrize("error", ["REBALANCE_IN_PROGRESS", "ILLEGAL_GENERATION", "UNKNOWN_MEMBER_ID",
                                   "_ASSIGNMENT_LOST"])
def test_a_kafka_commit_refused_by_a_rebalance_is_retryable(error: str) -> None:
    """Found by the pipeline bench on a loaded machine: the inference service exited when the broker refused
    its commit during a rebalance (a member joined or timed out). That refusal is passing: `Retryable`, so the
    worker rewinds and reads the records again, never a stopped service. Commits are sent without waiting for
    the answer, so the refusal comes out of the next commit (or poll), before that one is sent. The broker's
    refusal is injected."""
    broker = _Coordinator()
    consumer = _consumer(broker)
    consumer.commit([_rec(7)])  # type: ignore[attr-defined]
    broker.answer(_error(error))
    with pytest.raises(Retryable, match="rebalance"):
        consumer.commit([_rec(8)])  # type: ignore[attr-defined]
    assert len(broker.sent) == 1  # the next commit was not sent
    consumer.commit([])  # type: ignore[attr-defined]  # nothing to commit: the broker is not asked
    assert len(broker.sent) == 1
    consumer.close()  # type: ignore[attr-defined]
    assert broker.waited == []  # after a refusal nothing is committed again on the way out

    consumer = _consumer(broker := _Coordinator())
    consumer.commit([_rec(7)])  # type: ignore[attr-defined]
    broker.answer(_error(error))  # answered during a poll that read nothing: the next poll raises it
    with pytest.raises(Retryable, match="rebalance"):
        consumer.poll(10, 0.0)  # type: ignore[attr-defined]
    consumer.rewind = lambda: None  # type: ignore[attr-defined]


def test_commits_are_not_waited_for_and_close_commits_the_last_unless_the_broker_took_it() -> None:
    """A commit does not wait for the broker (librdkafka sends them in order). A passing failure (a timeout) is
    left to the next commit, which covers its offsets; if none comes, `close` commits the last offsets and waits,
    for the partitions still assigned only. Once the broker took the last commit, `close` sends nothing more."""
    broker = _Coordinator()
    consumer = _consumer(broker)
    consumer.commit([_rec(3), _rec(5), _rec(2, partition=1)])  # type: ignore[attr-defined]
    assert broker.sent == [{("livetab.tables.v1", 0): 6, ("livetab.tables.v1", 1): 3}]
    consumer.commit([_rec(9)])  # type: ignore[attr-defined]  # sent before the first is answered
    assert len(broker.sent) == 2
    broker.answer()
    broker.answer(_error("REQUEST_TIMED_OUT"))
    consumer.commit([_rec(10, partition=1)])  # type: ignore[attr-defined]  # a passing failure: no error
    assert len(broker.sent) == 3
    broker.assigned = {("livetab.tables.v1", 1)}  # partition 0 went to another member
    consumer.close()  # type: ignore[attr-defined]  # the third is never answered: close commits again and waits
    assert broker.waited == [{("livetab.tables.v1", 1): 11}]

    broker = _Coordinator()
    consumer = _consumer(broker)
    consumer.commit([_rec(1)])  # type: ignore[attr-defined]
    broker.answer()
    consumer.close()  # type: ignore[attr-defined]
    assert broker.waited == []  # the broker took the last one: nothing more to commit

    broker = _Coordinator()
    consumer = _consumer(broker)
    consumer.commit([_rec(1)])  # type: ignore[attr-defined]
    consumer.commit([_rec(2)])  # type: ignore[attr-defined]
    broker.answer(_error("REQUEST_TIMED_OUT"))
    broker.answer()  # the later commit, taken, covers the earlier one's offsets
    consumer.close()  # type: ignore[attr-defined]
    assert broker.waited == []


def test_an_idle_consumer_sends_again_a_last_commit_that_failed_for_a_passing_reason() -> None:
    """No later commit covers the last one of a consumer that goes idle: once it is answered with a passing
    failure, the next poll sends it again (else its group's lag would stay until the next record); once the
    broker took it, polls send nothing; one still unanswered is not sent again by a poll."""
    broker = _Coordinator()
    consumer = _consumer(broker)
    consumer.commit([_rec(4)])  # type: ignore[attr-defined]
    assert consumer.poll(10, 0.0) == [] and len(broker.sent) == 1  # type: ignore[attr-defined]  # unanswered
    broker.answer(_error("REQUEST_TIMED_OUT"))
    consumer.poll(10, 0.0)  # type: ignore[attr-defined]
    assert broker.sent == [{("livetab.tables.v1", 0): 5}] * 2
    broker.answer()
    consumer.poll(10, 0.0)  # type: ignore[attr-defined]
    consumer.poll(10, 0.0)  # type: ignore[attr-defined]
    assert len(broker.sent) == 2


class Fanout(Cleaner):
    """Stores each table, then announces it `n` times (a run planned into many requests)."""

    def __init__(self, n: int, fail_at: int | None = None) -> None:
        super().__init__()
        self.n, self.fail_at, self.made = n, fail_at, 0

    def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
        ctx.store.upsert(message.id, message.caption)

        def make() -> Iterator[Outgoing]:
            for k in range(self.n):
                if self.fail_at is not None and self.made == self.fail_at:
                    self.fail_at = None
                    raise Retryable("broker away")
                self.made += 1
                yield Outgoing(OUT, report_pb2.LeaderboardUpdate(id=f"{message.id}{k}"), message_id=f"{message.id}{k}")

        return OutgoingStream(self.n, {OUT}, make)  # type: ignore[return-value]


def test_a_sliced_batch_is_published_over_several_steps_and_committed_once_all_of_it_is_out() -> None:
    log, bus, worker, store = _setup(Fanout(5), ["a", "b"])
    worker.publish_slice = 4
    assert worker.run_once() == 4 and worker.unfinished  # the records handled, 4 of their 10 outputs out
    assert set(store.rows) == {"a", "b"} and log.events.count(f"publish:{OUT}") == 4
    assert not any(e.startswith("commit") for e in log.events) and bus.lag(worker.group, TOPIC) == 2
    assert worker.run_once() == 4 and worker.unfinished  # a step that only goes on publishing polls nothing
    assert worker.run_once() == 2 and not worker.unfinished
    assert log.events[-2:] == ["flush", "commit:0,1"] and log.events.count(f"publish:{OUT}") == 10
    assert [r.headers["message-id"] for r in bus.records(OUT)] == [f"{t}{k}" for t in "ab" for k in range(5)]
    assert worker.stats.published == 10 and worker.stats.batches == 1 and bus.lag(worker.group, TOPIC) == 0
    assert worker.run_once() == 0


def test_a_retryable_failure_in_a_sliced_batch_publishes_it_again_from_its_start() -> None:
    handler = Fanout(10, fail_at=6)
    log, bus, worker, _ = _setup(handler, ["a"])
    worker.publish_slice = 4
    assert worker.run_once() == 4
    with pytest.raises(Retryable):
        worker.run_once()  # the seventh output cannot be made: six are out
    worker._abandon()  # what run() does, then it rewinds
    worker.consumer.rewind()
    assert not worker.unfinished and not any(e.startswith("commit") for e in log.events)
    while worker.run_once():
        pass
    assert log.events[-2:] == ["flush", "commit:0"]
    # all ten out, the six before the failure twice: the same message ids, which consumers deduplicate
    assert sorted(r.headers["message-id"] for r in bus.records(OUT)) == sorted([f"a{k}" for k in range(6)]
                                                                                + [f"a{k}" for k in range(10)])


def test_a_broker_away_is_a_passing_failure_and_no_record_is_read_before_the_committed_offset_is_sought() -> None:
    """During a broker restart the committed offsets cannot be read: a rewind then leaves the seek due, and the
    next poll makes it before reading anything (or fails as passing again, `Retryable`, so the worker backs off
    instead of stopping), so nothing after a committed offset is skipped. An error a retry cannot mend still
    stops the worker."""
    from confluent_kafka import KafkaError, KafkaException, TopicPartition

    class Away(_Coordinator):
        def __init__(self) -> None:
            super().__init__(assigned={("livetab.tables.v1", 0)})
            self.down = True
            self.sought: list[int] = []
            self.polls = 0

        def poll(self, timeout: float = 0) -> object:
            self.polls += 1
            return None

        def committed(self, partitions: list[object], timeout: float = 0) -> list[object]:
            if self.down:
                raise KafkaException(KafkaError(KafkaError._TRANSPORT, "Connection refused"))
            return [TopicPartition("livetab.tables.v1", 0, 7)]

        def seek(self, partition: object) -> None:
            self.sought.append(partition.offset)  # type: ignore[attr-defined]

    broker = Away()
    consumer = _consumer(broker)
    consumer.rewind()  # type: ignore[attr-defined]  # what the worker does after a failure: the broker is away
    assert broker.sought == []
    with pytest.raises(Retryable, match="committed offsets"):
        consumer.poll(10, 0.0)  # type: ignore[attr-defined]  # the seek comes first, and fails as passing
    assert broker.polls == 0
    broker.down = False
    assert consumer.poll(10, 0.0) == []  # type: ignore[attr-defined]
    assert broker.sought == [7] and broker.polls == 1
    consumer.poll(10, 0.0)  # type: ignore[attr-defined]
    assert broker.sought == [7]  # sought once

    class Broken(Away):
        def poll(self, timeout: float = 0) -> object:
            raise KafkaException(KafkaError(KafkaError._FATAL, "fenced", fatal=True))

    consumer = _consumer(Broken())
    with pytest.raises(KafkaException):
        consumer.poll(10, 0.0)  # type: ignore[attr-defined]
