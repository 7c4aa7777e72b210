"""The Kafka bus picks a keyed message's partition itself (frames gather one partition's messages), with its own
murmur2: it must give every key the partition the Java client's default partitioner gives it, as kafka-python's
does and librdkafka's `murmur2_random` (which the bus's producer uses for records it sends without a partition),
or a key's messages would split between two partitions and lose their order."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("confluent_kafka")
pytest.importorskip("kafka")


def test_murmur2_gives_every_key_the_partition_kafka_pythons_partitioner_gives() -> None:
    from kafka.partitioner import murmur2 as reference
    from livetab.bus.kafka import murmur2

    rng = random.Random(7)
    keys = [b"", b"a", b"ab", b"abc", b"abcd", b"abcde", "run-Ω:q-9".encode()]
    keys += [rng.randbytes(rng.randrange(0, 70)) for _ in range(2000)]
    for key in keys:
        assert murmur2(key) & 0xFFFFFFFF == reference(key), key
        for n in (1, 3, 6, 7, 64):
            assert (murmur2(key) & 0x7FFFFFFF) % n == (reference(key) & 0x7FFFFFFF) % n
    # Java's murmur2 returns a signed int; the known values of the Java client's tests
    assert murmur2(b"21") == -973932308 and murmur2(b"foobar") == -790332482
    assert murmur2(b"a-little-bit-long-string") == -985981536
