"""Releases in the store, read and moved one way: the status names, the manifest hash, and the repository
functions for the `releases` and `release_members` tables.

A release is born DRAFT (its questions arrive on livetab.questions.v1), is FROZEN once (its verified
questions at that moment become its members, for ever, and the manifest hash is computed over their ids),
goes LIVE (runs may be planned against it) and is RETIRED. Only the api service's release handler
(`livetab_api.releases`) moves a release; the planner, the reporter and the CLI read it through
`get_release` and `frozen_questions`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite

from livetab.records import load_question
from livetab.store import Store, schema
from livetab.v1 import release_pb2

__all__ = [
    "DRAFT",
    "FROZEN",
    "LIVE",
    "RETIRED",
    "ReleaseRecord",
    "advance",
    "create_draft",
    "freeze",
    "frozen_question_counts",
    "frozen_questions",
    "get_release",
    "list_releases",
    "manifest_hash",
    "member_id",
    "not_live_reason",
    "status_name",
    "status_of",
    "verified_questions",
]

DRAFT = release_pb2.DRAFT
FROZEN = release_pb2.FROZEN
LIVE = release_pb2.LIVE
RETIRED = release_pb2.RETIRED

# The one mapping between livetab.v1.ReleaseStatus and the store's `releases.status` strings.
_NAMES: dict[int, str] = {DRAFT: "draft", FROZEN: "frozen", LIVE: "live", RETIRED: "retired"}
_BY_NAME: dict[str, int] = {v: k for k, v in _NAMES.items()}


def status_name(status: int) -> str:
    """The store's name of a ReleaseStatus ("draft", "frozen", "live", "retired")."""
    try:
        return _NAMES[status]
    except KeyError:
        raise ValueError(f"no release status {status!r}") from None


