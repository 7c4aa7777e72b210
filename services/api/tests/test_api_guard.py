"""The api's safety checks at the door (livetab_api.guard): model endpoints that point inside (SSRF), API key
references to anything but the team's own secrets, and scrape locations outside what an admin allowed are
refused with 422, and nothing is published — so no service ever connects there or reads that file.

The endpoint checks resolve names but never connect (only `localhost` is resolved, by the system resolver);
the scrape checks watch, through an audit hook, every file this process opens."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from livetab.bus import InProcBus
from livetab.ids import question_id
from livetab.records import question_row
from livetab.settings import ApiSettings, GuardSettings
from livetab.store import Store, open_store, schema
from livetab.topics import RUNS, SCRAPES, TOPICS
from livetab.v1 import question_pb2, run_pb2, table_pb2
from livetab_api.app import create_app

from tests.support.releases import publish

RELEASE = "r1"
KEY = "sk-guard-test-5f1c0e7d9a"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = open_store(f"sqlite:///{tmp_path / 'api.db'}")
    qs = [question_pb2.Question(id=question_id(f"t{i}", RELEASE, {"i": i}), table_id=f"t{i}", family="direct",
                                text=f"q{i}?", status="verified", release=RELEASE) for i in range(2)]
    s.upsert(schema.questions, [question_row(q) for q in qs])
    publish(s, RELEASE)
    return s


@pytest.fixture
def bus() -> InProcBus:
    return InProcBus(known_topics={t.name for t in TOPICS})


@pytest.fixture
def roots(tmp_path: Path) -> dict[str, Path]:
    """An allowed root with a page and a symlink out of it, and a watched file outside every root."""
    root = tmp_path / "allowed"
    (root / "pages").mkdir(parents=True)
    (root / "pages" / "p.html").write_text("<table><tr><td>1</td></tr></table>")
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.html"
    secret.write_text("<table><tr><td>secret</td></tr></table>")
    (root / "escape").symlink_to(outside)
    (root / "pages" / "link.html").symlink_to(secret)
    return {"root": root, "outside": outside, "secret": secret}


@pytest.fixture
def guard(roots: dict[str, Path]) -> GuardSettings:
    return GuardSettings(scrape_kinds=["local_html", "wikipedia"], scrape_locations={"sample": str(roots["root"] / "pages")})


def _client(bus: InProcBus, store: Store, guard: GuardSettings) -> TestClient:
    # Auth off: these tests send the run's team in the body; who may call which route is test_api_authz's.
    # The probe off: these endpoints are refused before it or are not meant to answer (test_api_probe's).
    return TestClient(create_app(bus, store, ApiSettings(auth=False, probe_endpoints=False), guard=guard))


def _run(team: str = "local", **model: Any) -> dict[str, Any]:
    return {"team": team, "release": RELEASE, "model": {"name": "m", **model}}


REFUSED_URLS = [
    "http://127.0.0.1:8000/v1", "http://10.0.0.5/v1", "http://172.16.3.4/v1", "http://192.168.1.10/v1",
    "http://169.254.169.254/latest/meta-data", "http://[::1]:8000/v1", "http://[::ffff:127.0.0.1]/v1",
    "http://2130706433/v1", "http://0x7f000001/v1", "http://0177.0.0.1/v1", "http://localhost:8000/v1",
]


@pytest.mark.parametrize("url", REFUSED_URLS)
def test_internal_endpoints_refused_at_the_door(bus: InProcBus, store: Store, guard: GuardSettings, url: str) -> None:
    client = _client(bus, store, guard)
    r = client.post("/runs", json=_run(backend="openai", base_url=url, model="x"))
    assert r.status_code == 422 and "base_url" in r.text, r.text
    assert "guard.allow" in r.text or "non-canonical" in r.text, r.text
    assert len(r.text) < 400
    r = client.post("/runs", json=_run(backend="grpc", base_url=url.split("/")[2] if "//" in url else url))
    assert r.status_code == 422, r.text
    assert bus.records(RUNS) == []


def test_the_allow_list_lets_loopback_through(bus: InProcBus, store: Store, guard: GuardSettings) -> None:
    allowed = guard.model_copy(update={"allow": ["127.0.0.0/8"]})
    r = _client(bus, store, allowed).post("/runs", json=_run(backend="openai", base_url="http://127.0.0.1:9/v1",
                                                                 model="x"))
    assert r.status_code == 202, r.text
    assert len(bus.records(RUNS)) == 1


def test_api_key_ref_names_only_the_teams_secrets(bus: InProcBus, store: Store, guard: GuardSettings,
                                                  monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("LIVETAB_TEAM_BLUE_OPENAI", KEY)
    monkeypatch.setenv("LIVETAB_TEAM_RED_OPENAI", "sk-red-other-team")
    allowed = guard.model_copy(update={"allow": ["127.0.0.0/8"]})
    client = _client(bus, store, allowed)
    model = {"backend": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "x"}
    for ref in ("HOME", "PATH", "LIVETAB_TEAM_RED_OPENAI", "LIVETAB_KAFKA__BOOTSTRAP", "MISSING", "../x", "A__B"):
        r = client.post("/runs", json=_run("blue", **model, api_key_ref=ref))
        assert r.status_code == 422 and "api_key_ref" in r.text, (ref, r.text)
        assert os.environ.get("HOME", "\0") not in r.text
    assert bus.records(RUNS) == []
    for ref in ("openai", "OPENAI", "LIVETAB_TEAM_BLUE_OPENAI"):
        r = client.post("/runs", json=_run("blue", **model, api_key_ref=ref))
        assert r.status_code == 202 and KEY not in r.text, r.text
    for rec in bus.records(RUNS):
        run = run_pb2.Run.FromString(rec.value)
        assert run.model.api_key_ref == "LIVETAB_TEAM_BLUE_OPENAI" and KEY.encode() not in rec.value

    secrets = tmp_path / "secrets"
    (secrets / "green").mkdir(parents=True)
    (secrets / "green" / "hosted").write_text("sk-from-a-mounted-file\n")
    filed = allowed.model_copy(update={"secrets_dir": str(secrets)})
    monkeypatch.delenv("LIVETAB_TEAM_GREEN_HOSTED", raising=False)
    r = _client(bus, store, filed).post("/runs", json=_run("green", **model, api_key_ref="hosted"))
    assert r.status_code == 202 and "sk-from-a-mounted-file" not in r.text
    assert os.environ["LIVETAB_TEAM_GREEN_HOSTED"] == "sk-from-a-mounted-file"


def test_a_model_file_path_is_not_taken_from_a_submission(bus: InProcBus, store: Store, guard: GuardSettings) -> None:
    r = _client(bus, store, guard).post("/runs", json=_run(backend="llama_local", params={"model_path": "/etc/passwd"}))
    assert r.status_code == 422 and "model_path" in r.text and bus.records(RUNS) == []


@pytest.fixture
def opened() -> Iterator[list[str]]:
    """Every path this process opens while the test runs (sys.addaudithook cannot be removed: it is muted)."""
    seen: list[str] = []
    state = {"on": True}

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if state["on"] and event in ("open", "os.listdir", "os.scandir") and args and isinstance(args[0], (str, Path)):
            seen.append(str(args[0]))

    sys.addaudithook(hook)
    yield seen
    state["on"] = False


def test_scrape_paths_are_refused_and_nothing_is_read(
        bus: InProcBus, store: Store, guard: GuardSettings, roots: dict[str, Path], opened: list[str]) -> None:
    """A caller names a location; any path — even one inside the allowed location — is refused, the answer
    names the allowed names, and the api opens no file at all."""
    client = _client(bus, store, guard)
    outside, secret = roots["outside"], roots["secret"]
    attempts = [
        "../outside/secret.html", "pages/../../outside/secret.html", str(secret), str(outside), "/etc/passwd",
        "escape/secret.html", "escape", "pages/link.html",  # symlinks that leave the allowed folder
        "%2e%2e/outside/secret.html", "..%2foutside%2fsecret.html", "%252e%252e%252foutside/secret.html",
        "pages%2f..%2f..%2foutside", "..\\outside\\secret.html", "file://" + str(secret), "nonexistent.html",
        str(roots["root"] / "pages"), "pages", "pages/p.html", "sample/", "sample/../sample", "./sample", "SAMPLE",
        "sample%00", "%73ample", "",  # the allowed folder by path, and spellings of the name that are not it
    ]
    secret.read_text()  # the watch works: this read is seen
    assert [p for p in opened if p == str(secret)]
    opened.clear()
    for location in attempts:
        r = client.post("/scrapes", json={"source": "local_html", "location": location, "release": "r"})
        assert r.status_code == 422 and "scrape location" in r.text and "Allowed names: sample" in r.text, (location,
                                                                                                            r.text)
        assert str(secret) not in r.text and str(roots["root"]) not in r.text and len(r.text) < 400
    assert bus.records(SCRAPES) == []
    assert not [p for p in opened if str(roots["root"].parent) in p], opened  # the api opened nothing there
    r = client.post("/scrapes", json={"source": "local_files", "location": "sample", "release": "r"})
    assert r.status_code == 422 and "guard.scrape_kinds" in r.text


@pytest.mark.parametrize("option", ["location", "cache_dir", "api_url", "sparql_url", "rest_url", "kind", "path"])
def test_scrape_options_cannot_name_a_place(bus: InProcBus, store: Store, guard: GuardSettings,
                                            roots: dict[str, Path], option: str) -> None:
    """The scraper merges options over its config: a caller's `location` or `cache_dir` option would be a path
    by the back door, an `api_url` a request to anywhere. Only guard.scrape_options pass."""
    r = _client(bus, store, guard).post("/scrapes", json={"source": "local_html", "location": "sample", "release": "r",
                                                          "options": {option: str(roots["secret"])}})
    assert r.status_code == 422 and "guard.scrape_options" in r.text and str(roots["secret"]) not in r.text, r.text
    assert bus.records(SCRAPES) == []


def test_a_named_location_is_accepted_as_the_admins_path(bus: InProcBus, store: Store, guard: GuardSettings,
                                                         roots: dict[str, Path]) -> None:
    client = _client(bus, store, guard)
    r = client.post("/scrapes", json={"source": "local_html", "location": "sample", "release": "r",
                                      "options": {"limit": "3", "domain": "sport"}})
    assert r.status_code == 202, r.text
    cmd = table_pb2.ScrapeCommand.FromString(bus.records(SCRAPES)[-1].value)
    assert cmd.location == str(roots["root"] / "pages") and dict(cmd.options) == {"limit": "3", "domain": "sport"}
    r = client.post("/scrapes", json={"source": "wikipedia", "release": "r", "options": {"since": "2026-01-01"}})
    assert r.status_code == 202, r.text  # a kind that reads no location takes none
    assert table_pb2.ScrapeCommand.FromString(bus.records(SCRAPES)[-1].value).location == ""


def test_no_scrape_without_configured_locations(bus: InProcBus, store: Store, roots: dict[str, Path]) -> None:
    """The default guard: no named locations, no local kinds — a caller's path reaches nothing."""
    client = _client(bus, store, GuardSettings())
    for source, location in (("local_html", str(roots["root"] / "pages")), ("freshtab", "sample"), ("gsm8k", "")):
        r = client.post("/scrapes", json={"source": source, "location": location, "release": "r"})
        assert r.status_code == 422 and ("none configured" in r.text or "scrape_kinds" in r.text), r.text
    assert bus.records(SCRAPES) == []
