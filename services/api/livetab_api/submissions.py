"""Active submissions (issue 15): a run submitted with `rerun: true` stands for its team's model, and every
release that goes live afterwards gets a run of it too — the same model spec and knobs on the new release
(`livetab.runs.rerun_of`), sent by the api's release handler with the release's LIVE event.

The store's `submissions` table holds one row per (team, model name): its latest run and that run's release. A
submission is *active* while `stopped_at` is NULL; cancelling its latest run (POST /runs/{id}/cancel) stops it.
A re-run skips the team's quotas and the door's probe (the platform sends it, not the team); the planner
refuses it, with its reason, when the new release has nothing it can plan. Ids are deterministic, so a
release command delivered twice sends the same runs (a run already planned is not sent again).
"""

from __future__ import annotations

import logging
import time

from livetab import topics
from livetab.bus import Outgoing
from livetab.ids import content_id
from livetab.runs import rerun_of
from livetab.store import Store, schema
from livetab.v1 import run_pb2

__all__ = ["record", "reruns", "stop_for_run"]

log = logging.getLogger(__name__)


def record(store: Store, run: run_pb2.Run) -> None:
    """`run` becomes its team's active submission of its model (replacing an earlier one of that model)."""
    store.upsert(schema.submissions, [{
        "id": content_id("submission", run.team, run.model.name), "team": run.team, "model": run.model.name,
        "run_id": run.id, "release": run.release, "payload": run.SerializeToString(), "stopped_at": None}])


def stop_for_run(store: Store, rid: str) -> int:
    """Stop the active submissions whose latest run is `rid`; how many."""
    rows = [r for r in store.select(schema.submissions, run_id=rid) if r["stopped_at"] is None]
    for r in rows:
        store.update(schema.submissions, r["id"], stopped_at=time.time())
    return len(rows)


def reruns(store: Store, release: str) -> list[Outgoing]:
    """The runs of every active submission on `release`, which just went live (its latest run moves there)."""
    out: list[Outgoing] = []
    for row in sorted(store.select(schema.submissions), key=lambda r: r["id"]):
        if row["stopped_at"] is not None:
            continue
        run = run_pb2.Run.FromString(row["payload"])
        if run.release != release:
            run = rerun_of(run, release)
            store.update(schema.submissions, row["id"], run_id=run.id, release=release,
                         payload=run.SerializeToString())
            log.info("submission %s of team %s re-run on release %s as %s", run.model.name, run.team, release, run.id)
        if store.get(schema.runs, run.id) is None:  # not planned yet (a redelivered command sends it again)
            out.append(Outgoing(topics.RUNS, run, key=run.id, message_id=run.id))
    return out
