"""The Kafka bus against the real broker: round trips, crash recovery, DLQ, trace continuity."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from livetab import topics
from livetab.bus import HandlerContext, Outgoing, Worker
from livetab.bus.kafka import KafkaBus, ensure_topics
from livetab.settings import KafkaSettings
from livetab.store import open_store
from livetab.telemetry import configure_telemetry, tracer
from livetab.v1 import question_pb2, table_pb2
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from tests.support.effects import effects, with_effects

pytestmark = [pytest.mark.kafka]
ROOT = Path(__file__).resolve().parents[2]


def _settings(bootstrap: str) -> KafkaSettings:
    return KafkaSettings(bootstrap_servers=bootstrap, session_timeout_ms=6000, heartbeat_interval_ms=1000,
                         poll_timeout_ms=500)


@pytest.fixture(scope="module")
def bus(kafka_bootstrap: str):
    ensure_topics(kafka_bootstrap)
    b = KafkaBus(_settings(kafka_bootstrap))
    yield b
    b.close()


def _drain(consumer, want: int, timeout: float = 30.0, match=lambda r: True):
    got = []
    deadline = time.monotonic() + timeout
    while len(got) < want and time.monotonic() < deadline:
        got += [r for r in consumer.poll(500, 0.5) if match(r)]
    return got


def _sample(topic: topics.Topic, tag: str):
    msg = topic.message()
    fields = msg.DESCRIPTOR.fields_by_name
    if "id" in fields:
        msg.id = f"{tag}-{topic.name}"
    elif "source_topic" in fields:
        msg.source_topic = f"{tag}-{topic.name}"
    # one nested or repeated field, so the round trip covers more than scalars
    if topic.message is table_pb2.Table:
        msg.rows.add(values=["a", "b"])
        msg.cells.add(row=0, col=0, rowspan=2, colspan=1, text="a")
    return msg


def test_every_message_type_round_trips_by_topic(bus: KafkaBus) -> None:
    tag = uuid.uuid4().hex[:8]
    sent = {}
    for t in topics.TOPICS:
        m = _sample(t, tag)
        sent[t.name] = m
        bus.publish(Outgoing(t.name, m, key=tag))
    bus.flush()
    c = bus.consumer(f"rt-{tag}", [t.name for t in topics.TOPICS])
    got = _drain(c, len(sent), match=lambda r: r.key == tag.encode())
    c.close()
    from livetab.bus import decode

    assert {r.topic for r in got} == set(sent)
    for r in got:
        assert r.headers["message-type"] == topics.by_name(r.topic).message_type
        assert r.headers["message-id"] and r.headers["produced-at"]
        assert decode(r) == sent[r.topic]


def test_sigkill_mid_batch_then_restart_processes_each_input_once_in_effect(bus: KafkaBus, kafka_bootstrap: str,
                                                                          tmp_path: Path) -> None:
    tag = uuid.uuid4().hex[:8]
    n = 60
    for i in range(n):
        bus.publish(Outgoing("livetab.tables.v1", table_pb2.Table(id=f"{tag}-{i:03d}", caption=f"c{i}"),
                             key=f"{tag}-{i}"))
    bus.flush()
    store_url = f"sqlite:///{tmp_path / 'kill.db'}"
    with_effects(open_store(store_url)).close()
    group = f"kill-{tag}"
    cmd = [sys.executable, str(ROOT / "tests" / "support" / "echo_worker.py"), "--bootstrap", kafka_bootstrap,
           "--store", store_url, "--group", group, "--batch", "10", "--prefix", tag]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([*cmd, "--delay", "0.05"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    store = with_effects(open_store(store_url))
    deadline = time.monotonic() + 60
    # kill it once some, but not all, effects are written: mid-run, and most likely mid-batch
    while time.monotonic() < deadline and store.count(effects) < 15:
        time.sleep(0.05)
    done_before = store.count(effects)
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    assert 0 < done_before < n, f"the worker should have been killed mid-run, had done {done_before}"
    # restart and let it finish
    proc2 = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and store.count(effects) < n:
        time.sleep(0.1)
    proc2.send_signal(signal.SIGTERM)  # drains, commits, exits
    out, _ = proc2.communicate(timeout=60)
    assert proc2.returncode == 0, out.decode()
    rows = [r for r in store.select(effects) if r["id"].startswith(tag)]
    assert sorted(r["id"] for r in rows) == [f"{tag}-{i:03d}" for i in range(n)]  # no loss, no duplicate rows
    # downstream: every input produced its question (redelivery may repeat a record; ids dedupe it)
    c = bus.consumer(f"check-{tag}", ["livetab.questions.v1"])
    want = {f"q-{tag}-{i:03d}" for i in range(n)}
    seen: set[str] = set()
    deadline = time.monotonic() + 30
    while seen != want and time.monotonic() < deadline:  # until every one is seen: a repeat is not a new one
        seen |= {question_pb2.Question.FromString(r.value).id for r in c.poll(500, 0.5)
                 if r.key and r.key.decode().startswith(tag)}
    c.close()
    assert seen == want


class _Strict:
    service = "qagen"
    topics = ["livetab.tables.v1"]

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.seen: list[str] = []

    def handle(self, message, ctx):
        if message.id.startswith(self.tag):
            self.seen.append(message.id)
            ctx.store.upsert(effects, [{"id": message.id, "kind": "strict", "value": ""}])
        return []


def test_malformed_record_goes_to_dlq_and_the_worker_keeps_going(bus: KafkaBus, tmp_path: Path) -> None:
    tag = uuid.uuid4().hex[:8]
    bus.publish(Outgoing("livetab.tables.v1", table_pb2.Table(id=f"{tag}-before"), key=tag))
    bus.publish_raw("livetab.tables.v1", b"\xff\xfe not protobuf", {"message-type": "livetab.v1.Table",
                                                                      "message-id": f"{tag}-bad"}, key=tag.encode())
    bus.publish_raw("livetab.tables.v1", b"", {"message-type": "livetab.v1.Question"}, key=tag.encode())
    bus.publish(Outgoing("livetab.tables.v1", table_pb2.Table(id=f"{tag}-after"), key=tag))
    bus.flush()
    store = with_effects(open_store(f"sqlite:///{tmp_path / 'dlq.db'}"))
    handler = _Strict(tag)
    w = Worker(handler, bus, HandlerContext(store=store, settings=None), group=f"dlq-{tag}", poll_timeout_s=1.0)
    deadline = time.monotonic() + 30
    while len(handler.seen) < 2 and time.monotonic() < deadline:
        w.run_once()
    w.consumer.close()
    assert handler.seen == [f"{tag}-before", f"{tag}-after"]
    assert w.stats.dead_lettered >= 2  # the topic is shared: earlier runs may have left malformed records too
    c = bus.consumer(f"dlqread-{tag}", [topics.DLQ])
    from livetab.v1 import dlq_pb2

    # this test's letters only: on a broker that earlier tests used, the topic holds theirs too
    letters = [dlq_pb2.DeadLetter.FromString(r.value) for r in _drain(
        c, 2, match=lambda r: r.key == b"livetab.tables.v1" and dlq_pb2.DeadLetter.FromString(r.value).key == tag.encode())]
    c.close()
    mine = [d for d in letters if d.key == tag.encode()]
    assert len(mine) == 2
    for d in mine:
        assert d.source_topic == "livetab.tables.v1" and d.offset >= 0 and d.partition >= 0
        assert d.consumer_group == f"dlq-{tag}"
    errors = sorted(d.error for d in mine)
    assert any("cannot decode livetab.v1.Table" in e for e in errors)
    assert any("declares 'livetab.v1.Question'" in e for e in errors)


def test_one_trace_spans_producer_and_consumer(bus: KafkaBus, tmp_path: Path) -> None:
    exporter = InMemorySpanExporter()
    configure_telemetry("test", exporter)
    tag = uuid.uuid4().hex[:8]

    class Forward:
        service = "qagen"
        topics = ["livetab.tables.v1"]

        forwarded = False

        def handle(self, message, ctx):
            if not message.id.startswith(tag):
                return []
            Forward.forwarded = True
            return [Outgoing("livetab.questions.v1", question_pb2.Question(id="q" + message.id), key=tag)]

    with tracer().start_as_current_span("cycle") as root:
        bus.publish(Outgoing("livetab.tables.v1", table_pb2.Table(id=f"{tag}-t"), key=tag))
    bus.flush()
    trace_id = root.get_span_context().trace_id
    w = Worker(Forward(), bus, HandlerContext(store=None, settings=None), group=f"trace-{tag}", poll_timeout_s=1.0)
    deadline = time.monotonic() + 30
    # until its own record is forwarded: the topic may hold other tests' records first (poison among them,
    # whose dead letters are published too)
    while not Forward.forwarded and time.monotonic() < deadline:
        w.run_once()
    w.consumer.close()
    c = bus.consumer(f"trace-read-{tag}", ["livetab.questions.v1"])
    downstream = _drain(c, 1, match=lambda r: r.key == tag.encode())
    c.close()
    spans = exporter.get_finished_spans()
    consumer_spans = [s for s in spans if s.kind == SpanKind.CONSUMER and s.context.trace_id == trace_id]
    producer_spans = [s for s in spans if s.kind == SpanKind.PRODUCER and s.context.trace_id == trace_id]
    assert consumer_spans, "the consumer span must continue the producer's trace"
    assert {s.name for s in producer_spans} >= {"livetab.tables.v1 publish", "livetab.questions.v1 publish"}
    assert downstream[0].headers["traceparent"].split("-")[1] == f"{trace_id:032x}"


def test_a_consumer_is_assigned_its_topics_partitions_in_its_first_rebalance(
        bus: KafkaBus, kafka_bootstrap: str, caplog: pytest.LogCaptureFixture) -> None:
    """A service's consumer knows its topics' partitions before its first poll joins the group, so that join
    assigns them all. kafka-python's own order (join first, metadata after) gave an empty first assignment ("No
    partition metadata for topic") and a second rebalance once the partitions were known; an oracle run over
    Kafka once waited 180 s for questions after such a start (its qagen consumed nothing)."""
    import logging

    wanted = [topics.TABLES, topics.PROBLEMS]  # what the qagen service consumes
    for attempt in range(3):
        caplog.clear()
        group = f"first-{uuid.uuid4().hex[:8]}"
        with caplog.at_level(logging.WARNING, logger="kafka"), caplog.at_level(logging.INFO, logger="livetab"):
            consumer = bus.consumer(group, wanted)
            try:
                deadline = time.monotonic() + 20
                while not consumer._c.assignment():
                    assert time.monotonic() < deadline, "no partition assigned"
                    consumer.poll(10, 0.2)
                assert len(consumer._c.assignment()) == sum(topics.by_name(t).partitions for t in wanted)
            finally:
                consumer.close()
        assert not [r for r in caplog.records if "No partition metadata" in r.getMessage()], attempt
        # the assignment is logged, one line per rebalance: a worker that reads nothing shows what it holds
        lines = [r.getMessage() for r in caplog.records if r.name == "livetab.bus.kafka"]
        assert lines == [f"group {group} assigned livetab.problems.v1 [0, 1, 2]; livetab.tables.v1 [0, 1, 2]"], lines


def test_a_consumer_of_a_topic_not_there_yet_says_so_and_reads_it_once_it_is(
        bus: KafkaBus, kafka_bootstrap: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new consumer asks for its topics' partitions for a while (`METADATA_WAIT_S`) before it joins; a topic
    still without them is named in a warning, and its records are read once the topic exists."""
    import logging

    from kafka import KafkaAdminClient, KafkaProducer
    from kafka.admin import NewTopic
    from livetab.bus import kafka as kafka_bus

    monkeypatch.setattr(kafka_bus, "METADATA_WAIT_S", 0.5)
    name = f"late-{uuid.uuid4().hex[:8]}"
    group = f"late-{uuid.uuid4().hex[:8]}"
    with caplog.at_level(logging.INFO, logger="livetab"):
        t0 = time.monotonic()
        consumer = bus.consumer(group, [name])
        assert time.monotonic() - t0 < 5  # it waited its while, not kafka-python's metadata age
    try:
        assert f"group {group}: no partitions known yet for {name}" in caplog.text
        admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
        admin.create_topics([NewTopic(name, 1, 1)])
        admin.close()
        producer = KafkaProducer(bootstrap_servers=kafka_bootstrap)
        producer.send(name, b"late").get(10)
        producer.close()
        deadline, got = time.monotonic() + 30, []
        while not got:
            assert time.monotonic() < deadline, "the topic created after the consumer was never read"
            got = consumer.poll(10, 0.5)
        assert [r.value for r in got] == [b"late"]
    finally:
        consumer.close()


