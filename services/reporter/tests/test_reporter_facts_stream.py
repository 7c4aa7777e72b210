"""A recompute streams a run's rows (the columns the join reads, a chunk at a time) instead of holding them: the
facts are the same as from the rows kept whole (`ReadOnce`, what the report files read), and the store is never
asked for the run's results or judgments whole."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from livetab.store import schema
from livetab.store.read_once import ReadOnce
from livetab_reporter.facts import JUDGMENT_COLUMNS, RESULT_COLUMNS, read_facts
from livetab_reporter.leaderboard import compute_rows
from reporter_data import Answer, add_questions, answer_and_judge, plan_run


class NoWholeReads:
    """A store that refuses to read a run's results or judgments whole, and records what is streamed."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.streamed: list[tuple[str, tuple[str, ...]]] = []

    def select(self, table: Any, **where: Any) -> list[dict[str, Any]]:
        assert table.name not in ("results", "judgments"), f"{table.name} read whole"
        return self.store.select(table, **where)  # type: ignore[no-any-return]

    def stream(self, table: Any, columns: Any, **where: Any) -> Any:
        self.streamed.append((table.name, tuple(columns)))
        return self.store.stream(table, columns, chunk=3, **where)  # chunks of 3: many of them

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray):
        return bool(np.array_equal(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def test_a_recompute_streams_the_rows_and_finds_the_facts_of_the_rows_kept_whole(store: Any) -> None:
    add_questions(store, 12)
    run_id, requests = plan_run(store, samples=2)
    verdicts = ("correct", "incorrect", "error")
    answer_and_judge(store, requests, lambda r: Answer(verdicts[r.sample_index % 3 if r.question_id[-1] < "8" else 0],
                                                       extracted=f"a{r.sample_index}", prompt_tokens=10 + r.sample_index,
                                                       latency_ms=5.0))
    reads = NoWholeReads(store)
    streamed = read_facts(reads, [run_id], judge="rule")
    kept = read_facts(ReadOnce(store), [run_id], judge="rule")
    assert len(streamed.run) == len(requests) == 24
    assert sorted(reads.streamed) == [("judgments", JUDGMENT_COLUMNS), ("results", RESULT_COLUMNS)]
    for f in dataclasses.fields(streamed):
        assert _same(getattr(streamed, f.name), getattr(kept, f.name)), f.name
    assert streamed.first_judged_at and streamed.first_judged_at <= streamed.last_judged_at
    # what the live rows show, through the handler's path (compute_rows on the plain store)
    rows = {r.slice: r for r in compute_rows(reads, run_id, judge="rule")}
    assert rows["all"].n == 24 and 0 < rows["all"].correct < 24
    assert store.count(schema.judgments, run_id=run_id) == 24
