"""The polite HTTP client against a local server: identification, maxlag, Retry-After, backoff, cache."""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from livetab_scraper.sources.http import HttpError, HttpPolicy, PoliteClient, RequestTimedOut, retry_after_seconds
from test_wiki_fake_server import FakeWikimedia, serve_fake


@pytest.fixture
def fake_wiki() -> Iterator[FakeWikimedia]:
    yield from serve_fake()


class Recorder:
    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def client(tmp_path: Path | None = None, sleep: Recorder | None = None, **kw: float) -> PoliteClient:
    opts = {"min_interval_s": 0.0, "backoff_base_s": 0.01, "backoff_max_s": 0.05, "timeout_s": 5.0, **kw}
    policy = HttpPolicy(contact="livetab-tests@example.org", cache_dir=tmp_path, **opts)  # type: ignore[arg-type]
    return PoliteClient(policy, sleep=sleep or time.sleep, rng=random.Random(7))


def _page(fake: FakeWikimedia) -> None:
    fake.add_page("en", "Page", [(10, "2026-10-02T00:00:00Z")], "<p>x</p>")


QUERY = {"action": "query", "prop": "revisions", "titles": "Page", "format": "json", "formatversion": "2"}


def test_user_agent_names_a_contact_and_api_calls_carry_maxlag(fake_wiki: FakeWikimedia) -> None:
    _page(fake_wiki)
    with client() as c:
        c.get(fake_wiki.url + "/en/w/api.php", QUERY, mediawiki=True)
        c.get(fake_wiki.url + "/sparql", {"query": "SELECT ?sub WHERE { ?sub wdt:P279 wd:Q1 . }"})
    api, sparql = fake_wiki.log
    assert "livetab-tests@example.org" in api.headers["User-Agent"]
    assert api.headers["User-Agent"].startswith("livetab/")
    assert api.params["maxlag"] == "5"
    assert "maxlag" not in sparql.params


def test_429_with_retry_after_waits_that_long_then_retries(fake_wiki: FakeWikimedia) -> None:
    _page(fake_wiki)
    fake_wiki.faults.append({"path": "/en/w/api.php", "kind": 429, "headers": {"Retry-After": "1"}})
    with client() as c:
        r = c.get(fake_wiki.url + "/en/w/api.php", QUERY, mediawiki=True)
    assert r.json()["query"]["pages"][0]["revisions"][0]["revid"] == 10
    first, second = fake_wiki.log
    assert second.at - first.at >= 0.9, "the retry came before Retry-After elapsed"  # 1.0-1.1 s, less arrival jitter
    assert c.retries == 1 and c.requests == 2


def test_503_with_an_http_date_retry_after(fake_wiki: FakeWikimedia) -> None:
    _page(fake_wiki)
    when = email.utils.formatdate(time.time() + 30, usegmt=True)
    fake_wiki.faults.append({"path": "/en/w/api.php", "kind": 503, "headers": {"Retry-After": when}})
    rec = Recorder()
    with client(sleep=rec) as c:
        c.get(fake_wiki.url + "/en/w/api.php", QUERY, mediawiki=True)
    assert len(rec.waits) == 1 and 27 <= rec.waits[0] <= 34
    assert fake_wiki.count() == 2


def test_maxlag_error_is_waited_out_and_retried(fake_wiki: FakeWikimedia) -> None:
    _page(fake_wiki)
    fake_wiki.faults.append({"path": "/en/w/api.php", "kind": "maxlag",
                             "headers": {"Retry-After": "5", "X-Database-Lag": "3"}})
    rec = Recorder()
    with client(sleep=rec) as c:
        r = c.get(fake_wiki.url + "/en/w/api.php", QUERY, mediawiki=True)
    assert "error" not in r.json()
    assert len(rec.waits) == 1 and 5.0 <= rec.waits[0] <= 5.5
    assert fake_wiki.count() == 2


def test_backoff_without_retry_after_is_jittered_and_bounded(fake_wiki: FakeWikimedia) -> None:
    _page(fake_wiki)
    fake_wiki.faults.append({"path": "/en/w/api.php", "kind": 503, "times": 3})
    rec = Recorder()
    with client(sleep=rec, backoff_base_s=0.5, backoff_max_s=1.5) as c:
        c.get(fake_wiki.url + "/en/w/api.php", QUERY, mediawiki=True)
    assert len(rec.waits) == 3
    caps = [0.5, 1.0, 1.5]
    for wait, cap in zip(rec.waits, caps, strict=True):
        assert cap * 0.5 <= wait <= cap
    assert len(set(rec.waits)) == 3


