"""A local HTTP server that answers like the Wikidata query service and the MediaWiki APIs.

It evaluates the SPARQL that `livetab_scraper.sources.wikidata` writes (class and subclasses, date
filter, sitelink language, LIMIT) over a small item set and answers in the documented
`application/sparql-results+json` format; `/w/api.php` answers `action=query&prop=revisions` and
`action=parse` in `formatversion=2` JSON; `/api/rest_v1/page/html/{title}/{revid}` returns page HTML.
Faults are injected per request: 429/503 with `Retry-After`, a MediaWiki `maxlag` error (HTTP 200
with `Retry-After` and `X-Database-Lag`, as documented), a query that sleeps past the client's timeout,
and a query-service timeout (HTTP 500 with a `java.util.concurrent.TimeoutException`).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

SPARQL_JSON = "application/sparql-results+json;charset=utf-8"
ENTITY = "http://www.wikidata.org/entity/"


@dataclass
class FakeItem:
    qid: str
    cls: str
    titles: dict[str, str]
    dates: dict[str, str] = field(default_factory=dict)  # property path as written in SPARQL -> xsd:dateTime
    sports: list[str] = field(default_factory=list)


@dataclass
class Logged:
    at: float
    path: str
    params: dict[str, str]
    headers: dict[str, str]


class FakeWikimedia:
    def __init__(self) -> None:
        self.items: list[FakeItem] = []
        self.subclasses: dict[str, list[str]] = {}
        self.revisions: dict[tuple[str, str], list[tuple[int, str]]] = {}  # (lang, title) -> oldest first
        self.html: dict[tuple[str, int], str] = {}
        self.slow_classes: set[str] = set()
        self.server_timeout_classes: set[str] = set()
        self.sleep_s = 1.0
        # answers given verbatim (recorded-shaped, possibly malformed): by title for revision queries, by
        # revision id for parse, by class id for SPARQL item queries
        self.raw_revisions: dict[str, str] = {}
        self.raw_parse: dict[int, str] = {}
        self.raw_sparql: dict[str, str] = {}
        self.faults: list[dict[str, Any]] = []
        self.log: list[Logged] = []
        self._lock = threading.Lock()
        self.url = ""

    # ----------------------------------------------------------- content
    def add_page(self, lang: str, title: str, revisions: list[tuple[int, str]], html: str) -> None:
        self.revisions[(lang, title)] = revisions
        self.html[(lang, revisions[-1][0])] = html

    def count(self, path: str = "") -> int:
        with self._lock:
            return sum(1 for e in self.log if e.path.startswith(path))

    def _descendants(self, cls: str) -> set[str]:
        out, todo = {cls}, [cls]
        while todo:
            for sub in self.subclasses.get(todo.pop(), []):
                if sub not in out:
                    out.add(sub)
                    todo.append(sub)
        return out

    # ----------------------------------------------------------- SPARQL
    def sparql(self, query: str) -> tuple[int, dict[str, str], str, float]:
        m = re.search(r"\?sub wdt:P279 wd:(Q\d+)", query)
        if m:
            rows = [{"sub": {"type": "uri", "value": ENTITY + s}} for s in self.subclasses.get(m.group(1), [])]
            return 200, {"Content-Type": SPARQL_JSON}, json.dumps({"head": {"vars": ["sub"]},
                                                                  "results": {"bindings": rows}}), 0.0
        m = re.search(r"\?item wdt:P31(/wdt:P279\*)? wd:(Q\d+) \.", query)
        assert m, query
        transitive, cls = bool(m.group(1)), m.group(2)
        if cls in self.raw_sparql:
            return 200, {"Content-Type": SPARQL_JSON}, self.raw_sparql[cls], 0.0
        if transitive and cls in self.slow_classes:
            return 200, {"Content-Type": SPARQL_JSON}, '{"head":{"vars":[]},"results":{"bindings":[]}}', self.sleep_s
        if transitive and cls in self.server_timeout_classes:
            body = ("SPARQL-QUERY: queryStr=...\njava.util.concurrent.TimeoutException\n"
                    "\tat java.util.concurrent.FutureTask.get(FutureTask.java:205)")
            return 500, {"Content-Type": "text/plain"}, body, 0.0
        classes = self._descendants(cls) if transitive else {cls}
        prop = re.search(r"\?item (\S+) \?date \.", query)
        cutoff = re.search(r'FILTER\(\?date >= "([^"]+)"\^\^xsd:dateTime\)', query)
        lang = re.search(r"schema:isPartOf <https://([a-z-]+)\.wikipedia\.org/> ; schema:name \?title", query)
        assert lang, query
        also = re.findall(r"\?sitelink\d+ schema:about \?item ; schema:isPartOf <https://([a-z-]+)\.wikipedia", query)
        years = re.search(r'REGEX\(STR\(\?title\), "\(([^)]*)\)"\)', query)
        limit = int(re.search(r"LIMIT (\d+)", query).group(1))  # type: ignore[union-attr]
        rows: list[dict[str, Any]] = []
        for it in self.items:
            if it.cls not in classes or lang.group(1) not in it.titles or any(a not in it.titles for a in also):
                continue
            title = it.titles[lang.group(1)]
            if years and not re.search(f"({years.group(1)})", title):
                continue
            date = ""
            if prop:
                date = it.dates.get(prop.group(1), "")
                if not date or (cutoff and date < cutoff.group(1)):
                    continue
            base: dict[str, Any] = {
                "item": {"type": "uri", "value": ENTITY + it.qid},
                "title": {"type": "literal", "xml:lang": lang.group(1), "value": title},
                "article": {"type": "uri",
                            "value": f"https://{lang.group(1)}.wikipedia.org/wiki/{title.replace(' ', '_')}"},
            }
            if date:
                base["date"] = {"type": "literal", "datatype": "http://www.w3.org/2001/XMLSchema#dateTime",
                                "value": date}
            for sport in it.sports or [""]:
                row = dict(base)
                if sport:
                    row["sport"] = {"type": "uri", "value": ENTITY + sport}
                rows.append(row)
        body = {"head": {"vars": ["item", "date", "sport", "title", "article"]}, "results": {"bindings": rows[:limit]}}
        return 200, {"Content-Type": SPARQL_JSON}, json.dumps(body), 0.0

    # ----------------------------------------------------------- MediaWiki
    def api(self, p: dict[str, str]) -> tuple[int, dict[str, str], str]:
        lang = p.get("_lang", "en")
        ok = {"Content-Type": "application/json; charset=utf-8"}
        if p.get("action") == "query" and p.get("prop") == "revisions":
            title = p["titles"]
            if title in self.raw_revisions:
                return 200, ok, self.raw_revisions[title]
            revs = self.revisions.get((lang, title))
            if not revs:
                return 200, ok, json.dumps({"batchcomplete": True, "query": {"pages": [
                    {"ns": 0, "title": title, "missing": True}]}})
            revid, ts = revs[0] if p.get("rvdir") == "newer" else revs[-1]
            page = {"pageid": abs(hash(title)) % 100000, "ns": 0, "title": title,
                    "revisions": [{"revid": revid, "parentid": 0, "timestamp": ts}]}
            return 200, ok, json.dumps({"batchcomplete": True, "query": {"pages": [page]}})
        if p.get("action") == "parse":
            revid = int(p["oldid"])
            if revid in self.raw_parse:
                return 200, ok, self.raw_parse[revid]
            for (lg, title), revs in self.revisions.items():
                if lg == lang and any(r == revid for r, _ in revs):
                    return 200, ok, json.dumps({"parse": {"title": title, "pageid": 7, "revid": revid,
                                                          "text": self.html[(lang, revid)]}})
            return 200, ok, json.dumps({"error": {"code": "nosuchrevid", "info": f"There is no revision with ID {revid}."}})
        return 200, ok, json.dumps({"error": {"code": "badvalue", "info": "unknown action"}})

    def rest(self, path: str) -> tuple[int, dict[str, str], str]:
        parts = path.split("/")  # /{lang}/api/rest_v1/page/html/{title}/{revid}
        revid = int(parts[-1])
        lang = parts[1]
        if (lang, revid) in self.html:
            return 200, {"Content-Type": "text/html; charset=utf-8", "ETag": f'W/"{revid}/abc"'}, self.html[(lang, revid)]
        return 404, {"Content-Type": "application/problem+json"}, '{"type":"not_found"}'


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        fake = self.server.fake
        split = urlsplit(self.path)
        params = {k: v[-1] for k, v in parse_qs(split.query).items()}
        with fake._lock:
            fake.log.append(Logged(time.monotonic(), split.path, params, dict(self.headers.items())))
            fault = next((f for f in fake.faults if split.path.startswith(f["path"])), None)
            if fault is not None:
                fault["times"] = fault.get("times", 1) - 1
                if fault["times"] <= 0:
                    fake.faults.remove(fault)
        delay = 0.0
        if fault is not None:
            headers = {"Content-Type": "application/json", **fault.get("headers", {})}
            if fault["kind"] == "maxlag":
                status, body = 200, json.dumps({"error": {"code": "maxlag", "info": "Waiting for 10.64.0.1: 3 seconds lagged",
                                                          "host": "10.64.0.1", "lag": 3, "type": "db"},
                                                "servedby": "mw1234"})
            else:
                status, body = int(fault["kind"]), '{"error":"busy"}'
        elif split.path.startswith("/sparql"):
            status, headers, body, delay = fake.sparql(params["query"])
        elif split.path.endswith("/w/api.php"):
            params["_lang"] = split.path.split("/")[1] if split.path.count("/") > 2 else "en"
            status, headers, body = fake.api(params)
        elif "/api/rest_v1/page/html/" in split.path:
            status, headers, body = fake.rest(unquote(split.path))
        else:
            status, headers, body = 404, {"Content-Type": "text/plain"}, "not found"
        if delay:
            time.sleep(delay)
        data = body.encode("utf-8")
        try:
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeWikimedia


def serve_fake() -> Iterator[FakeWikimedia]:
    """Run a FakeWikimedia on a free loopback port for the duration of a fixture."""
    fake = FakeWikimedia()
    server = _Server(("127.0.0.1", 0), _Handler)
    server.fake = fake
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def fake_wiki() -> Iterator[FakeWikimedia]:
    yield from serve_fake()


def test_fake_answers_in_the_documented_sparql_format(fake_wiki: FakeWikimedia) -> None:
    import httpx

    fake_wiki.subclasses["Q1"] = ["Q2"]
    r = httpx.get(fake_wiki.url + "/sparql", params={"query": "SELECT ?sub WHERE { ?sub wdt:P279 wd:Q1 . }",
                                                      "format": "json"})
    assert r.headers["content-type"].startswith("application/sparql-results+json")
    assert r.json()["results"]["bindings"] == [{"sub": {"type": "uri", "value": ENTITY + "Q2"}}]
