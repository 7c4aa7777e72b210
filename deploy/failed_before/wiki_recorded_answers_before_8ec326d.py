"""Answers shaped like recorded Wikidata and MediaWiki answers, including partial and malformed ones,
replayed through a local server into `livetab scrape`: every answer the client cannot use becomes that
page's (or that category's) recorded failure with a reason, and every other page is still scraped.

Adapted from 8ec326d:services/scraper/tests/test_wiki_recorded_answers.py to the code before that commit
(4335fa2): its `livetab scrape` had no --wikidata-url/--mediawiki-url/--option (one of the failures), so
the CLI call is replaced by what that command did (`_scrape_as_the_cli_did`: scrape_live, then the same
two files) with the URLs and options as source config keys; every assertion is unchanged."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from livetab.paths import shared_data
from test_wiki_fake_server import FakeItem, FakeWikimedia, serve_fake

REAL_PAGE = (shared_data() / "wiki_html" / "pages" / "203-0.html").read_text(encoding="utf-8")
DATE = {"wdt:P585": "2026-10-20T00:00:00Z"}
TS = "2026-10-21T00:00:00Z"


def _query(pages: object, **extra: object) -> str:
    return json.dumps({"batchcomplete": "", **extra, "query": {"pages": pages}})


def _v1_page(pageid: int, title: str, revid: int) -> dict[str, object]:
    return {str(pageid): {"pageid": pageid, "ns": 0, "title": title,
                          "revisions": [{"revid": revid, "parentid": 0, "timestamp": TS}]}}


# title -> (answer to the revisions query, answer to parse or None for the fake's own, what the run must record)
CASES: dict[str, tuple[str | None, str | None, str]] = {
    "Good two": (None, None, "fetched"),
    "Good one": (_query(_v1_page(4242, "Good one", 555), **{"continue": {"rvcontinue": "20261021|556",
                                                                         "continue": "||"}},
                        ), json.dumps({"parse": {"title": "Good one", "pageid": 4242, "revid": 555,
                                                 "text": {"*": REAL_PAGE}}}), "fetched"),
    "Good normalized": (json.dumps({"batchcomplete": True, "query": {
        "normalized": [{"fromencoded": False, "from": "Good_normalized", "to": "Good normalized"}],
        "pages": [{"pageid": 77, "ns": 0, "title": "Good normalized",
                   "revisions": [{"revid": 777, "parentid": 0, "timestamp": TS}]}]}}),
                        json.dumps({"parse": {"title": "Good normalized", "pageid": 77, "revid": 777,
                                              "text": REAL_PAGE}}), "fetched"),
    "Missing one": (_query({"-1": {"ns": 0, "title": "Missing one", "missing": ""}}), None, "missingtitle"),
    "No revid": (_query([{"pageid": 5, "ns": 0, "title": "No revid",
                          "revisions": [{"parentid": 0, "timestamp": TS}]}]), None, "revid"),
    "Bad revid": (_query([{"pageid": 5, "ns": 0, "title": "Bad revid",
                           "revisions": [{"revid": "abc", "timestamp": TS}]}]), None, "revid"),
    "Bad timestamp": (_query([{"pageid": 6, "ns": 0, "title": "Bad timestamp",
                               "revisions": [{"revid": 61, "timestamp": "yesterday"}]}]), None, "timestamp"),
    "Revisions object": (_query([{"pageid": 7, "ns": 0, "title": "Revisions object",
                                  "revisions": {"revid": 71, "timestamp": TS}}]), None, "revisions"),
    "Pages string": (_query("oops"), None, "pages"),
    "Page list of lists": (_query([["x"]]), None, "page"),
    "No query": (json.dumps({"batchcomplete": True, "warnings": {"main": {"*": "Unrecognized parameter"}}}),
                 None, "no page"),
    "Parse bad revid": (_query([{"pageid": 8, "ns": 0, "title": "Parse bad revid",
                                 "revisions": [{"revid": 81, "timestamp": TS}]}]),
                        json.dumps({"parse": {"title": "Parse bad revid", "revid": "x81", "text": "<p/>"}}), "revid"),
    "Parse no text": (_query([{"pageid": 9, "ns": 0, "title": "Parse no text",
                               "revisions": [{"revid": 91, "timestamp": TS}]}]),
                      json.dumps({"parse": {"title": "Parse no text", "revid": 91}}), "no page text"),
    "Not JSON": ("<html>Wikimedia Error</html>", None, "not JSON"),
}


PARSED_REVID = {"Good one": 555, "Good normalized": 777, "Parse bad revid": 81, "Parse no text": 91}


def _scrape_as_the_cli_did(out: Path, *, since: str, limit: int, contact: str, **options: object) -> None:
    """Adaptation: what 4335fa2's `livetab scrape --source wikipedia` did (scrape_live, then tables.jsonl and
    failures.jsonl), with the base URLs and options as source config keys, which its CLI could not pass."""
    from google.protobuf.json_format import MessageToDict
    from livetab_scraper.sources.base import Failure, Fetched
    from livetab_scraper.sources.live import scrape_live

    out.mkdir(parents=True, exist_ok=True)
    items = scrape_live("wikipedia", since=since, lang="en", limit=limit, cache_dir=out / "http-cache",
                        contact=contact, **options)
    with (out / "tables.jsonl").open("w", encoding="utf-8") as f, (out / "failures.jsonl").open("w") as fail:
        for item in items:
            if isinstance(item, Fetched):
                for t in item.tables:
                    f.write(json.dumps(MessageToDict(t.to_proto(), preserving_proto_field_name=True)) + "\n")
            elif isinstance(item, Failure):
                fail.write(json.dumps({"location": item.location, "reason": item.reason}) + "\n")


@pytest.fixture
def recorded() -> Iterator[FakeWikimedia]:
    for fake in serve_fake():
        fake.items = [FakeItem(f"Q{i + 1}", "Q40231", {"en": title}, DATE) for i, title in enumerate(CASES)]
        fake.items.append(FakeItem("Q900", "Q1656682", {"en": "Unreached"}, DATE))
        fake.add_page("en", "Good two", [(400, TS)], REAL_PAGE)
        for title, (revisions, parse, _) in CASES.items():
            if revisions is not None:
                fake.raw_revisions[title] = revisions
            if parse is not None:
                fake.raw_parse[PARSED_REVID[title]] = parse
        # a second category whose SPARQL answer has a binding that is not an object
        fake.raw_sparql["Q1656682"] = json.dumps({"head": {"vars": ["item"]}, "results": {"bindings": [42]}})
        yield fake


def test_every_unusable_answer_is_that_pages_failure_and_the_rest_is_scraped(recorded: FakeWikimedia,
                                                                            tmp_path: Path) -> None:
    out = tmp_path / "scrape"
    _scrape_as_the_cli_did(
        out, since="2026-10-01", limit=50, contact="tests@example.org", sparql_url=recorded.url + "/sparql",
        api_url=recorded.url + "/{lang}/w/api.php", min_interval_s=0,
        categories="Q40231/P585/politics,Q1656682/P585/culture", backoff_base_s=0.01)
    tables = [json.loads(line) for line in (out / "tables.jsonl").read_text().splitlines()]
    failures = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    scraped = {t["source"]["title"] for t in tables}
    assert scraped == {t for t, (_, _, want) in CASES.items() if want == "fetched"}
    by_page = {f["location"].rsplit("/", 1)[-1].replace("_", " "): f["reason"] for f in failures}
    for title, (_, _, want) in CASES.items():
        if want != "fetched":
            assert want in by_page.get(title, ""), (title, by_page.get(title))
    sparql = [f for f in failures if "Q1656682" in f["location"]]
    assert len(sparql) == 1 and "SPARQL" in sparql[0]["reason"]
    asked = [e.params for e in recorded.log if e.path.endswith("/api.php")]
    assert asked and all(p["format"] == "json" for p in asked)  # the options reached the client
