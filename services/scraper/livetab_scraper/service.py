"""The scraper service: scrape commands in, extracted tables out."""

from __future__ import annotations

from livetab.bus import AnyHandler
from livetab.runtime import Build, Service

from livetab_scraper.handler import ScraperHandler


def _handlers(build: Build) -> list[AnyHandler]:
    return [ScraperHandler()]


SERVICE = Service("scraper", _handlers, description="sources -> faithful tables (livetab.tables.v1)")
