"""The run planner: one request per question x format x setting x sample; closed-book once per question and
never for a gold about the table itself (its imperfect variants share the closed-book prompt)."""

from __future__ import annotations

from pathlib import Path

from livetab.bus import HandlerContext
from livetab.questions import Gold, Question
from livetab.records import question_row
from livetab.runs import build_run
from livetab.store import open_store, schema
from livetab.v1 import common_pb2
from livetab_api.planner import PlannerHandler

from tests.support.releases import publish


def test_closed_book_is_planned_once_and_never_for_imperfect_golds(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'p.db'}")
    golds = [Gold(kind="number", number=3.0, text="3"), Gold(kind="insufficient", text="insufficient"),
             Gold(kind="contradictory", text="contradictory")]
    qs = [Question(id=f"q{i}", table_id=f"t{i}", family="math", text="How many bolts?", gold=g, release="r")
          for i, g in enumerate(golds)]
    store.upsert(schema.questions, [question_row(q.to_proto()) for q in qs])
    publish(store, "r")
    run = build_run("team", "r", common_pb2.ModelSpec(name="m", backend="openai", model="m"),
                    formats=["csv", "markdown"], settings=["with_table", "closed_book"], samples=2)
    out = [o.message for o in PlannerHandler().handle(run, HandlerContext(store=store, settings=None))]
    plan = sorted((r.question_id, r.format, r.setting, r.sample_index) for r in out)  # type: ignore[attr-defined]
    with_table = [(q.id, f, "with_table", i) for q in qs for f in ("csv", "markdown") for i in (0, 1)]
    closed = [("q0", "csv", "closed_book", i) for i in (0, 1)]
    assert plan == sorted(with_table + closed)
    assert store.get(schema.runs, run.id)["planned"] == len(plan)  # type: ignore[index]
    store.close()