def test_gives_up_after_the_configured_number_of_retries(fake_wiki: FakeWikimedia) -> None:
    _page(fake_wiki)
    fake_wiki.faults.append({"path": "/en/w/api.php", "kind": 503, "times": 10})
    with client(max_retries=2) as c, pytest.raises(HttpError, match="gave up after 3 attempts"):
        c.get(fake_wiki.url + "/en/w/api.php", QUERY, mediawiki=True)
    assert fake_wiki.count() == 3


def test_retry_after_longer_than_the_cap_fails_clearly(fake_wiki: FakeWikimedia) -> None:
    fake_wiki.faults.append({"path": "/en/w/api.php", "kind": 429, "headers": {"Retry-After": "3600"}})
    with client(max_retry_after_s=60) as c, pytest.raises(HttpError, match="more than max_retry_after_s"):
        c.get(fake_wiki.url + "/en/w/api.php", QUERY, mediawiki=True)
    assert fake_wiki.count() == 1


class FakeClock:
    """Time that moves only when the client sleeps or the test says so: the limiter's spacing, exactly."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.waits: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.waits.append(round(seconds, 9))
        self.now += seconds


def test_rate_limit_spaces_requests_to_one_host(fake_wiki: FakeWikimedia) -> None:
    # The spacing is the client's: when it sends. The server's arrival times carry the scheduler's jitter on a
    # loaded machine (a CI run saw two arrivals closer than the interval), so the clock is the client's own.
    _page(fake_wiki)
    clock = FakeClock()
    policy = HttpPolicy(contact="livetab-tests@example.org", min_interval_s=0.15, timeout_s=5.0)
    url = fake_wiki.url + "/en/w/api.php"
    with PoliteClient(policy, sleep=clock.sleep, clock=clock, rng=random.Random(7)) as c:
        for i in range(3):
            c.get(url, {**QUERY, "n": i}, mediawiki=True)
        assert clock.waits == [0.15, 0.15]  # back to back: each waits the whole interval
        clock.now += 0.1
        c.get(url, {**QUERY, "n": 3}, mediawiki=True)
        assert clock.waits[-1] == pytest.approx(0.05)  # only what is left of it
        clock.now += 0.2
        c.get(url, {**QUERY, "n": 4}, mediawiki=True)
        other = fake_wiki.url.replace("127.0.0.1", "localhost") + "/en/w/api.php"
        c.get(other, {**QUERY, "n": 5}, mediawiki=True)
        assert len(clock.waits) == 3  # none once the interval has passed, none for another host
    assert fake_wiki.count() == 6


def test_a_timeout_is_raised_without_retry_when_asked(fake_wiki: FakeWikimedia) -> None:
    fake_wiki.slow_classes.add("Q5")
    fake_wiki.sleep_s = 0.6
    query = "SELECT ?item WHERE {\n  ?item wdt:P31/wdt:P279* wd:Q5 .\n}"
    with client(timeout_s=0.2) as c, pytest.raises(RequestTimedOut):
        c.get(fake_wiki.url + "/sparql", {"query": query}, retry_on_timeout=False)
    assert fake_wiki.count() == 1


def test_a_rerun_is_answered_from_the_disk_cache(fake_wiki: FakeWikimedia, tmp_path: Path) -> None:
    _page(fake_wiki)
    with client(tmp_path) as c:
        first = c.get(fake_wiki.url + "/en/w/api.php", QUERY, mediawiki=True)
    assert fake_wiki.count() == 1 and not first.from_cache
    with client(tmp_path) as again:
        second = again.get(fake_wiki.url + "/en/w/api.php", dict(reversed(QUERY.items())), mediawiki=True)
    assert fake_wiki.count() == 1, "the re-run hit the server"
    assert second.from_cache and second.text == first.text
    assert again.cache is not None and again.cache.hits == 1


def test_errors_are_not_cached(fake_wiki: FakeWikimedia, tmp_path: Path) -> None:
    fake_wiki.faults.append({"path": "/en/w/api.php", "kind": 404})
    with client(tmp_path) as c, pytest.raises(HttpError):
        c.get(fake_wiki.url + "/en/w/api.php", QUERY, mediawiki=True)
    _page(fake_wiki)
    with client(tmp_path) as c:
        assert not c.get(fake_wiki.url + "/en/w/api.php", QUERY, mediawiki=True).from_cache


def test_a_contact_is_required() -> None:
    with pytest.raises(ValueError, match="contact"):
        PoliteClient(HttpPolicy(contact=" "))


def test_retry_after_parsing() -> None:
    now = 1_000_000.0
    assert retry_after_seconds("7") == 7.0
    assert retry_after_seconds(email.utils.formatdate(now + 90, usegmt=True), now=now) == pytest.approx(90, abs=1)
    assert retry_after_seconds("soon") is None
    assert retry_after_seconds(None) is None
