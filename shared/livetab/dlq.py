"""Dead letters after a fix: list them, re-publish them to their source topic (redrive), and re-read a
topic from an offset or a time by moving a consumer group's committed offsets (replay).

A redrive re-publishes the stored original record — value, key and headers, so the same `message-id` —
and marks the letter `redriven_at`: a second redrive publishes nothing unless asked `again`. Consumers'
effects are idempotent upserts, so a record processed twice changes nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select, update

from livetab import topics
from livetab.store import schema

__all__ = ["DeadLetterFilter", "letters", "redrive", "replay"]


@dataclass(frozen=True)
class DeadLetterFilter:
    service: str = ""
    run_id: str = ""
    topic: str = ""


def letters(store: Any, flt: DeadLetterFilter = DeadLetterFilter(), ids: list[str] | None = None
            ) -> list[dict[str, Any]]:
    """Stored dead letters, oldest first, narrowed by service, run, source topic and ids."""
    t = schema.dead_letters
    q = select(t)
    if flt.service:
        q = q.where(t.c.service == flt.service)
    if flt.run_id:
        q = q.where(t.c.run_id == flt.run_id)
    if flt.topic:
        q = q.where(t.c.source_topic == flt.topic)
    if ids:
        q = q.where(t.c.id.in_(ids))
    q = q.order_by(t.c.created_at, t.c.id)
    with store.engine.connect() as conn:
        return [dict(r._mapping) for r in conn.execute(q)]


def redrive(store: Any, bus: Any, rows: list[dict[str, Any]], *, again: bool = False) -> tuple[int, list[str]]:
    """Re-publish each letter's original record to its source topic; returns (published, skipped ids).
    Skipped: already redriven (unless `again`) or stored before originals were kept (no value)."""
    todo: list[dict[str, Any]] = []
    skipped: list[str] = []
    for row in rows:
        if (row["redriven_at"] is not None and not again) or row["value"] is None:
            skipped.append(row["id"])
        else:
            todo.append(row)
    for row in todo:
        headers = json.loads(row["headers"] or "{}")
        bus.publish_raw(row["source_topic"], row["value"], headers, row["key"])
    if todo:
        bus.flush()  # acknowledged before it is marked: a failed flush leaves the letters to redrive again
        t = schema.dead_letters
        with store.engine.begin() as conn:
            conn.execute(update(t).where(t.c.id.in_([r["id"] for r in todo]))
                         .values(redriven_at=datetime.now(UTC)))
    return len(todo), skipped


def default_group(topic: str) -> str:
    """The consumer group of the service that consumes `topic` (from the topic registry)."""
    t = topics.by_name(topic)
    if t.consumer is None:
        raise ValueError(f"no service consumes {topic}; name the group with --group")
    return topics.consumer_group(t.consumer, t.pool or t.group)


def replay(bootstrap: str, topic: str, start: str, group: str) -> dict[int, int]:
    """Move `group`'s committed offsets on every partition of `topic` to `start` — an offset, or an ISO
    time (the first record at or after it; the end when none) — and return {partition: offset}.
    The group's consumers should be stopped: a running member's commits would overwrite these (and Kafka
    refuses commits from a non-member while the group is active)."""
    from livetab.bus.kafka import check_broker, move_group

    check_broker(bootstrap)  # BrokerUnreachable names the address
    if start.lstrip("-").isdigit():
        return move_group(bootstrap, group, topic, int(start))
    when = datetime.fromisoformat(start)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return move_group(bootstrap, group, topic, when.timestamp() * 1000.0)
