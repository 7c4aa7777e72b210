"""Read a Kafka topic whole with a plain kafka-python client, as a tool outside livetab would: every record from
the beginning to the current end, and the messages those records hold (a frame's many, livetab.v1.Frame)."""

from __future__ import annotations

from typing import Any

from kafka import KafkaConsumer, TopicPartition
from livetab.bus.frames import message_values

__all__ = ["topic_messages", "topic_records"]


def topic_records(bootstrap: str, topic: str) -> list[Any]:
    """Every record on `topic` now (kafka-python's ConsumerRecords), partition by partition."""
    reader = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False)
    try:
        parts = [TopicPartition(topic, p) for p in sorted(reader.partitions_for_topic(topic))]
        reader.assign(parts)
        reader.seek_to_beginning(*parts)
        ends = reader.end_offsets(parts)
        out: list[Any] = []
        while any(reader.position(tp) < ends[tp] for tp in parts):
            for recs in reader.poll(timeout_ms=500).values():
                out += recs
        return out
    finally:
        reader.close()


def topic_messages(bootstrap: str, topic: str) -> list[bytes]:
    """The serialized messages those records hold, in order within each partition."""
    return [v for r in topic_records(bootstrap, topic) for v in message_values(r.value, r.headers)]
