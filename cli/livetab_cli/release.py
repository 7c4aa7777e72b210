"""`livetab release freeze|publish|retire NAME` and `livetab release list|show NAME`.

A command goes to the api service's release handler (`livetab_api.releases`). With a SQLite store (embedded
mode) it is applied here, through that handler over the in-process bus; with any other store, or with
`--bus kafka` (Kafka at `kafka.bootstrap_servers`), it is published to livetab.releases.commands.v1 and the
command waits for the api service's ReleaseEvent on livetab.releases.v1. A refused command exits 2 with
the reason. `list` and `show` read the store (`livetab.releases`).
"""

from __future__ import annotations

import getpass
import json
import sys
import time
import uuid
from typing import Any

from livetab import releases as rel
from livetab.settings import Settings
from livetab.store import Store, open_store, schema
from livetab.v1 import release_pb2

__all__ = ["ACTIONS", "VIEWS", "embedded_store", "release_action", "release_view"]

ACTIONS = ("freeze", "publish", "retire")
VIEWS = ("list", "show")
WAIT_S = 60.0  # distributed mode: how long to wait for the api service's answer


def embedded_store(settings: Settings, bus: str = "auto") -> bool:
    """True when a command applies in this process: `bus` inproc, or auto with a SQLite store (embedded
    mode). Otherwise (kafka, or auto with PostgreSQL) the command goes over Kafka to the api service."""
    return bus == "inproc" or (bus == "auto" and settings.store.url.startswith("sqlite"))


def _who() -> str:
    try:
        return f"{getpass.getuser()} (livetab release)"
    except Exception:
        return "livetab release"


def _describe(ev: release_pb2.ReleaseEvent) -> str:
    status = rel.status_name(ev.status) if ev.status else "unknown"
    if ev.refused:
        return f"refused: {ev.refused}"
    digest = f", manifest {ev.manifest_hash[:16]}…" if ev.manifest_hash else ""
    return f"release {ev.release} is {status}: {ev.questions} questions{digest}"


def _apply_distributed(settings: Settings, cmd: release_pb2.ReleaseCommand, wait_s: float
                       ) -> list[release_pb2.ReleaseEvent] | None:
    """Publish the command to Kafka and wait for the api service's events answering it (None on timeout)."""
    from livetab.bus import Outgoing, decode
    from livetab.bus.kafka import KafkaBus
    from livetab.topics import RELEASE_COMMANDS, RELEASES

    bus = KafkaBus(settings.kafka, client_id="livetab-release")
    try:
        answers = bus.consumer(f"livetab-cli-{uuid.uuid4().hex[:12]}", [RELEASES])
        try:
            bus.publish(Outgoing(RELEASE_COMMANDS, cmd, key=cmd.release, message_id=cmd.id))
            bus.flush()
            events: list[release_pb2.ReleaseEvent] = []
            deadline = time.monotonic() + wait_s
            while time.monotonic() < deadline:
                for record in answers.poll(100, 0.5):
                    ev = decode(record)
                    if isinstance(ev, release_pb2.ReleaseEvent) and ev.command_id == cmd.id:
                        events.append(ev)
                if events and _answered(cmd, events):
                    return events
            return events or None
        finally:
            answers.close()
    finally:
        bus.close()


def _answered(cmd: release_pb2.ReleaseCommand, events: list[release_pb2.ReleaseEvent]) -> bool:
    """Whether these events are the whole answer: a refusal, or the status the action asked for."""
    target = {cmd.FREEZE: rel.FROZEN, cmd.PUBLISH: rel.LIVE, cmd.RETIRE: rel.RETIRED}[cmd.action]
    return any(e.refused or e.status == target for e in events)


def release_action(settings: Settings, action: str, name: str, wait_s: float = WAIT_S, bus: str = "auto") -> int:
    """Send one command; 0 when applied (or already so), 2 when refused, 1 when no answer came."""
    from livetab_api.releases import apply_commands, release_command

    cmd = release_command(name, action, by=_who())
    if embedded_store(settings, bus):
        store = open_store(settings.store.url)
        try:
            events: list[release_pb2.ReleaseEvent] | None = apply_commands(store, settings, [cmd])
        finally:
            store.close()
    else:
        events = _apply_distributed(settings, cmd, wait_s)
        if events is None:
            print(f"livetab release {action}: command {cmd.id} sent to the api service, no answer within "
                  f"{wait_s:.0f}s (is the api service running?); see `livetab release show {name}`", file=sys.stderr)
            return 1
    assert events is not None
    for ev in events:
        if ev.refused:
            print(f"livetab release {action} {name}: refused: {ev.refused}", file=sys.stderr)
            return 2
    for ev in events:
        print(_describe(ev))
    return 0


def _unrecorded(store: Store) -> dict[str, int]:
    """Releases with questions in the store but no release record (stored before the release handler ran)."""
    return store.count_by(schema.questions, "release")


def release_view(settings: Settings, view: str, name: str | None) -> int:
    store = open_store(settings.store.url)
    try:
        if view == "list":
            records = {r.name: r for r in rel.list_releases(store)}
            stored = _unrecorded(store)
            print(f"{'release':<24} {'status':<8} {'frozen':>7} {'stored':>7}  manifest")
            for n in sorted(set(records) | set(stored)):
                r = records.get(n)
                print(f"{n:<24} {r.status_name if r else 'draft':<8} {r.questions if r else 0:>7} "
                      f"{stored.get(n, 0):>7}  {r.manifest_hash[:16] if r and r.manifest_hash else '-'}")
            return 0
        if not name:
            print("livetab release show: name the release", file=sys.stderr)
            return 2
        r = rel.get_release(store, name)
        n_stored = store.count(schema.questions, release=name)
        if r is None and n_stored == 0:
            print(f"livetab release show: no release {name!r} in the store", file=sys.stderr)
            return 1
        doc: dict[str, Any] = {
            "release": name, "status": r.status_name if r else "draft",
            "manifest_hash": r.manifest_hash if r else "", "frozen_questions": r.questions if r else 0,
            "stored_questions": n_stored, "verified_questions": len(rel.verified_questions(store, name)),
            "history": r.history if r else []}
        print(json.dumps(doc, indent=2, ensure_ascii=False))
        return 0
    finally:
        store.close()
