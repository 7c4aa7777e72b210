"""`scrape_live`: one call behind `livetab scrape --source wikipedia --since 2026-10-01 --lang en --limit 20`.

It builds the named source, fetches up to `limit` usable items, and runs the page extractor on every
page that came as HTML, so each returned `Fetched` carries its tables. Failures (not fresh, network
errors after retries, pages without tables) are returned too, never dropped.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from livetab_scraper.sources.base import Failure, Fetched, Item, build_source

__all__ = ["extract_pages", "scrape_live", "summarize"]

log = logging.getLogger(__name__)


def extract_pages(items: list[Item], selector: str = "wikitable") -> list[Item]:
    """Fill `tables` of every HTML `Fetched` through `livetab_scraper.extract.extract_tables`."""
    from livetab_scraper.extract import extract_tables

    for item in items:
        if isinstance(item, Fetched) and item.html is not None and not item.tables:
            result = extract_tables(item.html, source=item.meta, language=item.language, selector=selector)
            item.tables = [replace(t, domain=item.domain) for t in result.tables]
            item.notes.extend(f"extraction: {e}" for e in [*result.errors, *result.warnings])
    return items


def scrape_live(source: str = "wikipedia", since: str = "2026-10-01", lang: str = "en", limit: int = 20,
                cache_dir: str | Path | None = "out/cache/http", contact: str | None = None, *,
                extract: bool = True, **options: Any) -> list[Item]:
    """Fetch fresh items from `source` (default: Wikipedia pages newer than `since` in language `lang`).

    `contact` (or LIVETAB_CONTACT) goes into the User-Agent; `cache_dir` keeps responses so a re-run
    does not hit the servers; further `options` are the source's config keys (e.g. `categories`,
    `min_interval_s`, `location` for file sources).
    """
    config: dict[str, Any] = {"kind": source, "limit": limit, **options}
    if source == "wikipedia":
        config.update(since=since, languages=[lang], cache_dir=str(cache_dir) if cache_dir else None)
        if contact:
            config["contact"] = contact
    else:
        config.setdefault("language", lang)
    items = list(build_source(config).fetch(limit))
    if extract:
        extract_pages(items)
    counts = summarize(items)
    log.info("scrape %s since %s (%s): %s", source, since, lang, counts)
    return items


def summarize(items: list[Item]) -> dict[str, int]:
    """Counts for a CLI line: fetched pages, tables, failures by their first words."""
    c: Counter[str] = Counter()
    for item in items:
        if isinstance(item, Fetched):
            c["fetched"] += 1
            c["tables"] += len(item.tables)
        elif isinstance(item, Failure):
            c["failures"] += 1
            c["not_fresh"] += item.reason.startswith("not fresh")
    return dict(c)
