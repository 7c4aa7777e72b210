"""A release frozen while generation goes on, over the real broker: the api service's release handler reads
questions.v1 and the FREEZE command; questions stored and published after the freeze join no release (each
recorded once as late), and after the handler and the store are restarted the frozen members and the manifest
hash read back the same, and a late question is still refused."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest
from livetab import releases as rel
from livetab.bus import HandlerContext, Outgoing, Worker
from livetab.bus.kafka import KafkaBus, ensure_topics
from livetab.records import question_row
from livetab.settings import KafkaSettings
from livetab.store import Store, open_store, schema
from livetab.topics import QUESTIONS, RELEASE_COMMANDS, RELEASES
from livetab.v1 import question_pb2
from livetab_api.releases import ReleaseHandler, late_reason, release_command

pytestmark = [pytest.mark.kafka]


def _generate(store: Store, bus: KafkaBus, release: str, ks: range) -> list[str]:
    """What qagen does for each question: store it, then publish it."""
    qs = [question_pb2.Question(id=f"q_{release}_{k:02d}", table_id=f"t{k}", family="direct", text="?",
                                status="verified", release=release) for k in ks]
    store.upsert(schema.questions, [question_row(q) for q in qs])
    for q in qs:
        bus.publish(Outgoing(QUESTIONS, q, key=q.table_id, message_id=q.id))
    bus.flush()
    return [q.id for q in qs]


def _drive(worker: Worker, until: object, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not until() and time.monotonic() < deadline:  # type: ignore[operator]
        worker.run_once()
    assert until(), "the release handler did not get there in time"  # type: ignore[operator]


def test_a_release_frozen_while_generation_goes_on_keeps_its_set_across_a_restart(kafka_bootstrap: str,
                                                                                   tmp_path: Path) -> None:
    tag = uuid.uuid4().hex[:8]
    url = f"sqlite:///{tmp_path / 'store.db'}"
    ensure_topics(kafka_bootstrap, names=[QUESTIONS, RELEASE_COMMANDS, RELEASES])
    bus = KafkaBus(KafkaSettings(bootstrap_servers=kafka_bootstrap, session_timeout_ms=6000,
                                 heartbeat_interval_ms=1000, poll_timeout_ms=200))
    group = f"rel-{tag}"  # the broker may hold other tests' records: a group of this test's own
    store = open_store(url)
    worker = Worker(ReleaseHandler(), bus, HandlerContext(store=store, settings=None), group=group, poll_timeout_s=0.3)
    try:
        early = _generate(store, bus, tag, range(0, 5))
        _drive(worker, lambda: rel.get_release(store, tag) is not None)
        cmd = release_command(tag, "freeze", by="test")
        bus.publish(Outgoing(RELEASE_COMMANDS, cmd, key=tag, message_id=cmd.id))
        bus.flush()
        _drive(worker, lambda: (r := rel.get_release(store, tag)) is not None and r.status == rel.FROZEN)
        late = _generate(store, bus, tag, range(5, 8))  # generation goes on after the freeze
        _drive(worker, lambda: store.count(schema.failures, stage="release", release=tag) == len(late))
        frozen = rel.get_release(store, tag)
        assert frozen is not None and rel.frozen_questions(store, tag) == sorted(early)
        assert frozen.manifest_hash == rel.manifest_hash(early) and frozen.questions == len(early)
    finally:
        worker.consumer.close()
        store.close()

    # every part restarted: a new store connection, a new handler and worker in the same group
    store = open_store(url)
    worker = Worker(ReleaseHandler(), bus, HandlerContext(store=store, settings=None), group=group, poll_timeout_s=0.3)
    try:
        again = rel.get_release(store, tag)
        assert again is not None and again.manifest_hash == frozen.manifest_hash
        assert rel.frozen_questions(store, tag) == sorted(early)
        later = _generate(store, bus, tag, range(8, 9))
        _drive(worker, lambda: store.count(schema.failures, stage="release", release=tag) == len(late) + 1)
        reasons = {r["reason"] for r in store.select(schema.failures, stage="release", release=tag)}
        assert reasons == {late_reason(tag, q) for q in late + later}
        assert rel.get_release(store, tag) == again  # nothing moved: same hash, members, history
        assert rel.frozen_questions(store, tag) == sorted(early)
    finally:
        worker.consumer.close()
        bus.close()
        store.close()
