"""A release's lifecycle through the api service's release handler, on SQLite over the in-process bus (the
real worker loop, store and handler): draft from its first question, FROZEN with a fixed member set and
manifest hash, LIVE, RETIRED; refusals, redelivered commands, late questions, and the hash after a reopen."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from livetab import releases as rel
from livetab.bus import HandlerContext, InProcBus, Outgoing, Worker
from livetab.records import question_row
from livetab.store import Store, open_store, schema
from livetab.topics import QUESTIONS, RELEASE_COMMANDS, RELEASES
from livetab.v1 import question_pb2, release_pb2
from livetab_api.releases import ReleaseHandler, late_reason, release_command

R = "2026-11"


def _q(i: int, status: str = "verified", release: str = R) -> question_pb2.Question:
    return question_pb2.Question(id=f"q_{release}_{i:02d}", table_id=f"t{i}", family="direct", text=f"q{i}?",
                                 status=status, release=release)


class Harness:
    """qagen's side done by hand (store the question, publish it), the handler driven until idle."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.bus = InProcBus()
        self.worker = Worker(ReleaseHandler(), self.bus, HandlerContext(store=store, settings=None), poll_timeout_s=0)
        self.seen = 0

    def question(self, *qs: question_pb2.Question, stored: bool = True) -> list[release_pb2.ReleaseEvent]:
        if stored:
            self.store.upsert(schema.questions, [question_row(q) for q in qs])
        for q in qs:
            self.bus.publish(Outgoing(QUESTIONS, q, key=q.table_id, message_id=q.id))
        return self._drive()

    def command(self, action: str, release: str = R, cmd: release_pb2.ReleaseCommand | None = None
                ) -> list[release_pb2.ReleaseEvent]:
        cmd = cmd or release_command(release, action, by="test")
        self.bus.publish(Outgoing(RELEASE_COMMANDS, cmd, key=cmd.release, message_id=cmd.id))
        return self._drive()

    def _drive(self) -> list[release_pb2.ReleaseEvent]:
        while self.worker.run_once():
            pass
        assert self.bus.records("livetab.dlq.v1") == []
        records = self.bus.records(RELEASES)[self.seen:]
        self.seen += len(records)
        return [release_pb2.ReleaseEvent.FromString(r.value) for r in records]


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return open_store(f"sqlite:///{tmp_path / 'rel.db'}")


def _sha(ids: list[str]) -> str:
    return hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest()


def test_every_transition_in_order_with_history_members_and_events(store: Store) -> None:
    h = Harness(store)
    verified = [_q(i) for i in (3, 1, 2, 0)]
    [born] = h.question(verified[0])
    assert (born.status, born.refused, born.command_id, born.manifest_hash) == (release_pb2.DRAFT, "", "", "")
    assert h.question(*verified[1:], _q(9, status="rejected")) == []  # candidates of the draft: no event
    draft = rel.get_release(store, R)
    assert draft is not None and draft.status_name == "draft" and rel.frozen_questions(store, R) == []

    [frozen] = h.command("freeze")
    ids = sorted(q.id for q in verified)  # the rejected question is no member
    assert rel.frozen_questions(store, R) == ids
    assert frozen.status == release_pb2.FROZEN and frozen.manifest_hash == _sha(ids) and frozen.questions == 4
    [live] = h.command("publish")
    assert live.status == release_pb2.LIVE and live.manifest_hash == _sha(ids) and not live.refused
    [retired] = h.command("retire")
    assert retired.status == release_pb2.RETIRED
    record = rel.get_release(store, R)
    assert record is not None and record.status == rel.RETIRED and record.manifest_hash == _sha(ids)
    assert [e["status"] for e in record.history] == ["draft", "frozen", "live", "retired"]
    assert [e["command_id"] for e in record.history[1:]] == [frozen.command_id, live.command_id, retired.command_id]
    assert all(e["by"] == "test" for e in record.history[1:])
    assert rel.frozen_questions(store, R) == ids  # retiring changes no member


def test_publish_freezes_a_draft_first_and_retire_takes_a_frozen_one(store: Store) -> None:
    h = Harness(store)
    h.question(_q(0), _q(1))
    events = h.command("publish")
    assert [e.status for e in events] == [release_pb2.FROZEN, release_pb2.LIVE]
    assert len({e.command_id for e in events}) == 1 and events[0].manifest_hash == events[1].manifest_hash
    h.question(_q(0, release="other"))
    h.command("freeze", "other")
    [gone] = h.command("retire", "other")
    assert gone.status == release_pb2.RETIRED and not gone.refused


@pytest.mark.parametrize(("setup", "action", "says"), [
    ([], "publish", "is unknown"),
    (["draft"], "retire", "cannot retire release '2026-11': it is draft"),
    (["draft", "publish"], "freeze", "cannot freeze release '2026-11': it is live"),
    (["draft", "publish", "retire"], "publish", "cannot publish release '2026-11': it is retired"),
    (["draft", "publish", "retire"], "freeze", "it is retired"),
])
def test_a_command_that_cannot_apply_is_refused_and_changes_nothing(store: Store, setup: list[str], action: str,
                                                                    says: str) -> None:
    h = Harness(store)
    for step in setup:
        h.question(_q(0), _q(1)) if step == "draft" else h.command(step)
    before = rel.get_release(store, R)
    [ev] = h.command(action)
    assert says in ev.refused, ev.refused
    assert rel.get_release(store, R) == before
    assert ev.status == (before.status if before else release_pb2.RELEASE_STATUS_UNSPECIFIED)