def test_a_long_fetch_wait_does_not_delay_a_record_that_arrives(kafka_bootstrap: str) -> None:
    """`kafka.fetch_wait_max_ms` is how long the broker holds an idle consumer's fetch (fewer fetches, less of
    the broker's CPU); a record that arrives ends the wait at once. With a 10-s wait, a record published while
    the consumer's fetch is held comes back in well under the wait."""
    from kafka import KafkaAdminClient, KafkaProducer
    from kafka.admin import NewTopic

    name = f"wait-{uuid.uuid4().hex[:8]}"
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    admin.create_topics([NewTopic(name, 1, 1)])
    admin.close()
    slow = KafkaBus(_settings(kafka_bootstrap).model_copy(update={"fetch_wait_max_ms": 10_000}))
    consumer = slow.consumer(f"wait-{uuid.uuid4().hex[:8]}", [name])
    producer = KafkaProducer(bootstrap_servers=kafka_bootstrap)
    try:
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:  # joined, assigned, and a fetch held at the broker
            assert consumer.poll(10, 0.5) == []
        t0 = time.monotonic()
        producer.send(name, b"now").get(10)
        got = []
        while not got and time.monotonic() - t0 < 30:
            got = consumer.poll(10, 0.2)
        waited = time.monotonic() - t0
        assert [r.value for r in got] == [b"now"]
        assert waited < 5, f"the record waited {waited:.1f} s: the held fetch was not answered when it arrived"
    finally:
        producer.close()
        consumer.close()
        slow.close()
