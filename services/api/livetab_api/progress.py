"""A run's progress and status as `GET /runs/{id}` shows it, and the door's count of a team's runs still
running (`api.concurrent_runs`, `POST /runs`): one rule (`run_status`) for what each status means.

The door's count reads every run a team submitted in the last day, so it is made in a fixed number of queries
whatever that number (the runs, their dead letters, their results counted by run): a status per run, five
queries each, made every submission cost 5 x the team's runs of the day (37 ms at 30 runs in `python -m bench
pipeline`, growing with every round). `RunningCount` remembers the runs that can never run again (refused,
cancelled, the run itself dead-lettered, or every planned request answered), so their results are not counted
again at the next submission; a run complete only because some of its requests were dead-lettered is asked
again, since a redrive makes those outstanding."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Any

from livetab import topics as topic_names
from livetab.store import Store, schema
from livetab.topics import INFERENCE_REQUESTS
from sqlalchemy import func, select

__all__ = ["MAX_REASONS", "RunningCount", "run_progress", "run_status"]

MAX_REASONS = 20  # distinct failure reasons shown on a run
_UNREAD: Any = object()
_REQUESTS_PREFIX = INFERENCE_REQUESTS.removesuffix(".v1")


def _letters(letters: Sequence[dict[str, Any]]) -> tuple[int, int]:
    """Of a run's dead letters: those of its requests that still count (a redriven request is outstanding again
    until it is answered, or dead-lettered anew at a new offset), and those of the run itself."""
    requests = sum(d["source_topic"].startswith(_REQUESTS_PREFIX) and d.get("redriven_at") is None for d in letters)
    return requests, sum(d["source_topic"] == topic_names.RUNS for d in letters)


def run_status(run: dict[str, Any] | None, answered: int, letters: Sequence[dict[str, Any]]) -> str:
    """refused | cancelled | failed | complete | running, from the run's row (None: not stored), how many of its
    requests have a result (failed calls included) and its dead letters."""
    requests, of_run = _letters(letters)
    if run is not None and run["refused"]:
        return "refused"  # the planner refused it (its release is not live): nothing was planned
    if run is not None and run.get("cancelled_at") is not None:
        return "cancelled"  # complete for reporting: requests still on the bus are recorded as failed, unjudged
    if run is None or of_run:
        return "failed"  # the run itself was dead-lettered: its requests were never (all) published
    if answered + requests >= int(run["planned"]):
        return "complete"
    return "running"


def run_progress(store: Store, rid: str, run: dict[str, Any] | None = _UNREAD) -> dict[str, Any] | None:
    """A run's progress: planned requests, how many are answered, failed (with reasons) or dead-lettered
    (with reasons), judged, and whether it is complete (every planned request has one of those outcomes).
    None when the run is neither planned nor dead-lettered. `run`: its row (None: not stored) when the caller
    has just read it."""
    if run is _UNREAD:
        run = store.get(schema.runs, rid)
    letters = store.select(schema.dead_letters, run_id=rid)
    if run is None and not letters:
        return None
    errors = store.count_by(schema.results, "error", run_id=rid)
    answered = sum(errors.values())
    failed = {reason: n for reason, n in errors.items() if reason}
    failures: dict[tuple[str, str], int] = {(("inference", reason)): n for reason, n in failed.items()}
    for d in letters:
        key = (d["service"] or d["consumer_group"], d["error"])
        failures[key] = failures.get(key, 0) + 1
    status = run_status(run, answered, letters)
    refused = str(run["refused"]) if run is not None else ""
    if refused:
        failures[("planner", refused)] = 1
    # in slice order, whatever order the store returns them in (PostgreSQL's moves as rows are updated): the
    # status's ETag hashes these bytes, so the same rows always make the same document
    rows = sorted(({k: r[k] for k in ("model", "slice", "n", "correct", "accuracy", "ci_low", "ci_high")}
                   for r in store.select(schema.leaderboard, run_id=rid)), key=lambda r: (r["slice"], r["model"]))
    return {
        "run_id": rid, "release": run["release"] if run else "", "model": run["model"] if run else "",
        "status": status, "complete": status in ("complete", "cancelled"), "refused": refused,
        "planned": int(run["planned"]) if run is not None else 0, "answered": answered,
        "failed": sum(failed.values()),
        "dead_lettered": sum(_letters(letters)),
        "judged": store.count(schema.judgments, run_id=rid),
        "failures": [{"stage": stage, "reason": reason, "count": n}
                     for (stage, reason), n in sorted(failures.items(), key=lambda kv: -kv[1])[:MAX_REASONS]],
        "leaderboard": rows,
    }


class RunningCount:
    """How many of a team's runs are running, as `run_progress` would say of each (a run submitted and not
    stored yet counts: it is not planned yet), in three queries however many runs are asked about."""

    def __init__(self, store: Store) -> None:
        self.store = store
        # per team, of the runs it was last asked about: those that can never be running again (only those still
        # asked about are kept, so what it holds is a team's day of runs, not every run the process has seen)
        self._over: dict[str, set[str]] = {}
        self._lock = threading.Lock()  # the api answers requests on several threads

    def __call__(self, team: str, run_ids: Iterable[str]) -> int:
        """How many of `run_ids` (the team's runs of the day) are running."""
        asked = set(run_ids)
        with self._lock:
            known = self._over[team] = self._over.get(team, set()) & asked
            ids = sorted(asked - known)
        if not ids:
            return 0
        runs = self.store.get_many(schema.runs, ids)
        d, r = schema.dead_letters, schema.results
        with self.store.engine.connect() as conn:
            letters: dict[str, list[dict[str, Any]]] = {}
            for row in conn.execute(select(d.c.run_id, d.c.source_topic, d.c.redriven_at)
                                    .where(d.c.run_id.in_(ids))).mappings():
                letters.setdefault(row["run_id"], []).append(dict(row))
            # only the runs whose status the count decides (stored, not refused, not cancelled)
            counted = [i for i in ids if i in runs and not runs[i]["refused"] and runs[i].get("cancelled_at") is None]
            answered = {str(k): int(n) for k, n in conn.execute(
                select(r.c.run_id, func.count()).where(r.c.run_id.in_(counted)).group_by(r.c.run_id))} \
                if counted else {}
        running, over = 0, set()
        for rid in ids:
            run, mine = runs.get(rid), letters.get(rid, [])
            if run is None and not mine:
                running += 1  # submitted, not planned yet
                continue
            status = run_status(run, answered.get(rid, 0), mine)
            running += status == "running"
            # complete with a request dead-lettered may run again (a redrive): asked again next time
            if status != "running" and not (status == "complete" and _letters(mine)[0]):
                over.add(rid)
        with self._lock:
            self._over.setdefault(team, set()).update(over)
        return running
