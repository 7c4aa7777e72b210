"""The release handler: a release's lifecycle, driven by messages.

Questions (livetab.questions.v1): the first question of a release with no row makes it a DRAFT; the
questions of a draft are its candidates (qagen keeps them in the `questions` table). A verified question
arriving for a release that is already frozen (or live, or retired) joins nothing: it is recorded once as
late (a `failures` row, stage "release") and the frozen set and its manifest hash never change.

Commands (livetab.releases.commands.v1): FREEZE (DRAFT -> FROZEN: the release's verified questions in the
store at that moment become its members, written once, and the manifest hash is taken over them), PUBLISH
(FROZEN -> LIVE; a draft is frozen first), RETIRE (LIVE or FROZEN -> RETIRED). A command asking for the
state the release is already in changes nothing and answers with that state; one that would move a
release backwards, or names an unknown release, is answered with `refused` set. A redelivered command
(same id) is applied once: its events are published again, unchanged. Every applied change is appended to
the release's history and published as a ReleaseEvent on livetab.releases.v1. A release going LIVE also
sends a run of every active submission on it (livetab_api.submissions).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from google.protobuf.message import Message
from livetab import releases as rel
from livetab import topics
from livetab.bus import HandlerContext, InProcBus, Outgoing, PoisonMessage, Retryable, Worker, decode
from livetab.failures import record_failure
from livetab.ids import content_id
from livetab.releases import DRAFT, FROZEN, LIVE, RETIRED, ReleaseRecord
from livetab.store import Store, schema
from livetab.v1 import question_pb2, release_pb2

from livetab_api import submissions

__all__ = ["ACTIONS", "ReleaseHandler", "apply_commands", "late_reason", "publish_releases", "release_command"]

log = logging.getLogger(__name__)
Command = release_pb2.ReleaseCommand
GROUP = topics.consumer_group("api", topics.by_name(topics.RELEASE_COMMANDS).group)
ACTIONS = {"freeze": Command.FREEZE, "publish": Command.PUBLISH, "retire": Command.RETIRE}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def late_reason(release: str, question_id: str) -> str:
    return f"release {release} is frozen; question {question_id} arrived late"


def release_command(release: str, action: str, by: str = "") -> release_pb2.ReleaseCommand:
    """A new command (its own id) to move `release`: action is freeze, publish or retire."""
    if action not in ACTIONS:
        raise ValueError(f"unknown release action {action!r}; one of {', '.join(ACTIONS)}")
    return Command(id=uuid.uuid4().hex, release=release, action=ACTIONS[action], requested_by=by, requested_at=_now())


def _event(release: str, status: int, manifest: str, questions: int, command_id: str, at: str,
           refused: str = "") -> Outgoing:
    ev = release_pb2.ReleaseEvent(
        id=content_id("relev", release, status, manifest, command_id, refused), release=release, status=status,  # type: ignore[arg-type]
        manifest_hash=manifest, questions=questions, command_id=command_id, refused=refused, at=at)
    return Outgoing(topics.RELEASES, ev, key=release, message_id=ev.id)


class ReleaseHandler:
    service = "api"
    topics = [topics.QUESTIONS, topics.RELEASE_COMMANDS]
    # its own consumer group beside the planner's (the registry's `group` of these topics), so a rebalance of
    # one never fails the other's commit
    group = GROUP

    def __init__(self) -> None:
        self._cache: dict[str, ReleaseRecord | None] | None = None  # within one batch of questions
        self._members: dict[str, set[str]] = {}

    # -- one message ----------------------------------------------------------------------------------
    def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
        if isinstance(message, question_pb2.Question):
            return self._question(message, ctx.store)
        if isinstance(message, release_pb2.ReleaseCommand):
            self._cache = None
            return self._command(message, ctx.store)
        raise PoisonMessage(f"the release handler got {message.DESCRIPTOR.full_name}")

    def handle_batch(self, messages: Sequence[Message], ctx: HandlerContext) -> list[Outgoing]:
        """In order; a batch's questions read each release (and its members) once."""
        self._cache, self._members = {}, {}
        try:
            out: list[Outgoing] = []
            for m in messages:
                out += self.handle(m, ctx)
                if self._cache is None:  # a command moved a release: read again
                    self._cache, self._members = {}, {}
            return out
        finally:
            self._cache, self._members = None, {}

    def _release(self, store: Store, name: str) -> ReleaseRecord | None:
        if self._cache is None:
            return rel.get_release(store, name)
        if name not in self._cache:
            self._cache[name] = rel.get_release(store, name)
        return self._cache[name]

    def _is_member(self, store: Store, release: str, qid: str) -> bool:
        if self._cache is None:
            return store.get(schema.release_members, rel.member_id(release, qid)) is not None
        if release not in self._members:
            self._members[release] = set(rel.frozen_questions(store, release))
        return qid in self._members[release]

    # -- questions ------------------------------------------------------------------------------------
    def _question(self, q: question_pb2.Question, store: Store) -> list[Outgoing]:
        if not q.release:
            raise PoisonMessage(f"question {q.id} names no release")
        current = self._release(store, q.release)
        if current is None:
            at = _now()
            created = rel.create_draft(store, q.release, at, by="questions")
            if self._cache is not None:
                self._cache[q.release] = rel.get_release(store, q.release)
            if created:
                log.info("release %s created as a draft by its first question %s", q.release, q.id)
                n = len(rel.verified_questions(store, q.release))
                return [_event(q.release, DRAFT, "", n, "", at)]
            return []
        if current.status == DRAFT or q.status != "verified" or self._is_member(store, q.release, q.id):
            # a candidate of the draft (in the questions table), one no freeze would take, or one it took
            return []
        reason = late_reason(q.release, q.id)
        log.warning("%s: not added (the release is %s)", reason, current.status_name)
        record_failure(store, "release", q.id, reason, q.release)
        return []

    # -- commands -------------------------------------------------------------------------------------
    def _command(self, cmd: release_pb2.ReleaseCommand, store: Store) -> list[Outgoing]:
        at = _now()
        name = cmd.release
        if not cmd.id:
            raise PoisonMessage("a release command without an id cannot be applied once")
        action = cmd.action
        if action not in ACTIONS.values():
            return [_event(name, 0, "", 0, cmd.id, at, f"unknown action {action} for release {name!r}")]
        target = {Command.FREEZE: FROZEN, Command.PUBLISH: LIVE, Command.RETIRE: RETIRED}[action]
        current = rel.get_release(store, name) if name else None
        out: list[Outgoing] = []
        if current is not None and current.applied(cmd.id):  # a redelivery: publish what it did, again
            out = [_event(name, rel.status_of(h["status"]), current.manifest_hash, current.questions, cmd.id, h["at"])
                   for h in current.applied(cmd.id)]
            if any(rel.status_of(h["status"]) == target for h in current.applied(cmd.id)):
                return out + (submissions.reruns(store, name) if target == LIVE else [])
            # it stopped half-way (a PUBLISH that froze, then lost a race): go on from where it is
        if current is None:
            if not name or store.count(schema.questions, release=name) == 0:
                return [_event(name, 0, "", 0, cmd.id, at, f"release {name!r} is unknown: no release record and "
                                                            "no questions in the store")]
            # questions stored before the release handler saw them (an older store): the release is a draft
            rel.create_draft(store, name, at, by=cmd.requested_by or "command")
            current = rel.get_release(store, name)
            assert current is not None
        by = cmd.requested_by
        status = current.status
        if action in (Command.FREEZE, Command.PUBLISH) and status == DRAFT:
            ids = rel.verified_questions(store, name)
            if not ids:
                why = f"release {name!r} has no verified questions to freeze"
                return [*out, _event(name, DRAFT, "", 0, cmd.id, at, why)]
            self._moved(rel.freeze(store, name, ids, at, cmd.id, by), name, FROZEN)
            log.info("release %s frozen: %d questions, manifest %s", name, len(ids), rel.manifest_hash(ids))
            out.append(_event(name, FROZEN, rel.manifest_hash(ids), len(ids), cmd.id, at))
            if action == Command.FREEZE:
                return out
            status = FROZEN
        frozen = rel.get_release(store, name) if out else current
        assert frozen is not None
        if status == target:  # already there: nothing changes, the state is the answer
            return [*out, _event(name, status, frozen.manifest_hash, frozen.questions, cmd.id, at)]
        allowed = {(FROZEN, LIVE), (FROZEN, RETIRED), (LIVE, RETIRED)}
        if (status, target) not in allowed:
            word = {Command.FREEZE: "freeze", Command.PUBLISH: "publish", Command.RETIRE: "retire"}[action]
            why = (f"cannot {word} release {name!r}: it is {rel.status_name(status)}"
                   + (" (publish or freeze it first)" if status == DRAFT else " and a release moves only forward"))
            return [*out, _event(name, status, frozen.manifest_hash, frozen.questions, cmd.id, at, why)]
        self._moved(rel.advance(store, name, status, target, at, cmd.id, by), name, target)
        log.info("release %s is %s (command %s by %s)", name, rel.status_name(target), cmd.id, by or "?")
        # a release going live: every active submission is run on it too (livetab_api.submissions)
        again = submissions.reruns(store, name) if target == LIVE else []
        return [*out, _event(name, target, frozen.manifest_hash, frozen.questions, cmd.id, at), *again]

    @staticmethod
    def _moved(done: bool, name: str, target: int) -> None:
        if not done:  # another api replica moved it between our read and our write: read again
            raise Retryable(f"release {name} changed while it was being moved to {rel.status_name(target)}")


