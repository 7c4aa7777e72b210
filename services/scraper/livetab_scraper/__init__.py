"""livetab's scraper: tables out of web pages and files, extracted faithfully, cleaned, profiled.

The table pipeline for one page: `extract_tables` (HTML -> `Table`s plus reasons), `clean_table`
(FreshTab's cleaning and size limits -> `Table` or `Rejection`), `dedupe`, `select_per_page`,
`profile_table` (TeleTables' dimensions). Renderings live in `livetab.render` (shared with inference).
"""

from __future__ import annotations

from livetab_scraper.clean import Rejection, clean_table, content_hash, dedupe, drop_empty
from livetab_scraper.coltypes import detect_column_types
from livetab_scraper.extract import CellMarker, ExtractResult, extract_tables
from livetab_scraper.profile import profile_table
from livetab_scraper.select import select_per_page

__all__ = [
    "CellMarker",
    "ExtractResult",
    "Rejection",
    "clean_table",
    "content_hash",
    "dedupe",
    "detect_column_types",
    "drop_empty",
    "extract_tables",
    "profile_table",
    "select_per_page",
]