def status_of(name: str) -> int:
    """The ReleaseStatus of a stored status name."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown release status {name!r}; one of {', '.join(_BY_NAME)}") from None


def manifest_hash(question_ids: Iterable[str]) -> str:
    """sha256 (hex) over the question ids, sorted and deduplicated, one per line: the same set always has the
    same hash, whatever order it was read in."""
    return hashlib.sha256("\n".join(sorted(set(question_ids))).encode()).hexdigest()


def member_id(release: str, question_id: str) -> str:
    return f"{release}|{question_id}"


@dataclass(frozen=True)
class ReleaseRecord:
    """One row of `releases`. `history` is the list of applied changes, oldest first: each a dict with
    `status` (a name), `at` (ISO 8601, UTC), `command_id` ("" for the draft born of a question) and `by`."""

    name: str
    status: int
    manifest_hash: str = ""
    questions: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)
    updated_at: datetime | None = None

    @property
    def status_name(self) -> str:
        return status_name(self.status)

    def applied(self, command_id: str) -> list[dict[str, Any]]:
        """The history entries a command produced (empty if it was never applied)."""
        return [h for h in self.history if command_id and h.get("command_id") == command_id]


def _record(row: Any) -> ReleaseRecord:
    return ReleaseRecord(name=str(row["id"]), status=status_of(str(row["status"])),
                         manifest_hash=str(row["manifest_hash"]), questions=int(row["questions"]),
                         history=list(json.loads(row["history"] or "[]")), updated_at=row["updated_at"])


def get_release(store: Store, name: str) -> ReleaseRecord | None:
    with store.engine.connect() as conn:
        row = conn.execute(select(schema.releases).where(schema.releases.c.id == name)).mappings().first()
    return _record(row) if row is not None else None


def list_releases(store: Store) -> list[ReleaseRecord]:
    with store.engine.connect() as conn:
        rows = conn.execute(select(schema.releases).order_by(schema.releases.c.id)).mappings().all()
    return [_record(r) for r in rows]


def frozen_questions(store: Store, name: str) -> list[str]:
    """The frozen question ids of a release, sorted; empty for a draft or unknown release."""
    m = schema.release_members
    with store.engine.connect() as conn:
        return sorted(str(r[0]) for r in conn.execute(select(m.c.question_id).where(m.c.release == name)))


def frozen_question_labels(store: Store, name: str, *, status: str | None = None,
                           families: Collection[str] = (), limit: int = 0) -> list[tuple[str, str, str]]:
    """(id, family, status) of each of a release's frozen questions that is stored, sorted by id: one query over
    the membership and the questions' own columns, no payload read (what a planner filters on). The columns are
    written from the payload with it (`records.question_row`).

    `status`, `families` (none: every family) and `limit` (0: no limit) filter and cut in the query itself, after
    sorting by id (by code point, as Python sorts): a run of 125 questions on a release of 6,251 read 6,251 rows
    to keep 125 (~21 ms of a 2,000-request round's planning in `python -m bench pipeline`, against ~1 ms)."""
    m, q = schema.release_members, schema.questions
    stmt = select(q.c.id, q.c.family, q.c.status).join(m, m.c.question_id == q.c.id).where(m.c.release == name)
    if status is not None:
        stmt = stmt.where(q.c.status == status)
    if families:
        stmt = stmt.where(q.c.family.in_(sorted(families)))
    if limit:  # the database sorts, by code point as `sorted` does below (PostgreSQL's default collation may not)
        stmt = stmt.order_by(q.c.id.collate("C") if store.dialect == "postgresql" else q.c.id).limit(limit)
    with store.engine.connect() as conn:
        return sorted((str(i), str(f), str(st)) for i, f, st in conn.execute(stmt))


def frozen_question_counts(store: Store, name: str, *, status: str | None = None) -> dict[str, int]:
    """How many of a release's frozen questions are stored, by family (of `status` only, if given): one counting
    query over the membership and the questions' columns, no row read into Python. What the api's door checks
    a run against (`POST /runs`); reading every frozen question's row for it took 64-86 ms a submission on a
    release of 6,251 questions, the count 14-16 ms (6 December 2026)."""
    m, q = schema.release_members, schema.questions
    stmt = select(q.c.family, func.count()).join(m, m.c.question_id == q.c.id).where(m.c.release == name)
    if status is not None:
        stmt = stmt.where(q.c.status == status)
    with store.engine.connect() as conn:
        return {str(family): int(n) for family, n in conn.execute(stmt.group_by(q.c.family))}


def verified_questions(store: Store, name: str) -> list[str]:
    """The release's questions in the store that runs would ask: those whose status is "verified" (the
    planner's rule), sorted by id. What a freeze fixes."""
    ids = []
    for row in store.select(schema.questions, release=name):
        q = load_question(row)
        if q is not None and q.status == "verified":
            ids.append(q.id)
    return sorted(ids)


def not_live_reason(store: Store, name: str) -> str | None:
    """Why no run may be planned against release `name` now, or None when it is live."""
    rel = get_release(store, name)
    if rel is None and not store.count(schema.questions, release=name):
        return f"release {name!r} is unknown (no release record and no questions in the store)"
    if rel is not None and rel.status == LIVE:
        return None
    if rel is None or rel.status == DRAFT:  # no record but questions: stored before the release handler ran
        return (f"release {name!r} is a draft: its questions are not fixed yet; publish it first "
                f"(`livetab release publish {name}`)")
    if rel.status == FROZEN:
        return f"release {name!r} is frozen but not live yet (`livetab release publish {name}`)"
    return f"release {name!r} is retired: no new runs are planned against it"


def _entry(status: int, at: str, command_id: str, by: str) -> dict[str, Any]:
    return {"status": status_name(status), "at": at, "command_id": command_id, "by": by}


def create_draft(store: Store, name: str, at: str, command_id: str = "", by: str = "") -> bool:
    """Record a new DRAFT release; False (nothing written) when the release already has a row."""
    r = schema.releases
    history = json.dumps([_entry(DRAFT, at, command_id, by)])
    ins = postgresql.insert(r) if store.dialect == "postgresql" else sqlite.insert(r)
    stmt = ins.values(id=name, status=status_name(DRAFT), manifest_hash="", questions=0, history=history,
                      updated_at=datetime.fromisoformat(at)).on_conflict_do_nothing(index_elements=["id"])
    # two processes may race to create it: one row wins, the other sees 0. SQLAlchemy keeps an INSERT's rowcount
    # only when asked (`preserve_rowcount`): without it PostgreSQL's is -1 and a created draft looked refused
    with store.engine.begin() as conn:
        done = conn.execute(stmt.execution_options(preserve_rowcount=True))
    return bool(done.rowcount == 1)


def _move(conn: Any, name: str, frm: int, to: int, entry: dict[str, Any], **values: Any) -> bool:
    """Compare-and-set: move `name` from `frm` to `to` and append `entry`; False if it was not in `frm`."""
    r = schema.releases
    row = conn.execute(select(r.c.history).where(r.c.id == name, r.c.status == status_name(frm))).first()
    if row is None:
        return False
    history = [*json.loads(row[0] or "[]"), entry]
    done = conn.execute(update(r).where(r.c.id == name, r.c.status == status_name(frm)).values(
        status=status_name(to), history=json.dumps(history), updated_at=datetime.fromisoformat(entry["at"]),
        **values))
    return bool(done.rowcount == 1)


def freeze(store: Store, name: str, question_ids: list[str], at: str, command_id: str, by: str) -> bool:
    """DRAFT -> FROZEN with `question_ids` as its members and their manifest hash, in one transaction.
    False (nothing written) when the release is not a draft."""
    ids = sorted(set(question_ids))
    with store.engine.begin() as conn:
        if not _move(conn, name, DRAFT, FROZEN, _entry(FROZEN, at, command_id, by),
                     manifest_hash=manifest_hash(ids), questions=len(ids)):
            return False
        if ids:
            conn.execute(insert(schema.release_members), [
                {"id": member_id(name, q), "release": name, "question_id": q} for q in ids])
    return True


def advance(store: Store, name: str, frm: int, to: int, at: str, command_id: str, by: str) -> bool:
    """Move a release forward from `frm` to `to` (FROZEN -> LIVE, LIVE/FROZEN -> RETIRED); False when it is
    not in `frm`."""
    if to <= frm:
        raise ValueError(f"a release moves only forward, not {status_name(frm)} -> {status_name(to)}")
    with store.engine.begin() as conn:
        return _move(conn, name, frm, to, _entry(to, at, command_id, by))