def apply_commands(store: Store, settings: Any, commands: Sequence[release_pb2.ReleaseCommand]
                   ) -> list[release_pb2.ReleaseEvent]:
    """Embedded mode: the commands through the release handler over an in-process bus (the same worker
    loop as a deployed api service), until it is idle. Returns the events it published, in order. A
    command the handler could not process raises, with the dead letter's reason."""
    bus = InProcBus()
    worker = Worker(ReleaseHandler(), bus, HandlerContext(store=store, settings=settings), poll_timeout_s=0)
    for c in commands:
        bus.publish(Outgoing(topics.RELEASE_COMMANDS, c, key=c.release, message_id=c.id))
    try:
        while worker.run_once():
            pass
    finally:
        worker.consumer.close()
    letters = bus.records(topics.DLQ)
    if letters:
        raise RuntimeError(f"release command failed: {decode(letters[0]).error}")
    return [ev for ev in (decode(r) for r in bus.records(topics.RELEASES))
            if isinstance(ev, release_pb2.ReleaseEvent)]


def publish_releases(store: Store, settings: Any, names: Sequence[str], by: str = "") -> list[release_pb2.ReleaseEvent]:
    """Embedded mode: PUBLISH each release (a draft is frozen first; a live one stays as it is)."""
    return apply_commands(store, settings, [release_command(n, "publish", by=by) for n in names])
