"""The human review queue, in the store (`review_items`), so every pod sees the same queue.

Questions the validator got right only sometimes wait there for a person (status `pending`, with the
reason). A decision (`accepted`, `rejected`, `edited`) keeps who made it and when, appends itself to the
question's verification decisions, and is made once: it is written only while the row is still pending,
in one conditional update, so two reviewers deciding at once cannot both win. An accepted or edited
question is stored as verified; the caller publishes it on the questions topic, where the api service's
release handler records it for its release. Decisions are refused once that release is no longer a draft
(its question set is frozen for ever).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import update

from livetab.questions import Question
from livetab.records import question_row
from livetab.store import Store, schema
from livetab.v1 import question_pb2

__all__ = ["ACCEPTED", "DECISIONS", "EDITED", "PENDING", "REJECTED", "STATUSES", "ReviewError", "ReviewItem", "add",
           "decide", "get", "items", "release_status"]

PENDING, ACCEPTED, REJECTED, EDITED = "pending", "accepted", "rejected", "edited"
DECISIONS = (ACCEPTED, REJECTED, EDITED)
STATUSES = (PENDING, *DECISIONS)
DRAFT = "draft"  # a release with no row in `releases` is a draft too (nothing has frozen it)


class ReviewError(Exception):
    """A review decision that cannot be made; the message says why."""


@dataclass(frozen=True)
class ReviewItem:
    question: Question  # as queued, or as decided (edited text/gold, the decision in its verification)
    release: str
    status: str
    reason: str  # why it waits for a person
    reviewer: str = ""
    note: str = ""
    decided_at: datetime | None = None
    created_at: datetime | None = None


def _item(row: dict[str, Any]) -> ReviewItem:
    q = Question.from_proto(question_pb2.Question.FromString(row["payload"]))
    return ReviewItem(question=q, release=row["release"], status=row["status"], reason=row["reason"],
                      reviewer=row["reviewer"], note=row["note"], decided_at=row["decided_at"],
                      created_at=row["created_at"])


def add(store: Store, question: Question, reason: str) -> bool:
    """Queue `question` (status `review`) for a person; False, and nothing changed, if it is queued already
    (a redelivered table re-proposes the same question: its first place in the queue, or its decision, stays)."""
    if store.ids(schema.review_items, [question.id]):
        return False
    q = dataclasses.replace(question, status="review")
    store.insert_new(schema.review_items, [{"id": q.id, "release": q.release, "status": PENDING, "reason": reason,
                                            "payload": q.to_proto().SerializeToString()}])
    return True


def items(store: Store, *, release: str | None = None, status: str | None = None) -> list[ReviewItem]:
    """The queue's items, oldest first, narrowed to a release and/or a status."""
    if status is not None and status not in STATUSES:
        raise ReviewError(f"unknown review status {status!r}; one of {', '.join(STATUSES)}")
    where = {k: v for k, v in (("release", release), ("status", status)) if v is not None}
    rows = store.select(schema.review_items, **where)
    return [_item(r) for r in sorted(rows, key=lambda r: (r["created_at"], r["id"]))]


def get(store: Store, question_id: str) -> ReviewItem:
    row = store.get(schema.review_items, question_id)
    if row is None:
        raise ReviewError(f"question {question_id} is not in the review queue")
    return _item(row)


def release_status(store: Store, release: str) -> str:
    """The release's lifecycle status by name (draft, frozen, live, retired); `draft` when it has no row yet."""
    row = store.get(schema.releases, release)
    return str(row["status"]) if row else DRAFT


def decide(store: Store, question_id: str, decision: str, *, reviewer: str, note: str = "",
           edited: Question | None = None, checks: list[str] | None = None) -> Question:
    """Record `decision` on a pending item and return the decided question (verified when accepted or edited,
    rejected otherwise). `edited` is the question as the reviewer changed it (decision `edited`); `checks` are
    what was re-verified about the edit, appended to its decisions. An accepted or edited question is also
    stored as verified. Raises ReviewError with the reason when the decision cannot be made."""
    if decision not in DECISIONS:
        raise ReviewError(f"unknown decision {decision!r}; one of {', '.join(DECISIONS)}")
    if not reviewer.strip():
        raise ReviewError("a review decision needs the reviewer's name")
    if (edited is None) != (decision != EDITED):
        raise ReviewError("an edit needs the edited question; accept and reject take none")
    item = get(store, question_id)
    if item.status != PENDING:
        raise ReviewError(f"question {question_id} was already {item.status} by {item.reviewer} "
                          f"at {item.decided_at}")
    state = release_status(store, item.release)
    if state != DRAFT:
        raise ReviewError(f"release {item.release!r} is {state}, no longer a draft: its questions are fixed, so "
                          f"question {question_id} can no longer join it (a re-generation makes a new release)")
    base = edited if edited is not None else item.question
    verdict = {ACCEPTED: "accepted", REJECTED: "rejected", EDITED: "edited and accepted"}[decision]
    decisions = [*base.verification.decisions, *(checks or []),
                 f"human review: {verdict} by {reviewer}" + (f": {note}" if note else "")]
    accepted = decision != REJECTED
    q = dataclasses.replace(base, id=item.question.id, release=item.release,
                            status="verified" if accepted else "rejected",
                            verification=dataclasses.replace(base.verification, decisions=decisions, passed=accepted))
    proto = q.to_proto()
    t = schema.review_items
    with store.engine.begin() as conn:  # only while still pending: one decision wins
        done = conn.execute(update(t).where(t.c.id == question_id, t.c.status == PENDING).values(
            status=decision, reviewer=reviewer, note=note, decided_at=datetime.now(UTC),
            payload=proto.SerializeToString()))
    if done.rowcount != 1:
        raise ReviewError(f"question {question_id} was decided by someone else meanwhile: {get(store, question_id).status}")
    if accepted:
        store.upsert(schema.questions, [question_row(proto)])
    return q
