"""daf4a82:tests/integration/test_release_membership.py adapted to the code before release membership
(42dd706, the parent of ef62f16). Adaptations, nothing else changed:
- `livetab.releases` and `tests.support.releases` did not exist: `publish` is a no-op (a release was planned as
  soon as it had verified questions) and a release's questions are the rows whose `release` column names it
  (the only membership that code had) -- `frozen_questions` below;
- the two manifest-hash lines are left out (no manifest existed)."""

from __future__ import annotations

from pathlib import Path

from livetab.bus import HandlerContext
from livetab.records import question_row
from livetab.runs import build_run
from livetab.store import open_store, schema
from livetab.v1 import common_pb2, question_pb2
from livetab_api.app import run_progress
from livetab_api.planner import PlannerHandler

SPEC = common_pb2.ModelSpec(name="m", backend="openai", model="m")


def publish(store: object, release: str) -> None:  # adaptation: no lifecycle before ef62f16
    pass


def frozen_questions(store: object, release: str) -> list[str]:  # adaptation: the release column
    return sorted(r["id"] for r in store.select(schema.questions, release=release))  # type: ignore[attr-defined]


def _questions(release: str) -> list[question_pb2.Question]:  # the same content ids whatever the release
    return [question_pb2.Question(id=f"q{i}", table_id=f"t{i}", family="direct", text=f"q{i}?", status="verified",
                                  release=release) for i in range(30)]


def test_the_same_pages_in_a_second_release_are_a_second_membership_never_a_move(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'm.db'}")
    store.upsert(schema.questions, [question_row(q) for q in _questions("A")])
    publish(store, "A")
    run_a = build_run("team", "A", SPEC)
    ctx = HandlerContext(store=store, settings=None)
    assert len(PlannerHandler().handle(run_a, ctx)) == 30

    store.upsert(schema.questions, [question_row(q) for q in _questions("B")])  # scraped again into B
    assert frozen_questions(store, "A") == sorted(f"q{i}" for i in range(30))
    assert len(PlannerHandler().handle(run_a, ctx)) == 30  # re-submitted: still planned over A's 30
    assert store.get(schema.runs, run_a.id)["planned"] == 30  # type: ignore[index]
    assert run_progress(store, run_a.id)["planned"] == 30  # type: ignore[index]
    publish(store, "B")
    assert frozen_questions(store, "B") == frozen_questions(store, "A")
    assert len(PlannerHandler().handle(build_run("team", "B", SPEC), ctx)) == 30
    store.close()
