"""The human review queue: questions the validator got right only sometimes wait here for a person.

Store-agnostic and simple: an append-only JSONL event log (add / approve / reject) guarded by a file
lock; the current state is the replay of the log, so nothing is ever overwritten or lost and every
decision keeps who made it and when. The store may back the same interface later.
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from livetab.questions import Gold, Question, Verification

__all__ = ["ReviewItem", "ReviewQueue", "question_from_dict", "question_to_dict"]

log = logging.getLogger(__name__)

PENDING, APPROVED, REJECTED = "pending", "approved", "rejected"


def question_to_dict(q: Question) -> dict[str, Any]:
    return dataclasses.asdict(q)


def question_from_dict(d: dict[str, Any]) -> Question:
    data = dict(d)
    data["gold"] = Gold(**data["gold"])
    data["verification"] = Verification(**data["verification"])
    return Question(**data)


@dataclass
class ReviewItem:
    question: Question
    reason: str
    status: str = PENDING
    added_at: str = ""
    decided_at: str = ""
    reviewer: str = ""
    note: str = ""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class ReviewQueue:
    """A JSONL-backed queue: `add`, `list`, `get`, `approve`, `reject`."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.touch(exist_ok=True)

    @contextmanager
    def _locked(self) -> Iterator[Any]:
        with self.path.open("a+", encoding="utf-8") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                yield f
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def _replay(self, f: Any) -> dict[str, ReviewItem]:
        f.seek(0)
        items: dict[str, ReviewItem] = {}
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                ev = json.loads(line)
                if ev["event"] == "add":
                    q = question_from_dict(ev["question"])
                    if q.id not in items:
                        items[q.id] = ReviewItem(question=q, reason=ev.get("reason", ""), added_at=ev.get("at", ""))
                else:
                    item = items[ev["id"]]
                    item.status = APPROVED if ev["event"] == "approve" else REJECTED
                    item.decided_at, item.reviewer, item.note = ev.get("at", ""), ev.get("reviewer", ""), ev.get("note", "")
            except (KeyError, TypeError, ValueError) as e:
                log.error("review queue %s line %d unreadable, skipped: %s", self.path, lineno, e)
        return items

    def _append(self, f: Any, event: dict[str, Any]) -> None:
        f.seek(0, 2)
        f.write(json.dumps(event, ensure_ascii=False) + "\n")
        f.flush()

    def add(self, question: Question, reason: str) -> bool:
        """Queue `question` for review; False (and nothing written) if it is already in the queue."""
        with self._locked() as f:
            if question.id in self._replay(f):
                return False
            q = dataclasses.replace(question, status="review")
            self._append(f, {"event": "add", "at": _now(), "reason": reason, "question": question_to_dict(q)})
            return True

    def list(self, status: str | None = PENDING) -> list[ReviewItem]:
        with self._locked() as f:
            items = list(self._replay(f).values())
        return [i for i in items if status is None or i.status == status]

    def get(self, question_id: str) -> ReviewItem:
        with self._locked() as f:
            items = self._replay(f)
        if question_id not in items:
            raise KeyError(f"question {question_id} is not in the review queue {self.path}")
        return items[question_id]

    def _decide(self, question_id: str, approve: bool, reviewer: str, note: str) -> Question:
        if not reviewer.strip():
            raise ValueError("a review decision needs the reviewer's name")
        with self._locked() as f:
            items = self._replay(f)
            if question_id not in items:
                raise KeyError(f"question {question_id} is not in the review queue {self.path}")
            item = items[question_id]
            if item.status != PENDING:
                raise ValueError(f"question {question_id} was already {item.status} by {item.reviewer}")
            self._append(f, {"event": "approve" if approve else "reject", "id": question_id, "at": _now(),
                             "reviewer": reviewer, "note": note})
        q = item.question
        verdict = "approved" if approve else "rejected"
        decisions = [*q.verification.decisions, f"human review: {verdict} by {reviewer}" + (f": {note}" if note else "")]
        return dataclasses.replace(q, status="verified" if approve else "rejected",
                                   verification=dataclasses.replace(q.verification, decisions=decisions,
                                                                    passed=approve))

    def approve(self, question_id: str, reviewer: str, note: str = "") -> Question:
        """Record approval; returns the question, now verified, with the decision appended."""
        return self._decide(question_id, True, reviewer, note)

    def reject(self, question_id: str, reviewer: str, note: str = "") -> Question:
        """Record rejection; returns the question marked rejected, with the decision appended."""
        return self._decide(question_id, False, reviewer, note)
