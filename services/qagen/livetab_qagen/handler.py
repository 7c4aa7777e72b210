"""The qagen handler: a table in, verified questions out (store + topic). Derived tables (imperfect
copies, math tables) are stored too, so every question's table can be found by id."""

from __future__ import annotations

import hashlib
import logging

from google.protobuf.message import Message
from livetab.bus import HandlerContext, Outgoing, PoisonMessage
from livetab.failures import record_failure
from livetab.questions import Question
from livetab.records import question_row, table_row
from livetab.store import schema
from livetab.tables import Table
from livetab.v1 import table_pb2

from livetab_qagen.mathflow import MATH_SOURCE_KIND, math_questions

__all__ = ["QagenHandler"]

log = logging.getLogger(__name__)
TOPIC_OUT = "livetab.questions.v1"


def _balanced(questions: list[Question], n: int, offset: int = 0) -> list[Question]:
    """Up to `n` questions, taken round-robin across families so one family cannot crowd out the rest;
    `offset` rotates which family goes first, so small quotas still cover every family over many tables."""
    by_family: dict[str, list[Question]] = {}
    for q in questions:
        by_family.setdefault(q.family, []).append(q)
    picked: list[Question] = []
    queues = list(by_family.values())
    if queues:
        k = offset % len(queues)
        queues = queues[k:] + queues[:k]
    while len(picked) < n and any(queues):
        for queue in queues:
            if queue and len(picked) < n:
                picked.append(queue.pop(0))
    return picked


class QagenHandler:
    service = "qagen"
    topics = ["livetab.tables.v1"]

    def _math(self, table: Table, ctx: HandlerContext, seed: int) -> list[Outgoing]:
        outcome = math_questions(table, seed=seed)
        for reason in outcome.failures:
            record_failure(ctx.store, "qagen", table.id, f"math: {reason}", table.release)
        return self._emit(ctx, table, outcome.questions, outcome.tables)

    def _emit(self, ctx: HandlerContext, table: Table, questions: list[Question], derived: list[Table]
              ) -> list[Outgoing]:
        tables = [t.to_proto() for t in derived]
        for t in tables:
            t.release = table.release
        ctx.store.upsert(schema.tables, [table_row(t) for t in tables])
        protos = []
        for q in questions:
            q.release = table.release
            q.source_created_at = q.source_created_at or table.source.created_at
            protos.append(q.to_proto())
        ctx.store.upsert(schema.questions, [question_row(p) for p in protos])
        return [Outgoing(TOPIC_OUT, p, key=p.table_id, message_id=p.id) for p in protos]

    def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
        from livetab_qagen.programmatic import generate

        if not isinstance(message, table_pb2.Table):
            raise PoisonMessage(f"qagen got {message.DESCRIPTOR.full_name}")
        table = Table.from_proto(message)
        cfg = getattr(ctx.settings, "qagen", None)
        if table.source.kind == MATH_SOURCE_KIND:
            return self._math(table, ctx, cfg.seed if cfg else 0)
        families = list(cfg.families) if cfg else None
        seed = cfg.seed if cfg else 0
        try:
            result = generate(table, families=families, seed=seed)
        except Exception as e:
            record_failure(ctx.store, "qagen", table.id, f"generation failed: {type(e).__name__}: {e}", table.release)
            return []
        for reason, detail in result.rejected:
            record_failure(ctx.store, "qagen", table.id, f"{reason}: {detail}", table.release)
        per_table = cfg.per_table if cfg and cfg.per_table else 0
        offset = int(hashlib.sha256(table.id.encode()).hexdigest()[:8], 16)
        questions = _balanced(result.questions, per_table, offset) if per_table else result.questions
        used = {q.table_id for q in questions}
        return self._emit(ctx, table, questions, [t for t in result.tables if t.id in used])
