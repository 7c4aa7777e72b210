"""`livetab scrape --source wikipedia ...`: fresh tables from live Wikipedia into files (needs network).

The Wikidata and MediaWiki base URLs are options (`--wikidata-url`, `--mediawiki-url`, `--rest-url`), as
is any other setting of the wikipedia source (`--option KEY=VALUE`), so the same command runs against a
mirror or a local server."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

__all__ = ["scrape_wikipedia", "source_options"]


def source_options(args: argparse.Namespace) -> dict[str, Any]:
    """The source settings given on the command line; a malformed `--option` is a ValueError naming it."""
    options: dict[str, Any] = {}
    for key, flag in (("sparql_url", "wikidata_url"), ("api_url", "mediawiki_url"), ("rest_url", "rest_url")):
        if getattr(args, flag, ""):
            options[key] = getattr(args, flag)
    for item in getattr(args, "option", None) or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--option {item!r} must read KEY=VALUE")
        options[key.strip()] = value
    return options


def scrape_wikipedia(args: argparse.Namespace) -> int:
    from google.protobuf.json_format import MessageToDict
    from livetab_scraper.sources.base import Failure, Fetched
    from livetab_scraper.sources.live import scrape_live, summarize

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    items = scrape_live("wikipedia", since=args.since or "2026-10-01", lang=args.lang, limit=args.limit,
                        cache_dir=out / "http-cache", contact=args.contact or None, **source_options(args))
    n_tables = 0
    with (out / "tables.jsonl").open("w", encoding="utf-8") as f, (out / "failures.jsonl").open("w") as fail:
        for item in items:
            if isinstance(item, Fetched):
                for t in item.tables:
                    f.write(json.dumps(MessageToDict(t.to_proto(), preserving_proto_field_name=True),
                                       ensure_ascii=False) + "\n")
                    n_tables += 1
            elif isinstance(item, Failure):
                fail.write(json.dumps({"location": item.location, "reason": item.reason}, ensure_ascii=False) + "\n")
    print(f"livetab scrape: {summarize(items)}; {n_tables} tables in {out / 'tables.jsonl'}, "
          f"failures with reasons in {out / 'failures.jsonl'}")
    return 0
