"""Data does not move between releases (issue 16: "scraping the same pages into release B relabels release
A's tables and questions: A goes from 30 questions to 0 and re-submitting A's run rewrites its planned count
from 30 to 0"). Which releases hold a question is a relation of its own (release_members): the same
questions stored again for release B leave release A's members, its runs' plans and its manifest alone,
and B, once published, holds them too."""

from __future__ import annotations

from pathlib import Path

from livetab import releases as rel
from livetab.bus import HandlerContext
from livetab.records import question_row
from livetab.runs import build_run
from livetab.store import open_store, schema
from livetab.v1 import common_pb2, question_pb2
from livetab_api.app import run_progress
from livetab_api.planner import PlannerHandler

from tests.support.releases import publish

SPEC = common_pb2.ModelSpec(name="m", backend="openai", model="m")


def _questions(release: str) -> list[question_pb2.Question]:  # the same content ids whatever the release
    return [question_pb2.Question(id=f"q{i}", table_id=f"t{i}", family="direct", text=f"q{i}?", status="verified",
                                  release=release) for i in range(30)]


def test_the_same_pages_in_a_second_release_are_a_second_membership_never_a_move(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'm.db'}")
    store.upsert(schema.questions, [question_row(q) for q in _questions("A")])
    publish(store, "A")
    manifest = rel.get_release(store, "A").manifest_hash  # type: ignore[union-attr]
    run_a = build_run("team", "A", SPEC)
    ctx = HandlerContext(store=store, settings=None)
    assert len(PlannerHandler().handle(run_a, ctx)) == 30

    store.upsert(schema.questions, [question_row(q) for q in _questions("B")])  # scraped again into B
    assert rel.frozen_questions(store, "A") == sorted(f"q{i}" for i in range(30))
    assert len(PlannerHandler().handle(run_a, ctx)) == 30  # re-submitted: still planned over A's 30
    assert store.get(schema.runs, run_a.id)["planned"] == 30  # type: ignore[index]
    assert run_progress(store, run_a.id)["planned"] == 30  # type: ignore[index]
    publish(store, "B")
    assert rel.frozen_questions(store, "B") == rel.frozen_questions(store, "A")
    assert rel.get_release(store, "A").manifest_hash == manifest  # type: ignore[union-attr]
    assert len(PlannerHandler().handle(build_run("team", "B", SPEC), ctx)) == 30
    store.close()


def test_the_planners_labels_are_filtered_and_cut_in_the_query_as_a_full_read_would_be(store_url: str) -> None:
    """`frozen_question_labels` with a status, families and a limit gives what reading every label and filtering,
    sorting by id (code points) and cutting in Python gives: ids that sort differently by case, accent or
    punctuation under a language's collation, every status and family, questions of another release left out."""
    store = open_store(store_url)
    ids = ["q_b", "q_B", "Q_a", "q-1", "q_1", "q_é", "q_e", "q.2", "q_Z", "q_z", "q10", "q9"]
    qs = [question_pb2.Question(id=qid, table_id="t", family=("direct", "reasoning", "math")[i % 3],
                                text=f"{qid}?", status="verified", release="A") for i, qid in enumerate(ids)]
    store.upsert(schema.questions, [question_row(q) for q in qs])
    publish(store, "A")  # every one frozen into A; then some sent back to review (they stay members)
    for q in qs[3::4]:
        q.status = "review"
    store.upsert(schema.questions, [question_row(q) for q in qs[3::4]])
    store.upsert(schema.questions, [question_row(question_pb2.Question(
        id="q_0", table_id="t", family="direct", text="?", status="verified", release="B"))])  # not one of A's
    every = rel.frozen_question_labels(store, "A")
    assert [i for i, _, _ in every] == sorted(ids)
    for status in (None, "verified", "review"):
        for families in ((), {"direct"}, {"reasoning", "math"}):
            for limit in (0, 1, 3, 100):
                expect = [row for row in every if (status is None or row[2] == status)
                          and (not families or row[1] in families)]
                expect = expect[:limit] if limit else expect
                got = rel.frozen_question_labels(store, "A", status=status, families=families, limit=limit)
                assert got == expect, (status, families, limit)
    store.close()
