"""The human review queue: a JSONL event log that survives reopening and refuses bad decisions."""

from __future__ import annotations

from pathlib import Path

import pytest
from livetab.questions import Gold, Question, Verification
from livetab_qagen.review import ReviewQueue


def _q(n: int) -> Question:
    return Question(id=f"q{n}", table_id="t", family="reasoning", text=f"question {n}",
                    gold=Gold(kind="number", number=n, text=str(n)),
                    verification=Verification(method="sandbox+validator", decisions=["validator: 2/4"]))


def test_queue_lifecycle_and_persistence(tmp_path: Path) -> None:
    path = tmp_path / "queue" / "review.jsonl"
    queue = ReviewQueue(path)
    assert queue.add(_q(1), "validator 2/4") and queue.add(_q(2), "validator 1/4")
    assert not queue.add(_q(1), "again")  # idempotent
    assert [i.question.id for i in queue.list()] == ["q1", "q2"]
    assert queue.list()[0].question.status == "review"
    rejected = queue.reject("q2", reviewer="lee", note="two rows match")
    assert rejected.status == "rejected" and rejected.verification.decisions == [
        "validator: 2/4", "human review: rejected by lee: two rows match"]
    reopened = ReviewQueue(path)
    assert [i.question.id for i in reopened.list()] == ["q1"]
    assert reopened.get("q2").status == "rejected" and reopened.get("q2").reviewer == "lee"
    assert len(reopened.list(status=None)) == 2
    assert len(path.read_text().splitlines()) == 3


def test_bad_decisions_are_refused(tmp_path: Path) -> None:
    queue = ReviewQueue(tmp_path / "r.jsonl")
    queue.add(_q(1), "validator 1/4")
    with pytest.raises(KeyError, match="not in the review queue"):
        queue.approve("nope", reviewer="lee")
    with pytest.raises(ValueError, match="reviewer"):
        queue.approve("q1", reviewer=" ")
    queue.approve("q1", reviewer="lee")
    with pytest.raises(ValueError, match="already approved"):
        queue.reject("q1", reviewer="kim")


def test_a_damaged_line_is_skipped_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    queue = ReviewQueue(path)
    queue.add(_q(1), "validator 1/4")
    with path.open("a") as f:
        f.write("{not json\n")
    queue.add(_q(2), "validator 2/4")
    assert [i.question.id for i in queue.list()] == ["q1", "q2"]