def test_a_draft_without_verified_questions_is_not_frozen(store: Store) -> None:
    h = Harness(store)
    h.question(_q(0, status="rejected"))
    [ev] = h.command("publish")
    assert "no verified questions" in ev.refused
    assert rel.get_release(store, R).status == rel.DRAFT  # type: ignore[union-attr]


def test_asking_for_the_state_it_is_in_is_a_no_op_with_the_same_state(store: Store) -> None:
    h = Harness(store)
    h.question(_q(0), _q(1))
    [first] = h.command("freeze")
    h.question(_q(2))  # late: the second freeze must not take it
    [again] = h.command("freeze")
    assert (again.status, again.manifest_hash, again.questions, again.refused) == (
        first.status, first.manifest_hash, first.questions, "")
    assert len(rel.get_release(store, R).history) == 2  # type: ignore[union-attr]  # draft, frozen: nothing appended
    h.command("publish")
    [still] = h.command("publish")
    assert still.status == release_pb2.LIVE and not still.refused


def test_a_redelivered_command_applies_once_and_answers_the_same(store: Store) -> None:
    h = Harness(store)
    h.question(_q(0), _q(1))
    cmd = release_command(R, "publish", by="test")
    first = h.command("", cmd=cmd)
    h.question(_q(2))  # stored and late between the deliveries
    again = h.command("", cmd=cmd)
    assert [e.id for e in again] == [e.id for e in first] and len(first) == 2
    record = rel.get_release(store, R)
    assert record is not None and [e["status"] for e in record.history] == ["draft", "frozen", "live"]
    assert rel.frozen_questions(store, R) == [_q(0).id, _q(1).id]


def test_a_late_question_joins_nothing_and_is_recorded_once(store: Store) -> None:
    h = Harness(store)
    h.question(_q(0), _q(1))
    # stored by qagen before the freeze, delivered after it: the freeze took it, so it is not late
    store.upsert(schema.questions, [question_row(_q(2))])
    [frozen] = h.command("freeze")
    assert h.question(_q(2), stored=False) == []
    assert store.count(schema.failures) == 0
    assert h.question(_q(8, status="rejected")) == []  # never a member of any freeze: not late either
    late = _q(3)
    assert h.question(late) == [] and h.question(late, stored=False) == []  # and its redelivery
    h.command("publish")
    h.question(late, stored=False)  # once more, now that the release is live
    rows = store.select(schema.failures, stage="release")
    assert [(r["entity"], r["reason"], r["release"]) for r in rows] == [
        (late.id, f"release {R} is frozen; question {late.id} arrived late", R)]
    assert rows[0]["reason"] == late_reason(R, late.id)
    record = rel.get_release(store, R)
    assert record is not None and record.manifest_hash == frozen.manifest_hash == _sha([_q(i).id for i in range(3)])
    assert late.id not in rel.frozen_questions(store, R)


def test_the_manifest_hash_is_the_same_when_read_again_after_a_reopen(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'reopen.db'}"
    store = open_store(url)
    h = Harness(store)
    h.question(*[_q(i) for i in range(7)])
    [frozen] = h.command("freeze")
    store.close()
    store = open_store(url)
    record = rel.get_release(store, R)
    members = rel.frozen_questions(store, R)
    assert record is not None and record.status == rel.FROZEN
    assert record.manifest_hash == frozen.manifest_hash == _sha(members) == rel.manifest_hash(reversed(members))
    assert json.loads(json.dumps(record.history))[1]["command_id"] == frozen.command_id
    store.close()


def test_status_names_map_one_to_one() -> None:
    names = [rel.status_name(s) for s in (rel.DRAFT, rel.FROZEN, rel.LIVE, rel.RETIRED)]
    assert names == ["draft", "frozen", "live", "retired"]
    assert [rel.status_of(n) for n in names] == [rel.DRAFT, rel.FROZEN, rel.LIVE, rel.RETIRED]
    with pytest.raises(ValueError, match="unknown release status"):
        rel.status_of("published")


def test_the_handler_consumes_in_the_group_the_registry_names() -> None:
    """Its own group beside the planner's `livetab-api` (one group with two subscriptions rebalances both
    workers whenever one joins, and a commit during a rebalance stops a worker); `livetab replay` finds it."""
    from livetab.dlq import default_group

    worker = Worker(ReleaseHandler(), InProcBus(), HandlerContext(store=None, settings=None))
    assert worker.group == "livetab-api-releases" == default_group(QUESTIONS) == default_group(RELEASE_COMMANDS)
    assert default_group("livetab.runs.v1") == "livetab-api"


def test_the_first_question_makes_a_draft_and_says_so_on_both_stores(store_url: str) -> None:
    """On PostgreSQL the draft was written but `create_draft` read the INSERT's rowcount as -1: no DRAFT event,
    no log line, and a second writer's refusal looked the same as a success."""
    store = open_store(store_url)
    assert rel.create_draft(store, "race", "2026-12-04T00:00:00+00:00", by="test") is True
    assert rel.create_draft(store, "race", "2026-12-04T00:00:01+00:00", by="test") is False  # one row wins
    events = Harness(store).question(_q(1))
    assert [(e.release, e.status) for e in events] == [(R, rel.DRAFT)]
    assert rel.get_release(store, R).status == rel.DRAFT
