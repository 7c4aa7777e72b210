"""When the reporter recomputes a run: throttled by judged-count growth and time, always on the batch that
completes the run, on the first batch a (restarted) handler sees, and never counting a redelivery twice."""

from __future__ import annotations

import time
from itertools import pairwise
from typing import Any

import pytest
from livetab.bus import PoisonMessage
from livetab.store import schema
from livetab.v1 import judgment_pb2, report_pb2
from livetab_reporter.handler import ReporterHandler
from reporter_data import Answer, add_questions, answer_and_judge, context, plan_run


def _run(store: Any, n_questions: int, samples: int, model: str = "m1") -> tuple[str, list[Any]]:
    add_questions(store, n_questions)
    return plan_run(store, model=model, samples=samples)


def _verdict(r: Any) -> Answer:
    return Answer("correct" if r.sample_index % 3 else "incorrect", extracted=str(r.sample_index % 2))


def _feed(store: Any, handler: ReporterHandler, ctx: Any, requests: list[Any], batch: int
          ) -> tuple[int, list[report_pb2.LeaderboardUpdate]]:
    """Judge the requests batch by batch as the judge does, handing each batch to the reporter."""
    updates, batches = [], 0
    for i in range(0, len(requests), batch):
        judgments = answer_and_judge(store, requests[i:i + batch], _verdict)
        updates += [o.message for o in handler.handle_batch(judgments, ctx)]
        batches += 1
    return batches, updates


def _all(update: report_pb2.LeaderboardUpdate) -> report_pb2.LeaderboardRow:
    return next(r for r in update.rows if r.slice == "all")


def test_small_batches_recompute_rarely_and_the_last_batch_completes(store: Any) -> None:
    run_id, requests = _run(store, 100, samples=12)
    planned = len(requests)
    batches, updates = _feed(store, ReporterHandler(), context(store, refresh_growth=0.1, refresh_s=3600.0),
                             requests, batch=10)
    judged = [u.judged for u in updates]
    assert batches == 120 and len(updates) <= batches // 3, judged
    # the judgments read by all recomputes together: linear in the run's size (every batch: 60 x planned)
    assert sum(judged) <= 12 * planned, judged
    assert judged == sorted(set(judged))  # every update carries more than the one before
    for before, after in pairwise(judged[:-1]):
        assert 10 * after >= 11 * before  # between the first and the final one, only geometric steps
    final = updates[-1]
    assert final.judged == final.planned == planned and _all(final).n == planned
    assert 11 * judged[-2] > 10 * planned  # growth alone would not have fired: completion did
    assert all(u.run_id == run_id for u in updates)
    stored = store.get(schema.leaderboard, f"{run_id}|all")
    assert stored["n"] == planned and stored["correct"] == sum(_verdict(r).verdict == "correct" for r in requests)


def test_refresh_s_zero_recomputes_every_batch(store: Any) -> None:
    _, requests = _run(store, 10, samples=6)
    batches, updates = _feed(store, ReporterHandler(), context(store, refresh_growth=100.0, refresh_s=0.0),
                             requests, batch=7)
    assert len(updates) == batches == 9
    assert [u.judged for u in updates] == [min(7 * (i + 1), len(requests)) for i in range(batches)]


def test_refresh_s_elapsed_recomputes(store: Any) -> None:
    _, requests = _run(store, 10, samples=3)
    handler, ctx = ReporterHandler(), context(store, refresh_growth=100.0, refresh_s=0.2)
    first = answer_and_judge(store, requests[:5], _verdict)
    assert len(handler.handle_batch(first, ctx)) == 1  # never recomputed by this handler
    assert handler.handle_batch(answer_and_judge(store, requests[5:10], _verdict), ctx) == []
    time.sleep(0.25)
    [out] = handler.handle_batch(answer_and_judge(store, requests[10:15], _verdict), ctx)
    assert out.message.judged == 15


