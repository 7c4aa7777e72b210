"""The reporter handler: judgments in, leaderboard rows (store) and a leaderboard update (topic) out.

Rows are always recomputed from the store, never accumulated from messages, so redelivered judgments
never count twice; they count the verdicts of the configured judge only (`livetab.ids.judge_name`), so
an answer judged again by another judge is not counted twice either. A recompute reads the whole run,
so it is not done for every batch: a run named in a batch is recomputed when

- this handler has not recomputed it yet (first batch, or after a restart),
- its judged count (one cheap count query) has grown by `reporter.refresh_growth` (a fraction) since
  this handler's last recompute of it,
- `reporter.refresh_s` seconds (monotonic clock) have passed since that recompute, or
- every planned request is judged (judged >= the run's `planned`), so the final update always goes out.

Otherwise the batch emits nothing for that run, and the run is held back: when the topic goes quiet
(`on_idle`, called by the worker on an empty poll) every held-back run whose `refresh_s` has passed is
recomputed, so a live leaderboard never stays behind its store for long even if the run never completes.
Geometric steps keep a run's total work near-linear in its size instead of quadratic. The state is per
process: each reporter replica throttles on its own.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message
from livetab import topics as topic_names
from livetab.bus import HandlerContext, Outgoing, PoisonMessage
from livetab.ids import content_id, judge_name
from livetab.settings import JudgeSettings, ReporterSettings
from livetab.store import schema
from livetab.v1 import judgment_pb2, report_pb2

from livetab_reporter.leaderboard import compute_rows

__all__ = ["ReporterHandler"]

TOPIC_OUT = topic_names.REPORTS


@dataclass(frozen=True)
class _Recomputed:
    judged: int
    at: float  # time.monotonic() of the recompute


class ReporterHandler:
    service = "reporter"
    topics = [topic_names.JUDGMENTS]

    def __init__(self) -> None:
        self._last: dict[str, _Recomputed] = {}  # run id -> this handler's last recompute of it
        self._held: set[str] = set()  # runs judged since their last recompute

    def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
        return self.handle_batch([message], ctx)

    def handle_batch(self, messages: list[Message], ctx: HandlerContext) -> list[Outgoing]:
        runs: list[str] = []
        for m in messages:
            if not isinstance(m, judgment_pb2.Judgment):
                raise PoisonMessage(f"reporter got {m.DESCRIPTOR.full_name}")
            if m.run_id not in runs:
                runs.append(m.run_id)
        settings, judge = self._settings(ctx)
        run_rows = ctx.store.get_many(schema.runs, runs)
        out = []
        for run_id in runs:
            run = run_rows.get(run_id)
            judged = ctx.store.count(schema.judgments, run_id=run_id, judge=judge)
            if self._due(run_id, judged, run, settings):
                out.append(self._recompute(ctx.store, run_id, run, judge, judged))
            else:
                self._held.add(run_id)
        return out

    def on_idle(self, ctx: HandlerContext) -> list[Outgoing]:
        """Recompute the held-back runs whose `refresh_s` has passed (the worker calls this when idle)."""
        if not self._held:
            return []
        settings, judge = self._settings(ctx)
        now = time.monotonic()
        due = sorted(r for r in self._held if now - self._last[r].at >= settings.refresh_s)
        if not due:
            return []
        run_rows = ctx.store.get_many(schema.runs, due)
        return [self._recompute(ctx.store, run_id, run_rows.get(run_id), judge,
                                ctx.store.count(schema.judgments, run_id=run_id, judge=judge)) for run_id in due]

    @staticmethod
    def _settings(ctx: HandlerContext) -> tuple[ReporterSettings, str]:
        settings = getattr(ctx.settings, "reporter", None) or ReporterSettings()
        return settings, judge_name(getattr(ctx.settings, "judge", None) or JudgeSettings())

    def _due(self, run_id: str, judged: int, run: dict[str, Any] | None, s: ReporterSettings) -> bool:
        last = self._last.get(run_id)
        if last is None:
            return True
        if run is not None and judged >= run["planned"]:
            return True
        if judged > last.judged and judged - last.judged >= s.refresh_growth * last.judged - 1e-9:
            return True
        return time.monotonic() - last.at >= s.refresh_s

    def _recompute(self, store: Any, run_id: str, run: dict[str, Any] | None, judge: str, judged: int) -> Outgoing:
        """Rows from the store; `judged` counts every judgment of the run by `judge` (insight answers too,
        which the "all" row leaves out)."""
        rows = compute_rows(store, run_id, judge=judge)
        stored = [{"id": f"{r.run_id}|{r.slice}", **r.as_dict()} for r in rows]
        # a stratum can empty as answers arrive (an item's prompt-token bin is the largest over its samples):
        # its stored row is zeroed, never left with stale counts
        now = {row["id"] for row in stored}
        stored += [{**old, "n": 0, "correct": 0, "accuracy": 0.0, "ci_low": 0.0, "ci_high": 1.0}
                   for old in store.select(schema.leaderboard, run_id=run_id) if old["id"] not in now and old["n"]]
        store.upsert(schema.leaderboard, [{k: v for k, v in row.items() if k != "created_at"} for row in stored])
        self._last[run_id] = _Recomputed(judged, time.monotonic())  # only once the rows are stored
        self._held.discard(run_id)
        update = report_pb2.LeaderboardUpdate(
            id=content_id("lb", run_id, judged), run_id=run_id, release=run["release"] if run else "",
            rows=[report_pb2.LeaderboardRow(**r.as_dict()) for r in rows], judged=judged,
            planned=run["planned"] if run else 0,
        )
        return Outgoing(TOPIC_OUT, update, key=run_id, message_id=update.id)
