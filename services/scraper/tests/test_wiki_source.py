"""Wikidata candidates and Wikipedia pages against a local server speaking the documented formats."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from livetab.paths import shared_data
from livetab_scraper.sources import Failure, Fetched, SourceConfigError, build_source, scrape_live
from livetab_scraper.sources.http import HttpPolicy, PoliteClient
from livetab_scraper.sources.wikidata import Category, WikidataClient, items_query
from livetab_scraper.sources.wikipedia import WikipediaConfig, WikipediaSource, is_fresh
from test_wiki_fake_server import FakeItem, FakeWikimedia, serve_fake

CUTOFF = date(2026, 10, 1)
NOW = datetime(2026, 11, 30, tzinfo=UTC)
REAL_PAGE = (shared_data() / "wiki_html" / "pages" / "203-0.html").read_text(encoding="utf-8")


@pytest.fixture
def fake_wiki() -> Iterator[FakeWikimedia]:
    yield from serve_fake()


def wd_client(fake: FakeWikimedia, timeout_s: float = 5.0, max_depth: int = 2, max_queries: int = 60) -> WikidataClient:
    policy = HttpPolicy(contact="tests@example.org", timeout_s=timeout_s, min_interval_s=0.0, backoff_base_s=0.01)
    return WikidataClient(PoliteClient(policy, rng=random.Random(1)), fake.url + "/sparql", max_depth=max_depth,
                          max_queries=max_queries)


def source(fake: FakeWikimedia, tmp_path: Path | None = None, **kw: Any) -> WikipediaSource:
    cfg: dict[str, Any] = {
        "since": "2026-10-01", "contact": "tests@example.org", "sparql_url": fake.url + "/sparql",
        "api_url": fake.url + "/{lang}/w/api.php",
        "rest_url": fake.url + "/{lang}/api/rest_v1/page/html/{title}/{revid}",
        "min_interval_s": 0, "backoff_base_s": 0.01, "backoff_max_s": 0.02, "cache_dir": str(tmp_path) if tmp_path else None,
        **kw,
    }
    return WikipediaSource(WikipediaConfig.model_validate(cfg), now=lambda: NOW)


def split_world(fake: FakeWikimedia) -> None:
    """Q100 is too big to query whole; its subclasses Q101 and Q102 (with Q103 under it) are not."""
    fake.subclasses = {"Q100": ["Q101", "Q102"], "Q102": ["Q103"]}
    fake.slow_classes = {"Q100"}
    fake.sleep_s = 0.8
    fake.items = [
        FakeItem("Q1", "Q100", {"en": "Direct event"}, {"wdt:P585": "2026-10-03T00:00:00Z"}),
        FakeItem("Q2", "Q101", {"en": "Sub event"}, {"wdt:P585": "2026-10-20T00:00:00Z"}),
        FakeItem("Q3", "Q103", {"en": "Deep event"}, {"wdt:P585": "2026-11-02T00:00:00Z"}),
        FakeItem("Q4", "Q102", {"en": "Old event"}, {"wdt:P585": "2025-05-01T00:00:00Z"}),
    ]


def test_a_timed_out_class_is_split_into_its_subclasses(fake_wiki: FakeWikimedia) -> None:
    split_world(fake_wiki)
    wd = wd_client(fake_wiki, timeout_s=0.25)
    found, failures = wd.candidates(Category("Q100", "P585", "other"), CUTOFF, "en")
    assert failures == []
    assert sorted(c.qid for c in found) == ["Q1", "Q2", "Q3"]
    assert wd.splits == 1
    queries = [e.params["query"] for e in fake_wiki.log]
    assert any("?sub wdt:P279 wd:Q100" in q for q in queries)
    assert any("?item wdt:P31 wd:Q100 ." in q for q in queries), "direct instances of the split class were lost"
    deep = next(c for c in found if c.qid == "Q3")
    assert deep.class_path == ("Q100", "Q102") and deep.event_date == "2026-11-02"


def test_a_query_service_timeout_answer_also_splits(fake_wiki: FakeWikimedia) -> None:
    split_world(fake_wiki)
    fake_wiki.slow_classes = set()
    fake_wiki.server_timeout_classes = {"Q100", "Q102"}
    wd = wd_client(fake_wiki)
    found, failures = wd.candidates(Category("Q100", "P585", "other"), CUTOFF, "en")
    assert sorted(c.qid for c in found) == ["Q1", "Q2", "Q3"] and failures == []
    assert wd.splits == 2


def test_splitting_stops_at_max_depth_with_a_recorded_reason(fake_wiki: FakeWikimedia) -> None:
    split_world(fake_wiki)
    fake_wiki.slow_classes = set()
    fake_wiki.server_timeout_classes = {"Q100", "Q102"}
    found, failures = wd_client(fake_wiki, max_depth=1).candidates(Category("Q100", "P585", "other"), CUTOFF, "en")
    assert sorted(c.qid for c in found) == ["Q1", "Q2"]
    assert len(failures) == 1 and "wd:Q102" in failures[0].location and "not split further" in failures[0].reason


def test_the_query_budget_bounds_a_broad_split_and_says_what_was_left_out(fake_wiki: FakeWikimedia) -> None:
    split_world(fake_wiki)
    fake_wiki.slow_classes = set()
    fake_wiki.server_timeout_classes = {"Q100"}
    wd = wd_client(fake_wiki, max_queries=3)  # whole class, its direct instances, then one subclass
    found, failures = wd.candidates(Category("Q100", "P585", "other"), CUTOFF, "en")
    assert sorted(c.qid for c in found) == ["Q1", "Q2"]
    assert len(failures) == 1 and "budget of 3" in failures[0].reason and "Q102" in failures[0].reason


def test_items_query_asks_for_class_date_cutoff_and_sitelink() -> None:
    q = items_query("Q27020041", Category("Q27020041", "P2348", "sport"), CUTOFF, "de", also_languages=["sv"])
    assert "?item wdt:P31/wdt:P279* wd:Q27020041 ." in q
    assert "?item wdt:P2348/wdt:P580 ?date ." in q
    assert '"2026-10-01T00:00:00Z"^^xsd:dateTime' in q
    assert "schema:isPartOf <https://de.wikipedia.org/>" in q and "<https://sv.wikipedia.org/>" in q
    with pytest.raises(ValueError):
        items_query("Q1", Category("Q1", "P585", "sport"), CUTOFF, "en; DROP")


def fresh_world(fake: FakeWikimedia) -> None:
    fake.items = [
        # a list page: no event date, so only its creation date can make it fresh
        FakeItem("Q10", "Q13406463", {"en": "List of storms in 2026"}),
        FakeItem("Q11", "Q13406463", {"en": "List of bridges in 2026"}),
        # an election held after the cutoff whose page was started years before
        FakeItem("Q12", "Q40231", {"en": "2026 Ruritanian election", "de": "Wahl in Ruritanien 2026"},
                 {"wdt:P585": "2026-10-18T00:00:00Z"}),
        # a match with a sport: the "auto" category labels it sport
        FakeItem("Q13", "Q1656682", {"en": "2026 Cup final"}, {"wdt:P585": "2026-10-25T00:00:00Z"}, ["Q2736"]),
        FakeItem("Q14", "Q1656682", {"en": "2026 Poetry night"}, {"wdt:P585": "2026-11-05T00:00:00Z"}),
        FakeItem("Q15", "Q1656682", {"en": "2026 Future fair"}, {"wdt:P585": "2026-12-20T00:00:00Z"}),
    ]
    fake.add_page("en", "List of storms in 2026", [(100, "2019-03-01T10:00:00Z"), (190, "2026-10-30T10:00:00Z")],
                  REAL_PAGE)
    fake.add_page("en", "List of bridges in 2026", [(200, "2026-10-10T08:00:00Z"), (290, "2026-11-01T09:00:00Z")],
                  REAL_PAGE)
    fake.add_page("en", "2026 Ruritanian election", [(300, "2024-01-05T00:00:00Z"), (390, "2026-10-19T00:00:00Z")],
                  REAL_PAGE)
    fake.add_page("de", "Wahl in Ruritanien 2026", [(301, "2025-02-01T00:00:00Z"), (391, "2026-10-20T00:00:00Z")],
                  REAL_PAGE)
    fake.add_page("en", "2026 Cup final", [(400, "2026-10-26T00:00:00Z")], REAL_PAGE)
    fake.add_page("en", "2026 Poetry night", [(500, "2026-11-06T00:00:00Z")], "<p>no tables here</p>")
    fake.add_page("en", "2026 Future fair", [(600, "2026-09-01T00:00:00Z")], REAL_PAGE)


CATS = ["Q13406463//other", "Q40231/P585/politics", "Q1656682/P585/auto"]


def by_title(items: list[Fetched | Failure]) -> dict[str, Fetched | Failure]:
    out: dict[str, Fetched | Failure] = {}
    for it in items:
        key = it.meta.title if isinstance(it, Fetched) else it.location.rsplit("/", 1)[-1].replace("_", " ")
        out[key] = it
    return out


def test_a_page_created_before_the_cutoff_is_rejected_as_not_fresh(fake_wiki: FakeWikimedia) -> None:
    fresh_world(fake_wiki)
    items = by_title(list(source(fake_wiki, categories=CATS).fetch()))
    storms = items["List of storms in 2026"]
    assert isinstance(storms, Failure)
    assert "not fresh" in storms.reason and "2019-03-01" in storms.reason
    assert isinstance(items["List of bridges in 2026"], Fetched)
    # created before the cutoff, but the event is after it: fresh (FreshTab's rule) ...
    assert isinstance(items["2026 Ruritanian election"], Fetched)
    # ... and an event that has not happened yet is skipped
    fair = items["2026 Future fair"]
    assert isinstance(fair, Failure) and "has not happened yet" in fair.reason
    # only the first revision of rejected pages was asked for, never their HTML
    parsed = [e.params.get("oldid") for e in fake_wiki.log if e.params.get("action") == "parse"]
    assert "190" not in parsed


def test_require_created_after_rejects_old_pages_of_new_events(fake_wiki: FakeWikimedia) -> None:
    fresh_world(fake_wiki)
    items = by_title(list(source(fake_wiki, categories=["Q40231/P585/politics"], require_created_after=True).fetch()))
    election = items["2026 Ruritanian election"]
    assert isinstance(election, Failure) and "not fresh" in election.reason


def test_fetched_pages_carry_revision_dates_licence_and_domain(fake_wiki: FakeWikimedia) -> None:
    fresh_world(fake_wiki)
    items = by_title(list(source(fake_wiki, categories=CATS).fetch()))
    final = items["2026 Cup final"]
    assert isinstance(final, Fetched)
    assert final.domain == "sport" and final.language == "en" and final.html == REAL_PAGE
    assert final.meta.revision == "400" and final.meta.uri.endswith("oldid=400")
    assert final.meta.licence == "CC BY-SA 4.0" and "Wikipedia contributors" in final.meta.attribution
    assert final.page_created_at == "2026-10-26T00:00:00Z" and final.event_date == "2026-10-25"
    assert final.meta.created_at == "2026-10-26T00:00:00Z"
    assert final.extra["wikidata"] == "Q13"
    poetry = items["2026 Poetry night"]
    assert isinstance(poetry, Fetched) and poetry.domain == "culture"
    election = items["2026 Ruritanian election"]
    assert isinstance(election, Fetched) and election.domain == "politics"
    assert election.meta.revision == "390" and election.revision_at == "2026-10-19T00:00:00Z"
    assert election.meta.created_at == "2026-10-18T00:00:00Z", "created_at is the later of creation and event"
    for e in fake_wiki.log:
        if e.path.endswith("api.php"):
            assert e.params["maxlag"] == "5"


def test_each_language_needs_its_own_sitelink(fake_wiki: FakeWikimedia) -> None:
    fresh_world(fake_wiki)
    items = list(source(fake_wiki, categories=CATS, languages="de").fetch())
    fetched = [i for i in items if isinstance(i, Fetched)]
    assert [f.meta.title for f in fetched] == ["Wahl in Ruritanien 2026"]
    assert fetched[0].language == "de" and "de.wikipedia.org" in fetched[0].meta.uri
    both = list(source(fake_wiki, categories=CATS, languages="en,de", require_all_languages=True).fetch())
    assert {i.meta.title for i in both if isinstance(i, Fetched)} == {"2026 Ruritanian election",
                                                                      "Wahl in Ruritanien 2026"}


def test_limit_counts_pages_and_mixes_categories(fake_wiki: FakeWikimedia) -> None:
    fresh_world(fake_wiki)
    fetched = [i for i in source(fake_wiki, categories=CATS).fetch(limit=3) if isinstance(i, Fetched)]
    assert len(fetched) == 3
    assert {f.domain for f in fetched} >= {"politics", "other"}


def test_a_rerun_is_served_from_the_cache(fake_wiki: FakeWikimedia, tmp_path: Path) -> None:
    fresh_world(fake_wiki)
    first = list(source(fake_wiki, tmp_path, categories=CATS).fetch())
    n = fake_wiki.count()
    assert n > 0
    second = list(source(fake_wiki, tmp_path, categories=CATS).fetch())
    assert fake_wiki.count() == n, "the re-run asked the servers again"
    assert [type(i) for i in first] == [type(i) for i in second]
    assert [i.meta.uri for i in first if isinstance(i, Fetched)] == [i.meta.uri for i in second if isinstance(i, Fetched)]


def test_rest_html_endpoint(fake_wiki: FakeWikimedia) -> None:
    fresh_world(fake_wiki)
    fetched = [i for i in source(fake_wiki, categories=["Q40231/P585/politics"], html_endpoint="rest").fetch()
               if isinstance(i, Fetched)]
    assert len(fetched) == 1 and fetched[0].html == REAL_PAGE
    assert any("/api/rest_v1/page/html/2026_Ruritanian_election/390" in e.path for e in fake_wiki.log)


def test_a_missing_page_is_a_failure_not_a_crash(fake_wiki: FakeWikimedia) -> None:
    fake_wiki.items = [FakeItem("Q20", "Q40231", {"en": "Ghost election"}, {"wdt:P585": "2026-10-10T00:00:00Z"})]
    items = list(source(fake_wiki, categories=["Q40231/P585/politics"]).fetch())
    assert len(items) == 1 and isinstance(items[0], Failure) and "missingtitle" in items[0].reason


def test_scrape_live_extracts_tables_from_fetched_pages(fake_wiki: FakeWikimedia, tmp_path: Path) -> None:
    fresh_world(fake_wiki)
    items = scrape_live("wikipedia", since="2026-10-01", lang="en", limit=20, cache_dir=tmp_path,
                        contact="tests@example.org", categories=CATS, sparql_url=fake_wiki.url + "/sparql",
                        api_url=fake_wiki.url + "/{lang}/w/api.php", min_interval_s=0, skip_future_events=False)
    fetched = [i for i in items if isinstance(i, Fetched)]
    assert len(fetched) == 5
    final = next(f for f in fetched if f.meta.title == "2026 Cup final")
    assert final.tables and all(t.domain == "sport" and t.source.revision == "400" for t in final.tables)
    assert final.tables[0].id != next(f for f in fetched if f.meta.title == "List of bridges in 2026").tables[0].id
    poetry = next(f for f in fetched if f.meta.title == "2026 Poetry night")
    assert poetry.tables == [] and any("extraction:" in n for n in poetry.notes)


def test_freshness_rule() -> None:
    assert is_fresh("2026-10-01T00:00:00Z", "", CUTOFF)
    assert not is_fresh("2026-09-30T23:59:59Z", "", CUTOFF)
    assert is_fresh("2020-01-01T00:00:00Z", "2026-10-02", CUTOFF)
    assert not is_fresh("2020-01-01T00:00:00Z", "2026-10-02", CUTOFF, require_created_after=True)
    assert not is_fresh("2020-01-01T00:00:00Z", "2026-09-02", CUTOFF)


def test_config_errors_name_the_setting() -> None:
    base = {"kind": "wikipedia", "since": "2026-10-01", "contact": "a@b.c"}
    with pytest.raises(SourceConfigError, match="unknown setting 'colour'"):
        build_source({**base, "colour": "red"})
    with pytest.raises(SourceConfigError, match="contact"):
        build_source({**base, "contact": ""})
    with pytest.raises(SourceConfigError, match="categories"):
        build_source({**base, "categories": ["Q1/P999/sport"]})
    with pytest.raises(SourceConfigError, match="since"):
        build_source({"kind": "wikipedia", "contact": "a@b.c"})
    built = build_source({"kind": "wikipedia", "language": "sv", "options": {"since": "2026-10-01",
                                                                           "contact": "a@b.c", "query_limit": "50"}})
    assert isinstance(built, WikipediaSource)
    assert built.config.all_languages() == ["sv"]
    assert built.config.query_limit == 50
