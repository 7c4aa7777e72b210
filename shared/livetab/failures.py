"""Recorded failures: a table that would not parse, a derivation that raised, a model call that timed
out. Each is kept with its stage and reason, shown in summaries, and never stops the cycle."""

from __future__ import annotations

from typing import Any

from livetab.ids import content_id
from livetab.store import schema

__all__ = ["record_failure"]


def record_failure(store: Any, stage: str, entity: str, reason: str, release: str = "") -> None:
    store.upsert(schema.failures, [{"id": content_id("fail", stage, entity, reason), "stage": stage,
                                    "entity": entity, "reason": reason[:2000], "release": release}])
