"""The `wikipedia` source: fresh Wikipedia pages found through Wikidata, fetched through MediaWiki.

For each configured language: run every category's SPARQL query (items with a date after the
cutoff and a sitelink to that language's Wikipedia), merge the candidates, take them round-robin
across categories (so a small `limit` still mixes domains), and for each one check freshness and
fetch the page HTML. Freshness: the page's first revision is on or after the cutoff, or its event
date is (FreshTab's rule); with `require_created_after` only the first. Pages whose event has not
happened yet are skipped by default (their tables are mostly empty). `limit` counts pages per language.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from itertools import zip_longest
from typing import Any, Literal
from urllib.parse import quote

from pydantic import Field, field_validator

from livetab_scraper.sources.base import Failure, Fetched, Item, SourceConfig, SourceMeta, register_source
from livetab_scraper.sources.http import HttpError, HttpPolicy, PoliteClient
from livetab_scraper.sources.mediawiki import API_URL, REST_URL, MediaWikiClient, MediaWikiError
from livetab_scraper.sources.wikidata import DEFAULT_CATEGORIES, WDQS_URL, Candidate, Category, WikidataClient

__all__ = ["LANGUAGES", "WikipediaConfig", "WikipediaSource", "is_fresh"]

log = logging.getLogger(__name__)

LANGUAGES = ("en", "de", "fr", "es", "ru", "nl", "sv", "ar")
LICENCE = "CC BY-SA 4.0"


def _split(value: Any) -> Any:
    if isinstance(value, str):
        return [p.strip() for p in value.replace(";", ",").split(",") if p.strip()]
    return value


class WikipediaConfig(SourceConfig):
    since: date
    languages: list[str] = Field(default_factory=lambda: ["en"])
    language: str | None = None
    categories: list[Category] = Field(default_factory=lambda: list(DEFAULT_CATEGORIES))
    contact: str = Field(default_factory=lambda: os.environ.get("LIVETAB_CONTACT", ""))
    require_all_languages: bool = False
    require_created_after: bool = False
    skip_future_events: bool = True
    title_year_filter: bool = True
    query_limit: int = Field(200, ge=1)
    max_split_depth: int = Field(2, ge=0)
    max_queries_per_category: int = Field(60, ge=1)
    limit: int | None = Field(None, ge=1)
    html_endpoint: Literal["parse", "rest"] = "parse"
    sparql_url: str = WDQS_URL
    api_url: str = API_URL
    rest_url: str = REST_URL
    timeout_s: float = Field(30.0, gt=0)
    sparql_timeout_s: float = Field(65.0, gt=0)
    max_retries: int = Field(4, ge=0)
    backoff_base_s: float = Field(1.0, ge=0)
    backoff_max_s: float = Field(60.0, ge=0)
    max_retry_after_s: float = Field(300.0, ge=0)
    min_interval_s: float = Field(1.0, ge=0)
    maxlag_s: int = Field(5, ge=0)
    cache_dir: str | None = "out/cache/http"
    cache_ttl_s: float | None = None

    @field_validator("languages", mode="before")
    @classmethod
    def _languages(cls, value: Any) -> Any:
        return _split(value)

    @field_validator("categories", mode="before")
    @classmethod
    def _categories(cls, value: Any) -> Any:
        value = _split(value)
        return [Category.parse(v) for v in value] if isinstance(value, list) else value

    @field_validator("contact")
    @classmethod
    def _contact(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("a contact (e-mail or URL) is required for the User-Agent by Wikimedia's policy; "
                             "set 'contact' or LIVETAB_CONTACT")
        return value

    def all_languages(self) -> list[str]:
        """`language` alone when `languages` was not set; otherwise both, `language` first."""
        if self.language and "languages" not in self.model_fields_set:
            return [self.language]
        langs = [self.language] if self.language else []
        return list(dict.fromkeys([*langs, *self.languages]))

    def policy(self, timeout_s: float | None = None) -> HttpPolicy:
        return HttpPolicy(contact=self.contact, timeout_s=timeout_s or self.timeout_s, max_retries=self.max_retries,
                          backoff_base_s=self.backoff_base_s, backoff_max_s=self.backoff_max_s,
                          max_retry_after_s=self.max_retry_after_s, min_interval_s=self.min_interval_s,
                          maxlag_s=self.maxlag_s, cache_dir=self.cache_dir, cache_ttl_s=self.cache_ttl_s)


def _ts(value: str | date) -> datetime:
    if isinstance(value, date) and not isinstance(value, datetime):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    text = str(value).replace("Z", "+00:00")
    parsed = datetime.fromisoformat(text if "T" in text else text + "T00:00:00+00:00")
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def is_fresh(page_created: str, event_date: str, cutoff: date, *, require_created_after: bool = False) -> bool:
    """Fresh if the page was created on/after the cutoff, or (unless required otherwise) its event date is."""
    if _ts(page_created) >= _ts(cutoff):
        return True
    return bool(event_date) and not require_created_after and _ts(event_date) >= _ts(cutoff)


def _round_robin(groups: list[list[Candidate]]) -> Iterator[Candidate]:
    seen: set[str] = set()
    for layer in zip_longest(*groups):
        for c in layer:
            if c is not None and c.qid not in seen:
                seen.add(c.qid)
                yield c


class WikipediaSource:
    name = "wikipedia"

    def __init__(self, config: WikipediaConfig, *, now: Callable[[], datetime] = lambda: datetime.now(UTC),
                 sleep: Callable[[float], None] | None = None) -> None:
        self.config = config
        self._now = now
        self._sleep = sleep
        self.stats: dict[str, int] = {"candidates": 0, "fetched": 0, "not_fresh": 0, "failed": 0}

    def _client(self, timeout_s: float | None = None) -> PoliteClient:
        policy = self.config.policy(timeout_s)
        return PoliteClient(policy, sleep=self._sleep) if self._sleep else PoliteClient(policy)

    def fetch(self, limit: int | None = None) -> Iterator[Item]:
        limit = limit or self.config.limit
        with self._client(self.config.sparql_timeout_s) as sparql_http, self._client() as wiki_http:
            wd = WikidataClient(sparql_http, self.config.sparql_url, max_depth=self.config.max_split_depth,
                                max_queries=self.config.max_queries_per_category)
            mw = MediaWikiClient(wiki_http, self.config.api_url, self.config.rest_url, self.config.html_endpoint)
            for lang in self.config.all_languages():
                yield from self._language(wd, mw, lang, limit)

    def _language(self, wd: WikidataClient, mw: MediaWikiClient, lang: str, limit: int | None) -> Iterator[Item]:
        cfg = self.config
        others = [x for x in cfg.all_languages() if x != lang] if cfg.require_all_languages else []
        years = list(range(cfg.since.year, self._now().year + 1)) if cfg.title_year_filter else []
        groups: list[list[Candidate]] = []
        for cat in cfg.categories:
            try:
                found, failures = wd.candidates(cat, cfg.since, lang, also_languages=others, limit=cfg.query_limit,
                                                title_years=years)
            except (KeyError, TypeError, ValueError, AttributeError) as e:  # an answer no one expected
                yield Failure(f"wd:{cat.qid} ({cat.prop or 'created'}, {lang})",
                              f"unusable Wikidata answer: {type(e).__name__}: {e}", "wikidata")
                continue
            yield from failures
            found.sort(key=lambda c: (c.event_date, c.qid), reverse=True)
            groups.append(found)
        produced = 0
        for cand in _round_robin(groups):
            if limit is not None and produced >= limit:
                return
            self.stats["candidates"] += 1
            item = self._page(mw, cand)
            if isinstance(item, Fetched):
                produced += 1
                self.stats["fetched"] += 1
            yield item

    def _page(self, mw: MediaWikiClient, c: Candidate) -> Item:
        """One candidate page: fetched, or a Failure with its reason. Whatever its answers hold, one page
        never ends the run."""
        where = c.article_url or f"https://{c.language}.wikipedia.org/wiki/{quote(c.title.replace(' ', '_'))}"
        try:
            return self._fetch_page(mw, c, where)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
            self.stats["failed"] += 1
            log.warning("page %s: unusable answer: %s: %s", where, type(e).__name__, e)
            return Failure(where, f"unusable answer: {type(e).__name__}: {e}", self.name)

    def _fetch_page(self, mw: MediaWikiClient, c: Candidate, where: str) -> Item:
        cfg = self.config
        try:
            first = mw.first_revision(c.language, c.title)
        except (HttpError, MediaWikiError) as e:
            self.stats["failed"] += 1
            return Failure(where, f"could not read the page's first revision: {e}", self.name)
        if not is_fresh(first.timestamp, c.event_date, cfg.since, require_created_after=cfg.require_created_after):
            self.stats["not_fresh"] += 1
            event = f"its event date {c.event_date} does not count (require_created_after)" if c.event_date \
                else "it has no event date after the cutoff"
            return Failure(where, f"not fresh: the page was created on {first.timestamp}, before the cutoff "
                                  f"{cfg.since.isoformat()}, and {event}", self.name)
        now = self._now()
        if cfg.skip_future_events and c.event_date and _ts(c.event_date) > now:
            return Failure(where, f"the event ({c.event_date}) has not happened yet at {now.date().isoformat()}; "
                                  "its tables would be mostly empty", self.name)
        try:
            page = mw.page_html(c.language, c.title)
        except (HttpError, MediaWikiError) as e:
            self.stats["failed"] += 1
            return Failure(where, f"could not fetch the page HTML: {e}", self.name)
        created = max(_ts(first.timestamp), _ts(c.event_date)) if c.event_date else _ts(first.timestamp)
        uri = (f"https://{c.language}.wikipedia.org/w/index.php?title={quote(page.title.replace(' ', '_'))}"
               f"&oldid={page.revid}")
        meta = SourceMeta(
            kind=self.name, uri=uri, title=page.title, revision=str(page.revid),
            created_at=created.isoformat().replace("+00:00", "Z"),
            retrieved_at=now.isoformat(timespec="seconds").replace("+00:00", "Z"), licence=LICENCE,
            attribution=f"“{page.title}”, {c.language}.wikipedia.org, revision {page.revid}, by Wikipedia "
                        f"contributors, {LICENCE}; found through Wikidata item {c.qid}",
        )
        return Fetched(meta=meta, language=c.language, domain=c.domain, html=page.html, event_date=c.event_date,
                       page_created_at=first.timestamp, revision_at=page.timestamp, format="html",
                       extra={"wikidata": c.qid, "class_path": "/".join(c.class_path),
                              "category": f"{c.category.qid}/{c.category.prop}/{c.category.domain}"})


@register_source("wikipedia", config=WikipediaConfig)
def _build(config: WikipediaConfig) -> WikipediaSource:
    return WikipediaSource(config)