def test_a_redelivered_batch_never_counts_twice(store: Any) -> None:
    run_id, requests = _run(store, 8, samples=2)
    ctx = context(store, refresh_growth=0.0, refresh_s=0.0)
    handler = ReporterHandler()
    first = answer_and_judge(store, requests[:6], _verdict)
    [a] = handler.handle_batch(first, ctx)
    second = answer_and_judge(store, requests[6:], _verdict)
    [b] = handler.handle_batch(second, ctx)
    [again] = handler.handle_batch(first + first, ctx)  # redelivered, twice in one batch
    [restarted] = ReporterHandler().handle_batch(second, ctx)  # another process sees it again
    assert a.message.judged == 6 and b.message.judged == len(requests)
    for u in (again, restarted):
        assert u.message == b.message and u.message_id == b.message_id  # same rows, same id: deduplicated
    assert store.count(schema.leaderboard, run_id=run_id) == len(b.message.rows)
    assert store.get(schema.leaderboard, f"{run_id}|all")["n"] == len(requests)


def test_runs_of_one_batch_are_throttled_apart(store: Any) -> None:
    add_questions(store, 20)
    run_a, req_a = plan_run(store, model="a")
    run_b, req_b = plan_run(store, model="b")
    handler, ctx = ReporterHandler(), context(store, refresh_growth=0.5, refresh_s=3600.0)
    first = answer_and_judge(store, req_a[:10] + req_b[:2], _verdict)
    assert {o.message.run_id for o in handler.handle_batch(first, ctx)} == {run_a, run_b}
    # a grows by 1 of 10 (10 %), b by 2 of 2 (100 %): only b is due
    outs = handler.handle_batch(answer_and_judge(store, req_a[10:11] + req_b[2:4], _verdict), ctx)
    assert [(o.message.run_id, o.message.judged) for o in outs] == [(run_b, 4)]
    assert all(o.topic == "livetab.reports.v1" and o.key == o.message.run_id for o in outs)


def test_a_message_that_is_not_a_judgment_is_poison(store: Any) -> None:
    with pytest.raises(PoisonMessage, match=r"livetab\.v1\.LeaderboardUpdate"):
        ReporterHandler().handle_batch([judgment_pb2.Judgment(run_id="r"), report_pb2.LeaderboardUpdate()],
                                       context(store))


def test_a_held_back_run_is_recomputed_once_the_topic_is_quiet(store: Any) -> None:
    run_id, requests = _run(store, 10, samples=2)  # 20 planned; the run is never completed here
    handler = ReporterHandler()
    ctx = context(store, refresh_growth=10.0, refresh_s=0.3)  # growth never fires: only time does
    assert handler.on_idle(ctx) == []  # nothing held yet
    _, first = _feed(store, handler, ctx, requests[:4], batch=4)
    _, held = _feed(store, handler, ctx, requests[4:9], batch=5)
    assert [u.judged for u in first] == [4] and held == []
    assert handler.on_idle(ctx) == []  # too soon: refresh_s has not passed since the last recompute
    time.sleep(0.35)
    late = [o.message for o in handler.on_idle(ctx)]
    assert [(u.run_id, u.judged, u.planned) for u in late] == [(run_id, 9, 20)]
    assert store.get(schema.leaderboard, f"{run_id}|all")["n"] == 9
    time.sleep(0.35)
    assert handler.on_idle(ctx) == []  # nothing new since: nothing to do


def test_batches_that_cannot_make_anything_due_do_not_count_the_store(store: Any, monkeypatch: pytest.MonkeyPatch
                                                                      ) -> None:
    """Counting a run's judgments is a query that grows with the run: a batch whose judgments, added to the last
    count, can neither complete the run nor make its growth due skips it; the last batch still completes."""
    run_id, requests = _run(store, 100, samples=12)
    counts = []
    real = store.count

    def count(table: Any, **where: Any) -> int:  # measures: how many count queries the reporter asks for
        if table is schema.judgments:
            counts.append(where)
        return int(real(table, **where))

    monkeypatch.setattr(store, "count", count)
    batches, updates = _feed(store, ReporterHandler(), context(store, refresh_growth=0.1, refresh_s=3600.0),
                             requests, batch=10)
    assert batches == 120 and len(counts) <= batches // 3, len(counts)
    assert updates[-1].judged == updates[-1].planned == len(requests)
    assert store.get(schema.leaderboard, f"{run_id}|all")["n"] == len(requests)


