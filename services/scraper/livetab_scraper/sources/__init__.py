"""Where tables come from: source plugins behind one interface, configured by name.

`build_source({"kind": "wikipedia", ...})` returns a `Source`; its `fetch(limit)` yields `Fetched`
items (page HTML, tables or math problems, with citable metadata) and `Failure`s with reasons.
"""

from livetab_scraper.sources.base import (
    Failure,
    Fetched,
    Item,
    Source,
    SourceConfigError,
    SourceMeta,
    available_sources,
    build_source,
    register_source,
)
from livetab_scraper.sources.gsm8k import read_gsm8k
from livetab_scraper.sources.live import extract_pages, scrape_live, summarize

__all__ = [
    "Failure",
    "Fetched",
    "Item",
    "Source",
    "SourceConfigError",
    "SourceMeta",
    "available_sources",
    "build_source",
    "extract_pages",
    "read_gsm8k",
    "register_source",
    "scrape_live",
    "summarize",
]
