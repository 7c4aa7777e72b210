"""The run planner: one request per question x format x setting x sample; closed-book once per question and
never for a gold about the table itself (its imperfect variants share the closed-book prompt)."""

from __future__ import annotations

from pathlib import Path

from livetab.bus import HandlerContext
from livetab.questions import Gold, Question
from livetab.records import question_row
from livetab.runs import SAMPLES_PER_CALL, build_run, sample_call
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


def test_a_questions_samples_are_planned_in_calls_of_sixteen(tmp_path: Path) -> None:
    """Samples go in calls of SAMPLES_PER_CALL in order (the last call takes what is left): each request names
    its call's size and its choice in it, and its seed stays the run's seed + its index (the call's seed is that
    minus the choice). A sample alone in its call, a llama_local model and an n_mode=loop model are a call each."""
    store = open_store(f"sqlite:///{tmp_path / 'p.db'}")
    store.upsert(schema.questions, [question_row(Question(
        id="q0", table_id="t0", family="direct", text="Which?", gold=Gold(kind="text", text="x"),
        release="r").to_proto())])
    publish(store, "r")
    ctx = HandlerContext(store=store, settings=None)

    def plan(spec: common_pb2.ModelSpec, samples: int) -> list[tuple[int, int, int, int]]:
        run = build_run("team", "r", spec, samples=samples, seed=1000)
        out = [o.message for o in PlannerHandler().handle(run, ctx)]
        return sorted((r.sample_index, r.sampling.seed, r.call_size, r.call_choice)  # type: ignore[attr-defined]
                      for r in out)

    openai = common_pb2.ModelSpec(name="m", backend="openai", model="m")
    assert SAMPLES_PER_CALL == 16
    assert plan(openai, 40) == [(i, 1000 + i, 16 if i < 32 else 8, i % 16) for i in range(40)]
    assert plan(openai, 17) == [(i, 1000 + i, 16, i) for i in range(16)] + [(16, 1016, 0, 0)]
    assert plan(openai, 1) == [(0, 1000, 0, 0)]
    local = common_pb2.ModelSpec(name="l", backend="llama_local", model="smollm2-135m")
    loop = common_pb2.ModelSpec(name="o", backend="openai", model="m", params={"n_mode": "loop"})
    for spec in (local, loop):
        assert plan(spec, 20) == [(i, 1000 + i, 0, 0) for i in range(20)]
    assert [sample_call(openai, 20, i) for i in (0, 15, 16, 19)] == [(16, 0), (16, 15), (4, 0), (4, 3)]
    store.close()
