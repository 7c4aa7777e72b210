"""The qagen handler: a table in, verified questions out (store + topic). Derived tables (imperfect
copies, math tables) are stored too, so every question's table can be found by id."""

from __future__ import annotations

import functools
import hashlib
import logging
import random
from typing import Any

from google.protobuf.message import Message
from livetab import review
from livetab.aioloop import BackgroundLoop
from livetab.bus import HandlerContext, Outgoing, PoisonMessage
from livetab.failures import record_failure
from livetab.questions import Question
from livetab.records import question_row, table_row
from livetab.store import schema
from livetab.tables import Table
from livetab.topics import PROBLEMS, QUESTIONS, TABLES
from livetab.v1 import math_pb2, table_pb2

from livetab_qagen.mathflow import math_questions

__all__ = ["QagenHandler"]

log = logging.getLogger(__name__)
NOT_FAILURES = {"no_candidates", "near_duplicate", "balance"}  # quality control at work, not errors


def _held_back(questions: list[Question], tables: dict[str, Table]) -> tuple[list[Question], list[tuple[Question, str]]]:
    """The questions the question lint lets through, and those it flags with the reason (their flags)."""
    from livetab.question_lint import lint_question

    clean: list[Question] = []
    flagged: list[tuple[Question, str]] = []
    for q in questions:
        table = tables.get(q.table_id)
        flags = lint_question(q.text, q.gold.text, q.family, table) if table is not None else []
        if flags:
            flagged.append((q, "question lint: " + ", ".join(flags)))
        else:
            clean.append(q)
    return clean, flagged


def _balanced(questions: list[Question], n: int, offset: int = 0) -> list[Question]:
    """Up to `n` questions, taken round-robin across families so one family cannot crowd out the rest;
    `offset` rotates which family goes first, so small quotas still cover every family over many tables."""
    by_family: dict[str, list[Question]] = {}
    for q in questions:
        by_family.setdefault(q.family, []).append(q)
    rng = random.Random(offset)
    for queue in by_family.values():  # e.g. a true/false pair: take either side, not always the first
        rng.shuffle(queue)
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
    topics = [TABLES, PROBLEMS]  # tables, and math word problems for the math flow

    def __init__(self) -> None:
        self._llm_backends: tuple[Any, Any, Any] | None = None
        self._loop = BackgroundLoop("qagen-loop")

    def _math(self, problem: math_pb2.MathProblem, ctx: HandlerContext, seed: int) -> list[Outgoing]:
        outcome = math_questions(problem, seed=seed)
        for reason in outcome.failures:
            record_failure(ctx.store, "qagen", problem.id, f"math: {reason}", problem.release)
        return self._emit(ctx, problem.release, problem.created_at, outcome.questions, outcome.tables)

    def _llm_path(self, table: Table, cfg: Any, ctx: HandlerContext) -> list[Question]:
        """LLM-proposed questions, admitted only when the sandboxed derivation reproduces the proposed answer
        and the validator agrees in enough trials; borderline ones go to the human review queue."""
        from livetab.models.registry import backend_from_spec
        from livetab.models.spec import model_spec

        from livetab_qagen.llm_path import LlmPathConfig, run_llm_path

        llm = cfg.llm
        if self._llm_backends is None:
            gen = backend_from_spec(model_spec(llm.generator))
            val = backend_from_spec(model_spec(llm.validator)) if llm.validator else gen
            simple = backend_from_spec(model_spec(llm.simplicity)) if llm.simplicity else None
            self._llm_backends = (gen, val, simple)
        gen, val, simple = self._llm_backends
        queue = functools.partial(review.add, ctx.store)  # the store's review_items: one queue for every pod
        config = LlmPathConfig(k_validator=llm.k_validator, k_simplicity=llm.k_simplicity)
        result = self._loop.run(run_llm_path(table, generator=gen, validator=val, simplicity=simple, queue=queue,
                                             n_proposals=llm.proposals_per_table, config=config, seed=cfg.seed))
        for p in result.proposals:
            if p.outcome != "kept":
                record_failure(ctx.store, "qagen-llm", f"{table.id}#{p.index}",
                               f"proposal {p.outcome}: " + "; ".join(p.decisions), table.release)
        return result.kept

    def _emit(self, ctx: HandlerContext, release: str, created_at: str, questions: list[Question],
              derived: list[Table]) -> list[Outgoing]:
        tables = [t.to_proto() for t in derived]
        for t in tables:
            t.release = release
        ctx.store.upsert(schema.tables, [table_row(t) for t in tables])
        protos = []
        for q in questions:
            q.release = release
            q.source_created_at = q.source_created_at or created_at
            protos.append(q.to_proto())
        ctx.store.upsert(schema.questions, [question_row(p) for p in protos])
        return [Outgoing(QUESTIONS, p, key=p.table_id, message_id=p.id) for p in protos]

    def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
        from livetab_qagen.programmatic import generate

        cfg = getattr(ctx.settings, "qagen", None)
        if isinstance(message, math_pb2.MathProblem):
            return self._math(message, ctx, cfg.seed if cfg else 0)
        if not isinstance(message, table_pb2.Table):
            raise PoisonMessage(f"qagen got {message.DESCRIPTOR.full_name}")
        table = Table.from_proto(message)
        families = list(cfg.families) if cfg else None
        seed = cfg.seed if cfg else 0
        try:
            result = generate(table, families=families, seed=seed,
                              proportions=(cfg.proportions or None) if cfg else None)
        except Exception as e:
            record_failure(ctx.store, "qagen", table.id, f"generation failed: {type(e).__name__}: {e}", table.release)
            return []
        for reason, detail in result.rejected:
            if reason in NOT_FAILURES:  # a family with nothing to ask of this table is no error
                log.info("qagen %s: %s: %s", table.id, reason, detail)
                continue
            record_failure(ctx.store, "qagen", table.id, f"{reason}: {detail}", table.release)
        candidates = result.questions
        lint = cfg.lint if cfg else "review"
        if lint != "keep":  # held back before the per-table quota, so a clean question takes the place
            candidates, flagged = _held_back(candidates, {table.id: table, **{t.id: t for t in result.tables}})
            for q, why in flagged:
                q.release = table.release
                q.source_created_at = q.source_created_at or table.source.created_at
                queued = lint == "review" and review.add(ctx.store, q, why)
                log.info("qagen %s: question %s %s: %s", table.id, q.id, "sent to review" if queued else "left out",
                         why)
        per_table = cfg.per_table if cfg and cfg.per_table else 0
        offset = int(hashlib.sha256(table.id.encode()).hexdigest()[:8], 16)
        questions = _balanced(candidates, per_table, offset) if per_table else candidates
        if cfg is not None and cfg.llm.generator is not None:
            questions = questions + self._llm_path(table, cfg, ctx)
        used = {q.table_id for q in questions}
        return self._emit(ctx, table.release, table.source.created_at, questions,
                          [t for t in result.tables if t.id in used])
