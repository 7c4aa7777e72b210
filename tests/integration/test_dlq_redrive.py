"""`livetab dlq` and `livetab replay` against the real broker and a SQLite store: a poison record is
dead-lettered by a real worker, listed, redriven after a fix and processed; a second redrive publishes
nothing; replay moves the group back so the worker re-reads records with its effects unchanged."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
from kafka import KafkaConsumer, TopicPartition
from livetab.bus import HandlerContext, Outgoing, Worker
from livetab.bus.kafka import KafkaBus, ensure_topics
from livetab.dlq import replay
from livetab.settings import KafkaSettings
from livetab.store import open_store, schema
from livetab.v1 import table_pb2
from livetab_cli.main import main

from tests.support.effects import effects, with_effects

pytestmark = [pytest.mark.kafka]
TOPIC = "livetab.tables.v1"


class _Reader:
    """Stores every table of this test as an effect (an idempotent upsert); refuses 'poison' until fixed."""

    topics = [TOPIC]

    def __init__(self, tag: str) -> None:
        self.service = f"dlqt{tag[:6]}"
        self.tag = tag
        self.fixed = False
        self.seen: list[str] = []
        self.offsets: list[tuple[int, int]] = []

    def handle(self, message, ctx):
        if not message.id.startswith(self.tag):
            return []
        if "poison" in message.id and not self.fixed:
            raise ValueError(f"cannot read table {message.id}")
        self.seen.append(message.id)
        self.offsets.append((ctx.record.partition, ctx.record.offset))
        ctx.store.upsert(effects, [{"id": message.id, "kind": "dlqtest", "value": message.caption}])
        return []


def _work(bus, store, handler, group: str, until, timeout: float = 20.0) -> Worker:
    w = Worker(handler, bus, HandlerContext(store=store, settings=None), group=group, poll_timeout_s=0.5)
    deadline = time.monotonic() + timeout
    while not until() and time.monotonic() < deadline:
        w.run_once()
    w.consumer.close()
    return w


def _end(bootstrap: str, partition: int) -> int:
    c = KafkaConsumer(bootstrap_servers=bootstrap)
    try:
        tp = TopicPartition(TOPIC, partition)
        return int(c.end_offsets([tp])[tp])
    finally:
        c.close()


def test_poison_is_listed_redriven_once_and_replay_rereads(kafka_bootstrap: str, tmp_path: Path, capsys) -> None:
    ensure_topics(kafka_bootstrap)
    tag = uuid.uuid4().hex[:8]
    group = f"dlqt-{tag}"
    db = tmp_path / "dlq.db"
    cfg = tmp_path / "livetab.yaml"
    cfg.write_text(f"store: {{url: 'sqlite:///{db}'}}\nkafka: {{bootstrap_servers: '{kafka_bootstrap}'}}\n")
    store = with_effects(open_store(f"sqlite:///{db}"))
    bus = KafkaBus(KafkaSettings(bootstrap_servers=kafka_bootstrap, session_timeout_ms=6000,
                                 heartbeat_interval_ms=1000))
    try:
        replay(kafka_bootstrap, TOPIC, "999999999999", group)  # the group starts at the end: only this test's records
        t0 = datetime.now(UTC)
        for name in ("a", "poison", "b"):
            bus.publish(Outgoing(TOPIC, table_pb2.Table(id=f"{tag}-{name}", caption=name), key=tag,
                                 message_id=f"{tag}-{name}"))
        bus.flush()
        handler = _Reader(tag)
        w = _work(bus, store, handler, group, lambda: len(handler.seen) >= 2)
        assert handler.seen == [f"{tag}-a", f"{tag}-b"] and w.stats.dead_lettered == 1

        assert main(["dlq", "list", "--config", str(cfg), "--service", handler.service]) == 0
        out = capsys.readouterr().out
        assert "1 dead letter(s)" in out and "ValueError: cannot read table" in out and " no " in out
        [letter] = store.select(schema.dead_letters, service=handler.service)
        assert main(["dlq", "show", "--config", str(cfg), letter["id"]]) == 0
        shown = capsys.readouterr().out
        assert f'"id": "{tag}-poison"' in shown and '"caption": "poison"' in shown

        handler.fixed = True  # "the fix"
        assert main(["dlq", "redrive", "--config", str(cfg), "--all", "--service", handler.service]) == 0
        assert "redriven 1 " in capsys.readouterr().out
        _work(bus, store, handler, group, lambda: f"{tag}-poison" in handler.seen)
        assert handler.seen == [f"{tag}-a", f"{tag}-b", f"{tag}-poison"]
        assert store.get(schema.dead_letters, letter["id"])["redriven_at"] is not None

        partition = handler.offsets[0][0]
        end = _end(kafka_bootstrap, partition)
        assert main(["dlq", "redrive", "--config", str(cfg), letter["id"]]) == 0
        assert "redriven 0 " in capsys.readouterr().out
        assert _end(kafka_bootstrap, partition) == end  # nothing was published

        # the time form finds the first record at or after t0: this test's first record
        first = min(o for p, o in handler.offsets if p == partition)
        assert replay(kafka_bootstrap, TOPIC, t0.isoformat(), group)[partition] == first
        done = {r["id"]: r["value"] for r in store.select(effects, kind="dlqtest")}
        assert main(["replay", "--config", str(cfg), "--topic", TOPIC, "--from", str(first), "--group", group]) == 0
        assert f"group {group}" in capsys.readouterr().out
        handler.seen.clear()
        _work(bus, store, handler, group, lambda: len(handler.seen) >= 4)
        # all three again, the poison twice: its original (now accepted) and its redriven copy
        assert sorted(handler.seen) == sorted([f"{tag}-a", f"{tag}-b", f"{tag}-poison", f"{tag}-poison"])
        assert {r["id"]: r["value"] for r in store.select(effects, kind="dlqtest")} == done

        # while the group has a live member, the broker refuses offsets from outside it: replay says so
        w = Worker(handler, bus, HandlerContext(store=store, settings=None), group=group, poll_timeout_s=0.5)
        try:
            deadline = time.monotonic() + 15
            while not w.consumer._c.assignment() and time.monotonic() < deadline:
                w.run_once()
            with pytest.raises(ValueError, match="stop the group's workers first"):
                replay(kafka_bootstrap, TOPIC, str(first), group)
        finally:
            w.consumer.close()
    finally:
        bus.close()
        store.close()
