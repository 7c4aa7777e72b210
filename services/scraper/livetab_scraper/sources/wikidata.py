"""Candidate fresh pages from the Wikidata query service (SPARQL).

A category is a (class QID, date property, domain) triple, as in FreshTab. Items that are instances
of the class or of any subclass (`wdt:P31/wdt:P279*`) with the date on or after the cutoff and a
sitelink to the target-language Wikipedia become candidates. The date property may be point in time
(P585), start time (P580), publication date (P577), inception (P571) or a sports season (P2348, whose
start time P580 is used); an empty property means "no event date": such candidates (e.g. list pages)
are fresh only if their page was created after the cutoff, which the MediaWiki step checks.

When a query times out, the class is split: its direct instances are queried alone, then each direct
subclass (`?sub wdt:P279 wd:Q…`) is queried in turn, recursively, down to `max_depth` levels and
at most `max_queries` queries per category (a broad class such as "event" has hundreds of subclasses);
what was left out is reported as a `Failure`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from livetab_scraper.sources.base import Failure
from livetab_scraper.sources.http import HttpError, PoliteClient, RequestTimedOut

__all__ = [
    "DATE_PATHS",
    "DEFAULT_CATEGORIES",
    "DOMAINS",
    "WDQS_URL",
    "Candidate",
    "Category",
    "QueryTimeout",
    "WikidataClient",
    "items_query",
    "subclasses_query",
]

log = logging.getLogger(__name__)

WDQS_URL = "https://query.wikidata.org/sparql"
SPARQL_JSON = "application/sparql-results+json"
ENTITY = "http://www.wikidata.org/entity/"
DOMAINS = ("sport", "politics", "culture", "other", "auto")
DATE_PATHS = {
    "P585": "wdt:P585",  # point in time
    "P580": "wdt:P580",  # start time
    "P577": "wdt:P577",  # publication date
    "P571": "wdt:P571",  # inception
    "P2348": "wdt:P2348/wdt:P580",  # time period (sports season) -> its start time
    "P569": "wdt:P569",  # date of birth (FreshTab's people strategy)
}
_QID = re.compile(r"^Q[1-9][0-9]*$")
_LANG = re.compile(r"^[a-z]{2,3}(-[a-z0-9]+)*$")
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}")  # a date a SPARQL answer gives (an xsd:dateTime)


class QueryTimeout(Exception):
    """The query service gave up (HTTP 500 with a TimeoutException) or did not answer in time."""


@dataclass(frozen=True)
class Category:
    qid: str
    prop: str
    domain: str

    def __post_init__(self) -> None:
        if not _QID.match(self.qid):
            raise ValueError(f"category class {self.qid!r} is not a Wikidata item id like Q40231")
        if self.prop and self.prop not in DATE_PATHS:
            raise ValueError(f"category {self.qid}: date property {self.prop!r} is not one of "
                             + ", ".join(DATE_PATHS) + " (or empty for pages created after the cutoff)")
        if self.domain not in DOMAINS:
            raise ValueError(f"category {self.qid}: domain {self.domain!r} is not one of " + ", ".join(DOMAINS))

    @classmethod
    def parse(cls, value: Any) -> Category:
        """From `Category`, `(qid, prop, domain)`, `{qid, property, domain}` or the string `"Q1/P585/sport"`."""
        if isinstance(value, Category):
            return value
        if isinstance(value, str):
            parts = [p.strip() for p in re.split(r"[/:]", value)]
            if len(parts) != 3:
                raise ValueError(f"category {value!r} must read QID/PROPERTY/DOMAIN, e.g. Q40231/P585/politics")
            return cls(*parts)
        if isinstance(value, dict):
            return cls(str(value.get("qid", "")), str(value.get("property", value.get("prop", "")) or ""),
                       str(value.get("domain", "other")))
        if isinstance(value, (list, tuple)) and len(value) == 3:
            return cls(str(value[0]), str(value[1] or ""), str(value[2]))
        raise ValueError(f"category {value!r} must be a (QID, property, domain) triple")


# FreshTab-style defaults; edit them in the YAML config. "auto" = sport if the item has a sport (P641),
# else culture.
DEFAULT_CATEGORIES: tuple[Category, ...] = (
    Category("Q40231", "P585", "politics"),   # public election
    Category("Q16510064", "P585", "sport"),   # sporting event
    Category("Q16510064", "P580", "sport"),
    Category("Q27020041", "P580", "sport"),   # sports season
    Category("Q1656682", "P585", "auto"),     # event
    Category("Q132241", "P580", "culture"),   # festival
    Category("Q4504495", "P585", "culture"),  # award ceremony
    Category("Q482994", "P577", "culture"),   # album
    Category("Q11424", "P577", "culture"),    # film
    Category("Q7889", "P577", "culture"),     # video game
    Category("Q3839081", "P585", "other"),    # disaster
    Category("Q13406463", "", "other"),       # Wikimedia list article (fresh only if created after the cutoff)
)


@dataclass(frozen=True)
class Candidate:
    qid: str
    language: str
    title: str
    article_url: str
    event_date: str
    domain: str
    category: Category
    class_path: tuple[str, ...] = field(default=())


def _site(lang: str) -> str:
    return f"<https://{lang}.wikipedia.org/>"


def items_query(cls_qid: str, category: Category, cutoff: date, language: str, *,
                also_languages: Sequence[str] = (), direct_only: bool = False, limit: int = 200,
                title_years: Sequence[int] = ()) -> str:
    """The SPARQL for items of `cls_qid` (and its subclasses unless `direct_only`) fresh after `cutoff`."""
    for lang in (language, *also_languages):
        if not _LANG.match(lang):
            raise ValueError(f"language {lang!r} is not a Wikipedia language code")
    lines = [
        "SELECT ?item ?date ?sport ?title ?article WHERE {",
        f"  ?item wdt:P31 wd:{cls_qid} ." if direct_only else f"  ?item wdt:P31/wdt:P279* wd:{cls_qid} .",
    ]
    if category.prop:
        lines += [f"  ?item {DATE_PATHS[category.prop]} ?date .",
                  f'  FILTER(?date >= "{cutoff.isoformat()}T00:00:00Z"^^xsd:dateTime)']
    lines.append(f"  ?article schema:about ?item ; schema:isPartOf {_site(language)} ; schema:name ?title .")
    for i, lang in enumerate(also_languages):
        if lang != language:
            lines.append(f"  ?sitelink{i} schema:about ?item ; schema:isPartOf {_site(lang)} .")
    if title_years and not category.prop:
        years = "|".join(str(y) for y in title_years)
        lines.append(f'  FILTER(REGEX(STR(?title), "({years})"))')
    lines += ["  OPTIONAL { ?item wdt:P641 ?sport . }", "}", f"LIMIT {int(limit)}"]
    return "\n".join(lines)


def subclasses_query(cls_qid: str) -> str:
    return f"SELECT ?sub WHERE {{ ?sub wdt:P279 wd:{cls_qid} . }}"


def _qid(uri: str) -> str:
    return uri[len(ENTITY):] if uri.startswith(ENTITY) else uri


class WikidataClient:
    def __init__(self, http: PoliteClient, endpoint: str = WDQS_URL, *, max_depth: int = 2,
                 max_queries: int = 60) -> None:
        self.http = http
        self.endpoint = endpoint
        self.max_depth = max_depth
        self.max_queries = max_queries
        self.queries = 0
        self.splits = 0

    def select(self, query: str) -> list[dict[str, str]]:
        """Run a SELECT; each binding as {variable: value}. Raises QueryTimeout or HttpError."""
        self.queries += 1
        try:
            r = self.http.get(self.endpoint, {"query": query, "format": "json"}, accept=SPARQL_JSON,
                              retry_on_timeout=False)
        except RequestTimedOut as e:
            raise QueryTimeout(str(e)) from None
        except HttpError as e:
            if e.status == 500 and "TimeoutException" in e.body:
                raise QueryTimeout(f"{e.url}: the query service timed out") from None
            raise
        data = r.json()
        try:
            bindings = data["results"]["bindings"]
            return [{str(k): str(v["value"]) for k, v in b.items()} for b in bindings]
        except (KeyError, TypeError, AttributeError) as e:
            raise HttpError(self.endpoint, r.status, f"not a SPARQL JSON result ({type(e).__name__}: {e})",
                            r.text[:300]) from None

    def subclasses(self, cls_qid: str) -> list[str]:
        rows = self.select(subclasses_query(cls_qid))
        return sorted({_qid(row["sub"]) for row in rows if "sub" in row})

    def candidates(self, category: Category, cutoff: date, language: str, *,
                   also_languages: Sequence[str] = (), limit: int = 200,
                   title_years: Sequence[int] = ()) -> tuple[list[Candidate], list[Failure]]:
        """Candidates of one category for one language, splitting the class on timeouts."""
        rows: list[tuple[dict[str, str], tuple[str, ...]]] = []
        failures: list[Failure] = []
        visited: set[str] = set()
        skipped: list[str] = []
        budget = [self.max_queries]

        def query(cls_qid: str, path: tuple[str, ...], direct_only: bool) -> list[dict[str, str]]:
            budget[0] -= 1
            return self.select(items_query(cls_qid, category, cutoff, language, also_languages=also_languages,
                                           direct_only=direct_only, limit=limit, title_years=title_years))

        def collect(cls_qid: str, path: tuple[str, ...], depth: int) -> None:
            if cls_qid in visited:
                return
            if budget[0] <= 0:
                skipped.append(cls_qid)
                return
            visited.add(cls_qid)
            where = f"wd:{cls_qid} ({category.prop or 'created'}, {language})"
            try:
                rows.extend((row, path) for row in query(cls_qid, path, direct_only=False))
                return
            except QueryTimeout as e:
                if depth >= self.max_depth:
                    failures.append(Failure(where, f"query timed out and the class was not split further "
                                                   f"(depth {depth} = max_depth): {e}", "wikidata"))
                    return
                log.info("query for %s timed out; splitting it into its subclasses", where)
                self.splits += 1
            except HttpError as e:
                failures.append(Failure(where, f"query failed: {e.reason}", "wikidata"))
                return
            try:
                rows.extend((row, path) for row in query(cls_qid, path, direct_only=True))
                subs = self.subclasses(cls_qid)
            except (QueryTimeout, HttpError) as e:
                failures.append(Failure(where, f"split after a timeout failed: {e}", "wikidata"))
                return
            for sub in subs:
                collect(sub, (*path, sub), depth + 1)

        collect(category.qid, (category.qid,), 0)
        if skipped:
            failures.append(Failure(f"wd:{category.qid} ({category.prop or 'created'}, {language})",
                                    f"query budget of {self.max_queries} used up; {len(skipped)} subclasses were not "
                                    f"queried: {', '.join(skipped[:10])}{' …' if len(skipped) > 10 else ''}",
                                    "wikidata"))
        return merge_rows(rows, category, language), failures


def merge_rows(rows: Iterable[tuple[dict[str, str], tuple[str, ...]]], category: Category,
               language: str) -> list[Candidate]:
    """One candidate per item: its earliest qualifying date, sport if any row names one."""
    by_item: dict[str, dict[str, Any]] = {}
    for row, path in rows:
        if "item" not in row or "title" not in row:
            continue
        qid = _qid(row["item"])
        if not _QID.match(qid) or not row["title"].strip():
            continue  # not an item, or no title: nothing to fetch
        entry = by_item.setdefault(qid, {"title": row["title"], "article": row.get("article", ""), "dates": [],
                                         "sport": False, "path": path})
        if row.get("date") and _DATE.match(row["date"]):
            entry["dates"].append(row["date"][:10])
        entry["sport"] = entry["sport"] or bool(row.get("sport"))
    out = []
    for qid, e in sorted(by_item.items()):
        domain = category.domain
        if domain == "auto":
            domain = "sport" if e["sport"] else "culture"
        out.append(Candidate(qid=qid, language=language, title=e["title"], article_url=e["article"],
                             event_date=min(e["dates"]) if e["dates"] else "", domain=domain,
                             category=category, class_path=e["path"]))
    return out
