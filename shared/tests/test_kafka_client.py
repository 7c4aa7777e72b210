"""The Kafka bus's own parts around librdkafka, without a broker.

It picks a keyed message's partition itself (frames gather one partition's messages), with its own
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


def test_librdkafkas_repeated_log_lines_are_shown_once_per_period() -> None:
    """With the broker away every librdkafka client logs its failed connect about twenty times a second; the
    bus shows each kind of line (its numbers aside) once per period, and other lines as they come."""
    import logging

    from livetab.bus.kafka import _Repeats

    seen = _Repeats(every_s=30.0)

    def line(text: str) -> logging.LogRecord:
        return logging.LogRecord("kafka.librdkafka", logging.ERROR, __file__, 1, text, None, None)

    refused = "FAIL [rdkafka#consumer-{}] Connect to ipv4#127.0.0.1:4{}539 failed: Connection refused (after {}ms)"
    shown = [seen.filter(line(refused.format(n, n, n))) for n in range(40)]
    assert shown == [True] + [False] * 39
    assert not seen.filter(line(refused.format(1, 2, 3)[:-1] + ", 1 identical error(s) suppressed)"))  # its own count
    assert seen.filter(line("SESSTMOUT Consumer group session timed out after 6001 ms"))
    seen._last = {k: v - 31.0 for k, v in seen._last.items()}  # a period later
    assert seen.filter(line(refused.format(1, 2, 3)))
