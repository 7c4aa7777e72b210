"""Frames on the real broker: many messages of one partition in one Kafka record, each read back as the record it
would have been (same partition as its key gives, same order, same headers), a frame partly done read again
after a restart, and a message too large to share a frame sent alone."""

from __future__ import annotations

import time
import uuid

import pytest
from livetab.bus import Outgoing
from livetab.bus.frames import FRAME_TYPE, message_values
from livetab.bus.kafka import KafkaBus, ensure_topics
from livetab.settings import KafkaSettings
from livetab.topics import requests_topic
from livetab.v1 import inference_pb2

from tests.support.topic_read import topic_records

pytestmark = [pytest.mark.kafka]


def _settings(bootstrap: str, **kw: int) -> KafkaSettings:
    return KafkaSettings(bootstrap_servers=bootstrap, session_timeout_ms=6000, heartbeat_interval_ms=1000, **kw)


def _topic(bootstrap: str) -> str:
    name = requests_topic(f"f{uuid.uuid4().hex[:8]}")  # a registry topic (6 partitions) of its own
    ensure_topics(bootstrap, names=[], extra=[name])
    return name


def _request(i: int, key: str) -> inference_pb2.InferenceRequest:
    return inference_pb2.InferenceRequest(id=f"r{i:04d}", question_id=key, run_id="frames", sample_index=i)


def _publish(bus: KafkaBus, topic: str, n: int, keys: int) -> None:
    for i in range(n):
        bus.publish(Outgoing(topic, _request(i, f"q{i % keys}"), key=f"q{i % keys}", message_id=f"m{i:04d}"))
    bus.flush()


def _read(bus: KafkaBus, group: str, topic: str, want: int, max_records: int = 100, timeout_s: float = 30.0) -> list:  # type: ignore[type-arg]
    consumer = bus.consumer(group, [topic])
    got: list = []  # type: ignore[type-arg]
    deadline = time.monotonic() + timeout_s
    try:
        while len(got) < want and time.monotonic() < deadline:
            got += consumer.poll(max_records, 0.5)
        consumer.commit(got)
    finally:
        consumer.close()
    return got


def test_framed_messages_keep_their_partition_order_and_headers(kafka_bootstrap: str) -> None:
    framed_topic, plain_topic = _topic(kafka_bootstrap), _topic(kafka_bootstrap)
    framed = KafkaBus(_settings(kafka_bootstrap))
    plain = KafkaBus(_settings(kafka_bootstrap, frame_max_records=1))  # every message a record: kafka-python's own way
    try:
        _publish(framed, framed_topic, 1000, keys=50)
        _publish(plain, plain_topic, 1000, keys=50)
        frames, singles = topic_records(kafka_bootstrap, framed_topic), topic_records(kafka_bootstrap, plain_topic)
        assert len(singles) == 1000 and all(dict(r.headers)["message-type"] != FRAME_TYPE.encode() for r in singles)
        # 6 partitions, at most 64 messages a frame on a requests topic (`Topic.frame_records`; kafka's
        # frame_max_records, 256, elsewhere): a handful of records for 1,000 messages, the full ones of 64
        sizes = [len(message_values(r.value, r.headers)) for r in frames]
        assert len(frames) <= 24 and all(dict(r.headers)["message-type"] == FRAME_TYPE.encode() for r in frames)
        assert sum(sizes) == 1000 and max(sizes) == 64
        got = _read(framed, f"g-{uuid.uuid4().hex[:6]}", framed_topic, 1000)
        alone = _read(plain, f"g-{uuid.uuid4().hex[:6]}", plain_topic, 1000)
    finally:
        framed.close()
        plain.close()
    assert len(got) == 1000 and len(alone) == 1000
    msgs = [(r, inference_pb2.InferenceRequest.FromString(r.value)) for r in got]
    # each key's partition is the one kafka-python's partitioner gives it
    assert ({m.question_id: r.partition for r, m in msgs}
            == {inference_pb2.InferenceRequest.FromString(r.value).question_id: r.partition for r in alone})
    # every message with its own headers and key, each key's messages in the order they were published
    assert sorted(r.headers["message-id"] for r, _ in msgs) == [f"m{i:04d}" for i in range(1000)]
    assert all(r.headers["message-id"] == f"m{m.sample_index:04d}" and r.key == m.question_id.encode() for r, m in msgs)
    for k in range(50):
        order = [m.sample_index for _, m in msgs if m.question_id == f"q{k}"]
        assert order == sorted(order) and len(order) == 20


def test_a_frame_partly_done_is_read_again_after_a_restart(kafka_bootstrap: str) -> None:
    topic = _topic(kafka_bootstrap)
    bus = KafkaBus(_settings(kafka_bootstrap))
    group = f"g-{uuid.uuid4().hex[:6]}"
    try:
        _publish(bus, topic, 10, keys=1)  # one key: one partition, one frame
        assert len(topic_records(kafka_bootstrap, topic)) == 1
        first = _read(bus, group, topic, 4, max_records=4)  # handed out 4 of the frame's 10, committed
        assert [r.index for r in first] == [0, 1, 2, 3] and {r.count for r in first} == {10}
        again = _read(bus, group, topic, 10)  # a new member of the group: the whole frame, nothing lost
        assert [r.index for r in again] == list(range(10))
        assert _read(bus, group, topic, 1, timeout_s=3) == []  # all ten done: committed past the frame
    finally:
        bus.close()


def test_a_message_too_large_to_share_a_frame_goes_alone(kafka_bootstrap: str) -> None:
    topic = _topic(kafka_bootstrap)
    bus = KafkaBus(_settings(kafka_bootstrap, frame_max_bytes=4096))
    try:
        big = inference_pb2.InferenceRequest(id="big", question_id="q", run_id="x" * 2000)
        bus.publish(Outgoing(topic, big, key="q", message_id="big"))
        _publish(bus, topic, 5, keys=1)
        [alone, frame] = topic_records(kafka_bootstrap, topic)
        assert dict(alone.headers)["message-id"] == b"big" and alone.value == big.SerializeToString()
        assert len(message_values(frame.value, frame.headers)) == 5
    finally:
        bus.close()


def test_a_tail_reads_only_what_is_published_after_it_every_partition_unpacked(kafka_bootstrap: str) -> None:
    """`Bus.tail`: no group, every partition from its end; frames come back as their messages."""
    topic = _topic(kafka_bootstrap)
    bus = KafkaBus(_settings(kafka_bootstrap))
    try:
        _publish(bus, topic, 30, keys=10)  # before the tail: never read by it
        tail = bus.tail([topic])
        try:
            for i in range(100, 160):
                bus.publish(Outgoing(topic, _request(i, f"q{i % 12}"), key=f"q{i % 12}", message_id=f"m{i:04d}"))
            bus.flush()
            got: list = []  # type: ignore[type-arg]
            deadline = time.monotonic() + 30
            while len(got) < 60 and time.monotonic() < deadline:
                got += tail.poll(100, 0.5)
            assert sorted(r.headers["message-id"] for r in got) == [f"m{i:04d}" for i in range(100, 160)]
            assert len({r.partition for r in got}) > 1 and any(r.count > 1 for r in got)  # partitions, frames
            tail.commit(got)  # nothing to commit: a second tail starts at the end again
            tail.rewind()
            assert tail.poll(100, 1.0) == []
        finally:
            tail.close()
    finally:
        bus.close()
