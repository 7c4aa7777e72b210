"""Leaderboard rows from stored judgments: accuracy with a Wilson 95% interval, overall and per slice."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass
from typing import Any

from livetab.metrics import wilson_interval
from livetab.store import schema

__all__ = ["Row", "compute_rows"]


@dataclass
class Row:
    run_id: str
    model: str
    slice: str
    n: int
    correct: int
    accuracy: float
    ci_low: float
    ci_high: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def compute_rows(store: Any, run_id: str) -> list[Row]:
    """One row for the whole run ("all") and one per task family ("family=<name>")."""
    tallies: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for j in store.select(schema.judgments, run_id=run_id):
        for key in ("all", f"family={j['family'] or 'unknown'}"):
            t = tallies[(j["model"], key)]
            t[0] += 1
            t[1] += 1 if j["verdict"] == "correct" else 0
    rows = []
    for (model, key), (n, correct) in sorted(tallies.items()):
        lo, hi = wilson_interval(correct, n)
        rows.append(Row(run_id, model, key, n, correct, correct / n if n else 0.0, lo, hi))
    return rows