def test_a_complete_run_is_recomputed_once_not_on_every_later_batch(store: Any) -> None:
    """A reporter behind the judge finds the run complete in the store long before it has consumed every
    judgment: the first batch that sees it complete recomputes; the backlog's batches after it (and
    redeliveries) wait for `refresh_s` like any held-back run, instead of recomputing the whole run each."""
    run_id, requests = _run(store, 40, samples=4)
    ctx = context(store, refresh_growth=0.1, refresh_s=3600.0)
    judgments = answer_and_judge(store, requests, _verdict)  # the judge is done: all stored
    handler = ReporterHandler()
    [first] = handler.handle_batch(judgments[:10], ctx)
    assert first.message.judged == first.message.planned == len(requests)
    backlog = [handler.handle_batch(judgments[i:i + 10], ctx) for i in range(10, len(judgments), 10)]
    assert backlog == [[] for _ in backlog]
    assert store.get(schema.leaderboard, f"{run_id}|all")["n"] == len(requests)



class _Clock:
    """The reporter handler's clock (`time.monotonic`), moved by the test: rest periods do not depend on how
    long a recompute really takes on a loaded machine. Everything else of `time` is the real one."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


def _slow_recompute(monkeypatch: pytest.MonkeyPatch, seconds: float) -> tuple[_Clock, list[int]]:
    """Each recompute takes `seconds` on the handler's clock (as a large run's does); the judged counts recomputed."""
    import livetab_reporter.handler as handler_module

    clock, real, seen = _Clock(), handler_module.compute_rows, []

    def slow(store: Any, run_id: str, **kw: Any) -> Any:
        clock.now += seconds
        rows = real(store, run_id, **kw)
        seen.append(next(r.n for r in rows if r.slice == "all"))
        return rows

    monkeypatch.setattr(handler_module, "compute_rows", slow)
    monkeypatch.setattr(handler_module, "time", clock)
    return clock, seen


def test_live_recomputes_rest_by_their_cost_and_completion_never_waits(store: Any, monkeypatch: pytest.MonkeyPatch
                                                                        ) -> None:
    """With `refresh_share` 0.25 a recompute that took 0.1 s is followed by the next due to growth no sooner
    than 0.4 s after it began: batches arriving sooner are held back, however much the run grew; the batch that
    completes the run recomputes at once."""
    _, requests = _run(store, 10, samples=4)  # 40 planned
    clock, seen = _slow_recompute(monkeypatch, 0.1)
    handler, ctx = ReporterHandler(), context(store, refresh_growth=0.1, refresh_s=3600.0, refresh_share=0.25)
    assert len(handler.handle_batch(answer_and_judge(store, requests[:10], _verdict), ctx)) == 1
    # +50 % and +100 %: due by growth, but within 0.3 s of the first recompute's end
    clock.now += 0.1
    assert handler.handle_batch(answer_and_judge(store, requests[10:15], _verdict), ctx) == []
    clock.now += 0.19
    assert handler.handle_batch(answer_and_judge(store, requests[15:20], _verdict), ctx) == []
    clock.now += 0.02
    [rested] = handler.handle_batch(answer_and_judge(store, requests[20:25], _verdict), ctx)
    assert rested.message.judged == 25
    [final] = handler.handle_batch(answer_and_judge(store, requests[25:], _verdict), ctx)  # no rest: complete
    assert final.message.judged == final.message.planned == 40
    assert seen == [10, 25, 40]


def test_a_held_back_run_that_has_rested_is_recomputed_when_the_topic_is_quiet(store: Any,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    _, requests = _run(store, 10, samples=4)
    clock, _ = _slow_recompute(monkeypatch, 0.05)
    handler, ctx = ReporterHandler(), context(store, refresh_growth=0.1, refresh_s=3600.0, refresh_share=0.25)
    handler.handle_batch(answer_and_judge(store, requests[:10], _verdict), ctx)
    assert handler.handle_batch(answer_and_judge(store, requests[10:20], _verdict), ctx) == []
    clock.now += 0.1
    assert handler.on_idle(ctx) == []  # still resting (0.15 s after a recompute of 0.05 s)
    clock.now += 0.06
    [late] = [o.message for o in handler.on_idle(ctx)]
    assert late.judged == 20
    clock.now += 10
    assert handler.on_idle(ctx) == []  # nothing new since

def test_judgments_already_counted_do_not_make_a_complete_run_due_when_the_topic_is_quiet(
        store: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The last judgments of a run can reach the reporter after a store count has already counted them (the run
    was recomputed complete from the store): they raise the estimate, not the count, so once the recompute has
    rested the quiet topic's hook counts the store again and finds nothing new, instead of reading the whole
    run once more (a second recompute of a complete run in about one `python -m bench pipeline` round in ten)."""
    _, requests = _run(store, 10, samples=4)  # 40 planned
    clock, seen = _slow_recompute(monkeypatch, 0.05)
    handler, ctx = ReporterHandler(), context(store, refresh_growth=0.1, refresh_s=3600.0, refresh_share=0.25)
    judgments = answer_and_judge(store, requests, _verdict)  # the judge is done: all stored
    [complete] = handler.handle_batch(judgments[:20], ctx)
    assert complete.message.judged == complete.message.planned == 40
    assert handler.handle_batch(judgments[20:], ctx) == []  # the late ones, resting: held back
    clock.now += 1.0  # rested (and past the count interval)
    assert handler.on_idle(ctx) == []
    assert seen == [40]
    # judged again (the same count): held back until `refresh_s` has passed
    assert handler.handle_batch(answer_and_judge(store, requests[:5], _verdict), ctx) == []
    clock.now += 3600
    [again] = [o.message for o in handler.on_idle(ctx)]
    assert again.judged == 40 and seen == [40, 40]


