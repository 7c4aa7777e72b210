"""The scraper's handler: a scrape command in, cleaned and profiled tables out (store + topic)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from google.protobuf.message import Message
from livetab.bus import HandlerContext, Outgoing, PoisonMessage
from livetab.failures import record_failure
from livetab.ids import table_id
from livetab.records import table_row
from livetab.store import schema
from livetab.tables import Source, Table
from livetab.v1 import table_pb2

__all__ = ["ScraperHandler", "local_html_tables"]

log = logging.getLogger(__name__)
TOPIC_OUT = "livetab.tables.v1"


@dataclass
class Found:
    table: Table | None
    entity: str
    reason: str = ""


def local_html_tables(folder: Path, *, language: str, settings: object | None) -> Iterator[Found]:
    """Pages `<id>.html` with an optional `<id>.json` sidecar (title, url, revision, tableIndex, domain)."""
    from livetab_scraper.extract import extract_tables

    pages = sorted(folder.glob("*.html")) if folder.is_dir() else [folder]
    if not pages:
        yield Found(None, str(folder), "no .html pages found")
    for page in pages:
        meta_path = page.with_suffix(".json")
        meta = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.is_file() else {}
        try:
            html = page.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            yield Found(None, str(page), f"cannot read page: {e}")
            continue
        source = Source(kind="wikipedia_page" if meta.get("url") else "html_file", uri=meta.get("url", str(page)),
                        title=meta.get("title", page.stem), revision=str(meta.get("revision", "")),
                        created_at=str(meta.get("created_at", "")),
                        retrieved_at=datetime.now(UTC).date().isoformat(),
                        licence=meta.get("licence", "CC BY-SA 4.0"),
                        attribution=meta.get("attribution", "Wikipedia contributors"))
        result = extract_tables(html, source=source, language=language)
        for err in result.errors:
            yield Found(None, str(page), err)
        wanted = meta.get("tableIndex")
        tables = [t for t in result.tables if wanted is None or t.source.table_index == int(wanted)]
        if not tables and not result.errors:
            yield Found(None, str(page), f"no wikitable at index {wanted}" if wanted is not None else "no tables")
        for t in tables:
            t.domain = meta.get("domain", t.domain)
            t.language = language
            yield _cleaned(t, f"{page}#{t.source.table_index}", settings)


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


def problem_table(item: Any) -> Table:
    """A math word problem passed through as a one-row table for qagen's math generator."""
    p = item.problem
    meta = item.meta
    source = Source(kind="math_problem", uri=meta.uri or f"gsm8k:{p.id}", title=p.id, revision=meta.revision,
                    created_at=meta.created_at, retrieved_at=meta.retrieved_at, licence=meta.licence or "MIT",
                    attribution=meta.attribution or "GSM8K, openai/grade-school-math (MIT)")
    return Table(id=table_id(source.uri, source.revision, 0), source=source,
                 header=[["id", "question", "answer", "final_answer"]],
                 rows=[[p.id, p.question, p.answer_text, p.final_answer]], language=item.language or "en",
                 domain="other")


class ScraperHandler:
    service = "scraper"
    topics = ["livetab.scrapes.v1"]

    def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
        if not isinstance(message, table_pb2.ScrapeCommand):
            raise PoisonMessage(f"scraper got {message.DESCRIPTOR.full_name}")
        cmd = message
        settings = getattr(ctx.settings, "scraper", None)
        if cmd.source in ("local_html", "local_sample"):
            found = local_html_tables(Path(cmd.location), language=cmd.language or "en", settings=settings)
        else:
            found = self._plugin(cmd, settings)
        out: list[Outgoing] = []
        for f in found:
            if f.table is None:
                record_failure(ctx.store, "scraper", f.entity, f.reason, cmd.release)
                log.info("scraper: %s: %s", f.entity, f.reason)
                continue
            f.table.release = cmd.release
            proto = f.table.to_proto()
            ctx.store.upsert(schema.tables, [table_row(proto)])
            out.append(Outgoing(TOPIC_OUT, proto, key=proto.id, message_id=proto.id))
        return out

    def _plugin(self, cmd: table_pb2.ScrapeCommand, settings: object | None) -> Iterator[Found]:
        """Other sources come from the source plugins (livetab_scraper.sources)."""
        from livetab_scraper.sources.base import Failure, build_source
        from livetab_scraper.sources.live import extract_pages

        config = {"kind": cmd.source, "location": cmd.location, "language": cmd.language or "en", **cmd.options}
        for item in build_source(config).fetch():
            if isinstance(item, Failure):
                yield Found(None, item.location, item.reason)
                continue
            if item.problem is not None:
                yield Found(problem_table(item), item.problem.id)
                continue
            extract_pages([item])
            if not item.tables:
                yield Found(None, item.meta.uri, "; ".join(item.notes) or "no tables found")
            for t in item.tables:
                t.language = item.language or t.language
                t.domain = item.domain or t.domain
                yield _cleaned(t, t.id, settings)
