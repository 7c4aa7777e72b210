"""Frames (livetab.bus.frames): several messages of one partition in one Kafka record, unpacked into the records
they would have been; positions and commits of a frame's messages; dead letters of one message of a frame.
The broker side is tests/integration/test_kafka_frames.py."""

from __future__ import annotations

from livetab.bus import HandlerContext, InProcBus, Outgoing, PoisonMessage, Worker
from livetab.bus.base import Record, decode, producer_headers
from livetab.bus.frames import FRAME_TYPE, H_FRAME_OF, FrameBuffer, message_values, unpack
from livetab.bus.inflight import OffsetTracker
from livetab.settings import Settings
from livetab.store import open_store, schema
from livetab.v1 import dlq_pb2, table_pb2

TOPIC = "livetab.tables.v1"


def _frame(tables: list[table_pb2.Table], *, garbage_at: int | None = None) -> tuple[bytes, dict[str, str]]:
    buf = FrameBuffer()
    for i, t in enumerate(tables):
        out = Outgoing(TOPIC, t, key=t.id, message_id=f"m-{t.id}")
        value = b"\xff\xff not a table" if i == garbage_at else t.SerializeToString()
        buf.add(t.id.encode(), value, producer_headers(out))
    value, headers = buf.take()
    assert len(buf) == 0 and buf.size == 0  # taken: the buffer starts the next frame empty
    return value, {k: v.decode() for k, v in headers}


def test_a_frame_unpacks_into_the_records_its_messages_would_have_been() -> None:
    tables = [table_pb2.Table(id=f"t{i}", release=f"r{i}") for i in range(3)]
    value, headers = _frame(tables)
    assert headers == {"message-type": FRAME_TYPE, H_FRAME_OF: "livetab.v1.Table"}
    got = unpack(Record(TOPIC, 2, 41, None, value, headers))
    assert [(r.topic, r.partition, r.offset, r.index, r.count) for r in got] == [(TOPIC, 2, 41, i, 3) for i in range(3)]
    assert [r.key for r in got] == [b"t0", b"t1", b"t2"]
    assert [r.headers["message-id"] for r in got] == ["m-t0", "m-t1", "m-t2"]
    assert [decode(r) for r in got] == tables  # each decodes as the topic's type, as a record of its own would
    assert [r.position for r in got] == [f"{TOPIC}:2:41:{i}" for i in range(3)]
    # a plain Kafka client's view: the same values through message_values
    assert message_values(value, [(k, v.encode()) for k, v in headers.items()]) == [t.SerializeToString() for t in tables]


def test_a_plain_record_is_one_message_and_a_broken_frame_is_poison_whole() -> None:
    plain = Record(TOPIC, 0, 7, b"k", b"v", {"message-type": "livetab.v1.Table"})
    assert unpack(plain) == [plain] and plain.position == f"{TOPIC}:0:7" and plain.next_offset == 8
    assert message_values(b"v", [("message-type", b"livetab.v1.Table")]) == [b"v"]
    broken = Record(TOPIC, 0, 8, None, b"\x0a\xff\xff", {"message-type": FRAME_TYPE})
    [same] = unpack(broken)
    assert same is broken
    try:
        decode(same)
    except PoisonMessage as e:
        assert "livetab.v1.Frame" in str(e)
    else:
        raise AssertionError("a frame that does not parse decodes as a message")
    empty = Record(TOPIC, 0, 9, None, b"", {"message-type": FRAME_TYPE})
    assert unpack(empty) == [empty]


def test_commit_passes_a_frame_only_with_its_last_message() -> None:
    value, headers = _frame([table_pb2.Table(id=f"t{i}") for i in range(4)])
    msgs = unpack(Record("t", 0, 10, None, value, headers))
    assert [m.next_offset for m in msgs] == [10, 10, 10, 11]
    t = OffsetTracker()
    after = Record("t", 0, 11, None, b"")
    for r in [*msgs, after]:
        t.take(r)
    for r in msgs[:3]:
        t.finish(r)
    t.finish(after)
    [c] = t.committable()
    assert (c.offset, c.index, c.count, c.next_offset) == (10, 2, 4, 10)  # the frame is read again after a crash
    t.finish(msgs[3])
    [c] = t.committable()
    assert (c.offset, c.next_offset) == (11, 12) and t.pending() == 0


class _Tables:
    service = "qagen"
    topics = [TOPIC]

    def __init__(self) -> None:
        self.seen: list[str] = []

    def handle(self, message: table_pb2.Table, ctx: HandlerContext) -> list[Outgoing]:
        self.seen.append(message.id)
        return []


def test_one_bad_message_of_a_frame_is_dead_lettered_alone_by_its_index(tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = open_store(f"sqlite:///{tmp_path / 's.db'}")
    bus = InProcBus()
    value, headers = _frame([table_pb2.Table(id=f"t{i}") for i in range(3)], garbage_at=1)
    frame = Record(TOPIC, 0, 5, None, value, headers)

    class _Framed:  # the in-process consumer over one frame record, as the Kafka consumer hands it out
        def __init__(self) -> None:
            self.records = unpack(frame)
            self.committed: list[Record] = []

        def poll(self, max_records: int, timeout_s: float) -> list[Record]:
            out, self.records = self.records, []
            return out

        def commit(self, records: list[Record]) -> None:
            self.committed.extend(records)

        def rewind(self) -> None: ...

        def close(self) -> None: ...

    handler = _Tables()
    consumer = _Framed()
    bus.consumer = lambda group, names: consumer  # type: ignore[method-assign]
    worker = Worker(handler, bus, HandlerContext(store=store, settings=Settings()))
    assert worker.run_once() == 3
    assert handler.seen == ["t0", "t2"] and worker.stats.dead_lettered == 1
    [letter] = [dlq_pb2.DeadLetter.FromString(r.value) for r in bus.records("livetab.dlq.v1")]
    assert (letter.offset, letter.index, letter.value) == (5, 1, b"\xff\xff not a table")
    assert letter.headers["message-id"] == "m-t1"  # the message's own headers: a redrive publishes it alone
    [row] = store.select(schema.dead_letters)
    assert row["id"] == f"{worker.group}|{TOPIC}:0:5:1" and row["value"] == b"\xff\xff not a table"
    assert max(r.next_offset for r in consumer.committed) == 6
    store.close()