def test_refresh_share_defaults_to_a_tenth_and_must_be_a_fraction() -> None:
    from livetab.settings import ReporterSettings
    from pydantic import ValidationError

    assert ReporterSettings().refresh_share == 0.1
    for bad in (0.0, 1.5, -0.1):
        with pytest.raises(ValidationError):
            ReporterSettings(refresh_share=bad)


def test_a_runs_first_recompute_waits_first_s_unless_the_run_completes(store: Any) -> None:
    """`first_s`: a new run's first batches are held, and the run recomputed once they came `first_s` ago (on a
    later batch or when the topic is quiet); a run that completes within it is recomputed once, at completion."""
    run_id, requests = _run(store, 10, samples=2)  # 20 planned
    handler, ctx = ReporterHandler(), context(store, refresh_growth=0.0, refresh_s=3600.0, first_s=0.3)
    _, early = _feed(store, handler, ctx, requests[:4], batch=2)
    assert early == [] and handler.on_idle(ctx) == []  # growth alone would recompute every batch: it waits
    time.sleep(0.35)
    _, due = _feed(store, handler, ctx, requests[4:6], batch=2)
    assert [(u.run_id, u.judged) for u in due] == [(run_id, 6)]
    assert store.get(schema.leaderboard, f"{run_id}|all")["n"] == 6
    _, grown = _feed(store, handler, ctx, requests[6:8], batch=2)  # recomputed once: growth decides again
    assert [u.judged for u in grown] == [8]

    held = ReporterHandler()  # the same wait when the topic goes quiet
    _, none = _feed(store, held, ctx, requests[8:10], batch=2)
    assert none == [] and held.on_idle(ctx) == []
    time.sleep(0.35)
    assert [(o.message.run_id, o.message.judged) for o in held.on_idle(ctx)] == [(run_id, 10)]

    other_id, other = _run(store, 5, samples=2, model="m2")  # complete within first_s
    quick = ReporterHandler()
    _, updates = _feed(store, quick, ctx, other, batch=3)
    assert len(other) > 6 and [(u.run_id, u.judged, u.planned) for u in updates] == [(other_id, len(other),
                                                                                       len(other))]
    assert quick.on_idle(ctx) == []
