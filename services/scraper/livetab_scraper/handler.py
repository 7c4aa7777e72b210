"""The scraper's handler: a scrape command in, cleaned and profiled tables out (store + topic)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message
from livetab.bus import HandlerContext, Outgoing, PoisonMessage
from livetab.failures import record_failure
from livetab.records import table_row
from livetab.store import schema
from livetab.tables import Table
from livetab.topics import PROBLEMS, SCRAPES, TABLES
from livetab.v1 import math_pb2, table_pb2

__all__ = ["ScraperHandler"]

log = logging.getLogger(__name__)


@dataclass
class Found:
    table: Table | None
    entity: str
    reason: str = ""
    problem: math_pb2.MathProblem | None = None  # a math word problem: no table, its own message


def _cleaned(t: Table, entity: str, settings: object | None) -> Found:
    """Clean and profile one extracted table, or say why it was rejected (thresholds from settings)."""
    from livetab_scraper.clean import Rejection, clean_table
    from livetab_scraper.profile import profile_table

    keys = ("min_rows", "max_rows", "min_cols", "max_cols", "min_non_empty", "max_empty_ratio", "max_col_empty_ratio",
            "max_cell_chars", "max_table_chars", "drop_constant_columns")
    kw = {k: getattr(settings, k) for k in keys if hasattr(settings, k)}
    cleaned = clean_table(t, **kw)
    if isinstance(cleaned, Rejection):
        return Found(None, entity, f"rejected by cleaning: {cleaned.reason}")
    cleaned.profile = profile_table(cleaned)
    return Found(cleaned, cleaned.id)


def problem_message(item: Any, release: str) -> math_pb2.MathProblem:
    """A math word problem as its own message, for qagen's math flow (livetab.problems.v1)."""
    from livetab.gsm8k import to_message

    meta = item.meta
    return to_message(item.problem, release=release, language=item.language or "en", created_at=meta.created_at,
                      uri=meta.uri, revision=meta.revision, retrieved_at=meta.retrieved_at,
                      licence=meta.licence or "MIT",
                      attribution=meta.attribution or "GSM8K, openai/grade-school-math (MIT)")


class ScraperHandler:
    service = "scraper"
    topics = [SCRAPES]

    def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
        if not isinstance(message, table_pb2.ScrapeCommand):
            raise PoisonMessage(f"scraper got {message.DESCRIPTOR.full_name}")
        cmd = message
        settings = getattr(ctx.settings, "scraper", None)
        out: list[Outgoing] = []
        for f in self._found(cmd, settings):
            if f.problem is not None:
                out.append(Outgoing(PROBLEMS, f.problem, key=f.problem.id, message_id=f.problem.id))
                continue
            if f.table is None:
                record_failure(ctx.store, "scraper", f.entity, f.reason, cmd.release)
                log.info("scraper: %s: %s", f.entity, f.reason)
                continue
            f.table.release = cmd.release
            proto = f.table.to_proto()
            ctx.store.upsert(schema.tables, [table_row(proto)])
            out.append(Outgoing(TABLES, proto, key=proto.id, message_id=proto.id))
        return out

    def _found(self, cmd: table_pb2.ScrapeCommand, settings: object | None) -> Iterator[Found]:
        """Every source is a plugin (livetab_scraper.sources); pages go through the extractor, then cleaning."""
        from livetab_scraper.sources.base import Failure, build_source
        from livetab_scraper.sources.live import extract_pages

        config = {"kind": cmd.source, "location": cmd.location, "language": cmd.language or "en", **cmd.options}
        for item in build_source(config).fetch():
            if isinstance(item, Failure):
                yield Found(None, item.location, item.reason)
                continue
            if item.problem is not None:
                yield Found(None, item.problem.id, problem=problem_message(item, cmd.release))
                continue
            extract_pages([item])
            target = item.extra.get("target_table")
            tables = [t for t in item.tables if target is None or t.source.table_index == int(target)]
            where = item.extra.get("file") or item.meta.uri  # failures name the page (file) they came from
            if not tables:
                why = "; ".join(item.notes) or (f"no wikitable at index {target}" if target else "no tables found")
                yield Found(None, where, why)
            for t in tables:
                t.language = item.language or t.language
                t.domain = item.domain or t.domain
                yield _cleaned(t, f"{where}#{t.source.table_index}", settings)
