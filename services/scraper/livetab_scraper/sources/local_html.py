"""The `local_html` source: saved web pages (a file or a folder of `.html`), passed on as page HTML.

A sidecar `<name>.json` beside a page (the WikiTableQuestions layout of the shared data and of the
offline sample) supplies `title`, `url`, `revision`, `tableIndex` (the target table: `extra["target_table"]`,
and the scraper keeps only that one) and optionally
`language`, `domain`, `created_at`, `licence`. Pages from wikipedia.org get Wikipedia's licence. A
damaged sidecar is noted and the page is still passed on. `created_at` is the sidecar's, empty when a
sidecar gives none (the copy's file time says nothing about the page), or the file time without one.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from livetab_scraper.sources.base import Failure, Fetched, Item, SourceConfig, SourceMeta, register_source
from livetab_scraper.sources.cellgrid import FileReadError
from livetab_scraper.sources.textfiles import decode_text

__all__ = ["LocalHtmlConfig", "LocalHtmlSource"]

log = logging.getLogger(__name__)

WIKIPEDIA_LICENCE = "CC BY-SA 4.0"


class LocalHtmlConfig(SourceConfig):
    location: str
    language: str = "en"
    domain: Literal["sport", "politics", "culture", "other"] = "other"
    licence: str = ""
    attribution: str = ""
    recursive: bool = False
    max_bytes: int = Field(50_000_000, ge=1)
    limit: int | None = Field(None, ge=1)


def _sidecar(path: Path, notes: list[str]) -> dict[str, Any]:
    side = path.with_suffix(".json")
    if not side.is_file():
        return {}
    try:
        data = json.loads(side.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        notes.append(f"sidecar {side.name} is unreadable ({e}); page metadata taken from the file")
        return {}
    if not isinstance(data, dict):
        notes.append(f"sidecar {side.name} is not a JSON object; ignored")
        return {}
    return data


class LocalHtmlSource:
    name = "local_html"

    def __init__(self, config: LocalHtmlConfig) -> None:
        self.config = config

    def _page(self, path: Path) -> Item:
        cfg = self.config
        try:
            size = path.stat().st_size
            if size > cfg.max_bytes:
                return Failure(str(path), f"page is {size} bytes, over max_bytes={cfg.max_bytes}", self.name)
            data = path.read_bytes()
        except OSError as e:
            return Failure(str(path), f"cannot read the page: {e.strerror or e}", self.name)
        try:
            html, encoding, notes = decode_text(data)
        except FileReadError as e:
            return Failure(str(path), str(e), self.name)
        if not html.strip():
            return Failure(str(path), "the page is empty", self.name)
        side = _sidecar(path, notes)
        url = str(side.get("url") or f"file:{path.name}")
        licence = str(side.get("licence") or cfg.licence or (("wikipedia.org" in url and WIKIPEDIA_LICENCE) or ""))
        title = str(side.get("title") or path.stem)
        extra = {"file": str(path)}
        try:
            table_index = int(side.get("tableIndex", 0))
            if "tableIndex" in side:  # the sidecar names the one table this page is kept for (WTQ's layout)
                extra["target_table"] = str(table_index)
        except (TypeError, ValueError):
            notes.append(f"sidecar tableIndex {side.get('tableIndex')!r} is not a number; 0 used")
            table_index = 0
        mtime = datetime.fromtimestamp(path.stat().st_mtime, UTC).isoformat(timespec="seconds")
        attribution = cfg.attribution or (f"“{title}”, Wikipedia contributors, {licence}" if "wikipedia.org" in url
                                          else "")
        meta = SourceMeta(kind=self.name, uri=url, title=title,
                          revision=str(side.get("revision") or hashlib.sha256(data).hexdigest()[:16]),
                          table_index=table_index, created_at=str(side.get("created_at") or ("" if side else mtime)),
                          retrieved_at=datetime.now(UTC).isoformat(timespec="seconds"), licence=licence,
                          attribution=attribution)
        domain = str(side.get("domain") or cfg.domain)
        return Fetched(meta=meta, language=str(side.get("language") or cfg.language), domain=domain, html=html,
                       format="html", notes=notes, extra={"encoding": encoding, **extra})

    def fetch(self, limit: int | None = None) -> Iterator[Item]:
        limit = limit or self.config.limit
        location = Path(self.config.location)
        if location.is_file():
            paths = [location]
        elif location.is_dir():
            walk = location.rglob("*") if self.config.recursive else location.glob("*")
            paths = sorted(p for p in walk if p.suffix.lower() in (".html", ".htm") and p.is_file())
            if not paths:
                yield Failure(str(location), "the folder holds no .html pages", self.name)
                return
        else:
            yield Failure(str(location), "no such file or folder", self.name)
            return
        produced = 0
        for path in paths:
            if limit is not None and produced >= limit:
                return
            item = self._page(path)
            produced += isinstance(item, Fetched)
            yield item


@register_source("local_html", config=LocalHtmlConfig)
def _build(config: LocalHtmlConfig) -> LocalHtmlSource:
    return LocalHtmlSource(config)
