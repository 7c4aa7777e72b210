"""The review queue in the store: items queued once, decided once (who and when kept), an accepted question
stored as verified, and decisions refused with their reason (no reviewer, unknown id, decided already, a
release no longer draft, a concurrent decision that won first). On SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses

import pytest
from livetab import review
from livetab.questions import Gold, Question, Verification
from livetab.store import open_store, schema


def _q(n: int, release: str = "r1") -> Question:
    return Question(id=f"q{n}", table_id="t", family="reasoning", text=f"question {n}",
                    gold=Gold(kind="number", number=n, text=str(n)), release=release, status="pending",
                    verification=Verification(method="sandbox+validator", decisions=["validator: 2/4"]))


def test_queue_lifecycle(store_url: str) -> None:
    store = open_store(store_url)
    assert review.add(store, _q(1), "validator 2/4") and review.add(store, _q(2), "validator 1/4")
    assert review.add(store, _q(3, release="r2"), "validator 1/4")
    assert not review.add(store, _q(1), "again")  # idempotent: the first entry stays
    pending = review.items(store, release="r1", status=review.PENDING)
    assert [(i.question.id, i.reason, i.question.status) for i in pending] == [
        ("q1", "validator 2/4", "review"), ("q2", "validator 1/4", "review")]

    accepted = review.decide(store, "q1", review.ACCEPTED, reviewer="amira", note="checked")
    assert accepted.status == "verified" and accepted.verification.passed
    assert accepted.verification.decisions == ["validator: 2/4", "human review: accepted by amira: checked"]
    rejected = review.decide(store, "q2", review.REJECTED, reviewer="lee", note="two rows match")
    assert rejected.status == "rejected" and not rejected.verification.passed

    item = review.get(store, "q1")
    assert (item.status, item.reviewer, item.note) == ("accepted", "amira", "checked") and item.decided_at is not None
    assert item.question.status == "verified"  # the decided question is what the row now holds
    assert [i.question.id for i in review.items(store, status=review.PENDING)] == ["q3"]
    assert {r["id"]: r["status"] for r in store.select(schema.questions)} == {"q1": "verified"}  # rejected: not stored

    edited = dataclasses.replace(review.get(store, "q3").question, text="question three, reworded")
    out = review.decide(store, "q3", review.EDITED, reviewer="kim", edited=edited, checks=["re-verified: ok"])
    assert out.text == "question three, reworded" and out.release == "r2"
    assert out.verification.decisions[-2:] == ["re-verified: ok", "human review: edited and accepted by kim"]
    assert review.get(store, "q3").status == "edited"
    store.close()


def test_bad_decisions_are_refused_with_the_reason(store_url: str) -> None:
    store = open_store(store_url)
    review.add(store, _q(1), "validator 1/4")
    review.add(store, _q(2, release="frozen-one"), "validator 1/4")
    with pytest.raises(review.ReviewError, match="not in the review queue"):
        review.decide(store, "nope", review.ACCEPTED, reviewer="lee")
    with pytest.raises(review.ReviewError, match="reviewer"):
        review.decide(store, "q1", review.ACCEPTED, reviewer=" ")
    with pytest.raises(review.ReviewError, match="unknown review status"):
        review.items(store, status="approved")

    store.upsert(schema.releases, [{"id": "frozen-one", "status": "frozen"}])
    with pytest.raises(review.ReviewError, match="release 'frozen-one' is frozen, no longer a draft"):
        review.decide(store, "q2", review.ACCEPTED, reviewer="lee")
    assert review.get(store, "q2").status == review.PENDING  # a refused decision changes nothing

    store.upsert(schema.releases, [{"id": "r1", "status": "draft"}])  # a draft row: decisions still allowed
    review.decide(store, "q1", review.ACCEPTED, reviewer="lee")
    with pytest.raises(review.ReviewError, match="already accepted by lee"):
        review.decide(store, "q1", review.REJECTED, reviewer="kim", note="no")
    store.close()


def test_a_concurrent_decision_wins_once(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fault injection: the item is read as pending, but another reviewer decides before this write."""
    store = open_store(store_url)
    review.add(store, _q(1), "validator 1/4")
    stale = review.get(store, "q1")
    review.decide(store, "q1", review.REJECTED, reviewer="lee", note="wrong")
    real_get = review.get
    calls = iter([stale])
    monkeypatch.setattr(review, "get", lambda s, qid: next(calls, None) or real_get(s, qid))
    with pytest.raises(review.ReviewError, match="decided by someone else meanwhile: rejected"):
        review.decide(store, "q1", review.ACCEPTED, reviewer="kim")
    assert store.count(schema.questions) == 0  # the loser stored nothing
    assert real_get(store, "q1").reviewer == "lee"
    store.close()
