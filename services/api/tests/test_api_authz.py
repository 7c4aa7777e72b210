"""Who may call what on the api (livetab_api.auth): every route the app serves × every role × a target of
the caller's own team or another's, each expected status asserted. The routes are read from the app
itself, so a new route without an entry here fails the test. Then the leak tests: with a live release, no
token of a team obtains a question's text or gold answer through any route, parameter or error path, and
team B's tokens reach nothing of team A's runs; and every write is in the audit log.

The store is SQLite, the bus the in-process one with every topic; tokens are made by livetab_api.teams,
as `livetab token create` makes them."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from livetab.bus import InProcBus
from livetab.ids import question_id
from livetab.records import question_row
from livetab.settings import ApiSettings, GuardSettings
from livetab.store import Store, open_store, schema
from livetab.topics import TOPICS
from livetab.v1 import question_pb2
from livetab_api.app import create_app
from livetab_api.teams import create_token, revoke_token
from starlette.routing import Route

from tests.support.releases import publish
from tests.support.tokens import bearer

LIVE = "live1"
SECRET_TEXT = "Which secret river QX{}?"
SECRET_GOLD = "GOLD-ANSWER-{}"
ROLES = ("admin", "team-admin", "member", "reviewer")
OWN_RUN, OTHER_RUN = "run-alpha", "run-beta"
ALPHA_MODEL = "alpha-private-model"  # shows only in team alpha's (and admins') view of its run
PUBLIC = {"/healthz", "/readyz", "/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc"}


@dataclass
class World:
    store: Store
    client: TestClient
    tokens: dict[str, dict[str, str]]  # role (of team alpha; admin: of team ops) -> headers
    beta: dict[str, dict[str, str]]  # role -> headers of team beta
    questions: list[question_pb2.Question]


@pytest.fixture
def world(tmp_path: Path) -> World:
    store = open_store(f"sqlite:///{tmp_path / 'authz.db'}")
    qs = [question_pb2.Question(id=question_id(f"t{i}", LIVE, {"i": i}), table_id=f"t{i}", family="direct",
                                text=SECRET_TEXT.format(i), status="verified", release=LIVE,
                                gold=question_pb2.Gold(kind="text", text=SECRET_GOLD.format(i)))
          for i in range(3)]
    store.upsert(schema.questions, [question_row(q) for q in qs])
    publish(store, LIVE)
    for rid, team, model in ((OWN_RUN, "alpha", ALPHA_MODEL), (OTHER_RUN, "beta", "beta-model")):
        store.upsert(schema.runs, [{"id": rid, "team": team, "model": model, "release": LIVE, "planned": 3,
                                    "payload": b"", "refused": ""}])
        store.upsert(schema.leaderboard, [{"id": f"{rid}|all", "run_id": rid, "model": model, "slice": "all", "n": 3,
                                           "correct": 1, "accuracy": 1 / 3, "ci_low": 0.0, "ci_high": 0.9}])
    tokens = {role: bearer(store, team="ops" if role == "admin" else "alpha", role=role) for role in ROLES}
    beta = {role: bearer(store, team="beta", role=role) for role in ROLES if role != "admin"}
    bus = InProcBus(known_topics={t.name for t in TOPICS})
    pages = {"pages": str(tmp_path), "p": str(tmp_path)}  # scrape locations an admin allowed (livetab_api.guard)
    client = TestClient(create_app(bus, store, ApiSettings(rate_burst=10000, auth_failures_per_minute=1000),
                                   guard=GuardSettings(scrape_kinds=["local_html"], scrape_locations=pages)),
                        raise_server_exceptions=False)
    return World(store, client, tokens, beta, qs)


RUN_BODY = {"release": LIVE, "model": {"name": "m"}}
# Every route: (method, path) -> (request for own/other team, expected status by role and own/other).
# "anonymous" has no token. A route whose target is no team's gives the same request for both.
Request = tuple[str, dict[str, Any] | None]  # (path, JSON body)
Expect = Callable[[str, bool], int]


def _everyone(status: int) -> Expect:
    return lambda role, own: 401 if role == "anonymous" else status


def _admins(status: int) -> Expect:
    return lambda role, own: 401 if role == "anonymous" else status if role == "admin" else 403


def _public(status: int) -> Expect:
    return lambda role, own: status


def _team_read(role: str, own: bool) -> int:
    return 401 if role == "anonymous" else 200 if own or role == "admin" else 404


def _submit(role: str, own: bool) -> int:
    if role == "anonymous":
        return 401
    if role == "reviewer":
        return 403  # no submit scope
    return 202 if own else 403  # another team in the body: refused, the team is the token's


def _cancel(role: str, own: bool) -> int:
    if role == "anonymous":
        return 401
    if role == "reviewer":
        return 403  # no submit scope
    return 200 if own or role == "admin" else 404  # another team's run: as if absent (as GET /runs/{id})


MATRIX: dict[tuple[str, str], tuple[Callable[[bool], Request], Expect]] = {
    ("GET", "/healthz"): (lambda own: ("/healthz", None), _public(200)),
    ("GET", "/readyz"): (lambda own: ("/readyz", None), _public(200)),
    ("GET", "/openapi.json"): (lambda own: ("/openapi.json", None), _public(200)),
    ("GET", "/docs"): (lambda own: ("/docs", None), _public(200)),
    ("GET", "/docs/oauth2-redirect"): (lambda own: ("/docs/oauth2-redirect", None), _public(200)),
    ("GET", "/redoc"): (lambda own: ("/redoc", None), _public(200)),
    ("GET", "/me"): (lambda own: ("/me", None), _everyone(200)),
    ("POST", "/runs"): (lambda own: ("/runs", RUN_BODY if own else {**RUN_BODY, "team": "beta"}), _submit),
    ("GET", "/runs"): (lambda own: ("/runs", None), _everyone(200)),
    ("GET", "/runs/{rid}"): (lambda own: (f"/runs/{OWN_RUN if own else OTHER_RUN}", None), _team_read),
    ("POST", "/runs/{rid}/cancel"): (lambda own: (f"/runs/{OWN_RUN if own else OTHER_RUN}/cancel", None), _cancel),
    ("POST", "/scrapes"): (lambda own: ("/scrapes", {"source": "local_html", "location": "pages", "release": "d"}),
                           _admins(202)),
    ("GET", "/releases"): (lambda own: ("/releases", None), _everyone(200)),
    ("GET", "/releases/{release}"): (lambda own: (f"/releases/{LIVE}", None), _everyone(200)),
    ("POST", "/releases/{release}/{action}"): (lambda own: ("/releases/draft9/freeze", None), _admins(202)),
    ("GET", "/dead-letters"): (lambda own: (f"/dead-letters?run_id={OWN_RUN if own else OTHER_RUN}", None),
                               _admins(200)),
}


def _routes(client: TestClient) -> set[tuple[str, str]]:
    out = set()
    for r in client.app.routes:  # type: ignore[attr-defined]
        if isinstance(r, APIRoute | Route):
            out |= {(m, r.path) for m in (r.methods or ()) if m != "HEAD"}
    return out


def _call(client: TestClient, method: str, req: Request, headers: dict[str, str]) -> Any:
    path, body = req
    return client.request(method, path, json=body, headers=headers)


def test_every_route_has_an_entry_in_the_matrix(world: World) -> None:
    assert _routes(world.client) == set(MATRIX), "a route without an expected status per role (add it to MATRIX)"


def test_authorisation_matrix(world: World) -> None:
    callers = {"anonymous": {}, **world.tokens}
    failures = []
    for (method, _), (request, expect) in sorted(MATRIX.items()):
        for (role, headers), own in itertools.product(callers.items(), (True, False)):
            r = _call(world.client, method, request(own), headers)
            if r.status_code != expect(role, own):
                failures.append(f"{method} {request(own)[0]} as {role} ({'own' if own else 'other'} team): "
                                f"{r.status_code}, expected {expect(role, own)}: {r.text[:120]}")
    assert not failures, "\n".join(failures)


def test_a_bad_expired_or_revoked_token_is_401_and_a_missing_scope_403(world: World) -> None:
    store = world.store
    expired_id, expired = create_token(store, "member@alpha", scopes=["read"], days=1e-9, max_days=90, actor="t")
    revoked_id, revoked = create_token(store, "member@alpha", scopes=["read"], days=1, max_days=90, actor="t")
    revoke_token(store, revoked_id, actor="t")
    _, read_only = create_token(store, "member@alpha", scopes=["read"], days=1, max_days=90, actor="t")
    good = world.tokens["member"]["Authorization"].removeprefix("Bearer ")
    wrong_secret = good[:-4] + ("AAAA" if not good.endswith("AAAA") else "BBBB")
    for token, why in ((expired, "token expired"), (revoked, "token revoked"), (wrong_secret, "unknown token"),
                       ("lt_0000000000000000_x", "unknown token"), ("nonsense", "malformed token")):
        for (method, _), (request, expect) in MATRIX.items():
            r = _call(world.client, method, request(True), {"Authorization": f"Bearer {token}"})
            assert r.status_code == expect("anonymous", True), (method, request(True), r.text)
            if r.status_code == 401:
                assert why in r.text and r.headers["www-authenticate"].startswith("Bearer")
    r = world.client.post("/runs", json=RUN_BODY, headers={"Authorization": f"Bearer {read_only}"})
    assert r.status_code == 403 and "submit" in r.text
    assert store.get(schema.api_tokens, expired_id)["hash"] not in expired  # only the hash is stored


def test_a_run_takes_its_team_from_the_token(world: World) -> None:
    r = world.client.post("/runs", json=RUN_BODY, headers=world.tokens["member"])
    assert r.status_code == 202 and r.json()["team"] == "alpha"
    assert world.client.get("/me", headers=world.tokens["member"]).json()["team"] == "alpha"


def test_the_rate_limit_answers_429_with_retry_after(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'rate.db'}")
    client = TestClient(create_app(InProcBus(), store, ApiSettings(rate_per_minute=1, rate_burst=3)))
    a, b = bearer(store, team="a", role="member"), bearer(store, team="b", role="member")
    assert [client.get("/me", headers=a).status_code for _ in range(4)] == [200, 200, 200, 429]
    limited = client.get("/me", headers=a)
    assert limited.status_code == 429 and 1 <= int(limited.headers["retry-after"]) <= 60
    assert client.get("/me", headers=b).status_code == 200  # per token: another token is not held back


def test_guessing_a_token_secret_is_throttled(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'guess.db'}")
    client = TestClient(create_app(InProcBus(), store, ApiSettings(auth_failures_per_minute=3)))
    good = bearer(store, team="a", role="member")
    token_id = good["Authorization"].split("_")[1]
    guesses = [client.get("/me", headers={"Authorization": f"Bearer lt_{token_id}_guess{i}"}).status_code
               for i in range(5)]
    assert guesses == [401, 401, 401, 401, 429]  # past 3 refusals that id is blocked; no hash is computed then
    assert client.get("/me", headers=bearer(store, team="b", role="member")).status_code == 200  # others go on


def test_team_quotas_are_checked_at_the_door(world: World, tmp_path: Path) -> None:
    bus = InProcBus(known_topics={t.name for t in TOPICS})
    client = TestClient(create_app(bus, world.store, ApiSettings(runs_per_day=2, concurrent_runs=5,
                                                                 team_run_requests=2, team_run_tokens=1000)))
    member = world.tokens["member"]
    big = client.post("/runs", json=RUN_BODY, headers=member)  # 3 questions: over 2 requests a run
    assert big.status_code == 403 and "api.team_run_requests" in big.text
    wordy = client.post("/runs", json={**RUN_BODY, "settings": {"limit": 1, "max_tokens": 2048}}, headers=member)
    assert wordy.status_code == 403 and "api.team_run_tokens" in wordy.text  # 1 request x 2,048 > 1,000 tokens
    small = {**RUN_BODY, "settings": {"limit": 1}}
    assert client.post("/runs", json=small, headers=member).status_code == 202
    assert client.post("/runs", json={**small, "settings": {"limit": 2}}, headers=member).status_code == 202
    third = client.post("/runs", json={**small, "settings": {"limit": 1, "seed": 3}}, headers=member)
    assert third.status_code == 429 and "api.runs_per_day" in third.text and third.headers["retry-after"]
    other = client.post("/runs", json=small, headers=world.beta["member"])  # another team has its own quota
    assert other.status_code == 202
    busy = TestClient(create_app(bus, world.store, ApiSettings(concurrent_runs=1)))
    r = busy.post("/runs", json={**small, "settings": {"limit": 1, "seed": 9}}, headers=world.beta["team-admin"])
    assert r.status_code == 429 and "api.concurrent_runs" in r.text  # beta's first run is not planned yet


def _probes(world: World) -> list[tuple[str, str, dict[str, Any] | None]]:
    """Every route, with every id a caller might try in every parameter, and bodies that fail validation."""
    ids = [OWN_RUN, OTHER_RUN, LIVE, *(q.id for q in world.questions), "../" + LIVE, LIVE + "%00", "x" * 300]
    out: list[tuple[str, str, dict[str, Any] | None]] = []
    for method, path in MATRIX:
        if "{" not in path:
            out += [(method, path + query, None) for query in
                    ("", *(f"?run_id={v}&service={v}&release={v}&id={v}" for v in ids))]
            continue
        actions = ("freeze", "export", "questions") if "{action}" in path else ("",)
        out += [(method, path.replace("{rid}", v).replace("{release}", v).replace("{action}", a), None)
                for v in ids for a in actions]
    for q in world.questions:  # error paths: a body that echoes, names or guesses question material
        out += [("POST", "/runs", {"release": q.id, "model": {"name": q.id}}),
                ("POST", "/runs", {"release": LIVE, "model": {"name": "m"}, "settings": {"families": [q.id]}}),
                ("POST", "/runs", {"release": LIVE, "model": {"name": "m", "bogus": q.id}}),
                ("POST", "/scrapes", {"source": "local_html", "location": q.id, "release": LIVE}),
                ("POST", "/runs", {"release": LIVE, "question": q.id, "model": {"name": "m"}})]
    return out


@pytest.mark.parametrize("team", ["alpha", "beta"])
def test_no_team_token_obtains_a_live_question_or_its_gold(world: World, team: str) -> None:
    secrets = [q.text for q in world.questions] + [q.gold.text for q in world.questions]
    stored = [str(r) for r in world.store.select(schema.questions)]
    assert all(any(s.encode() in bytes(row["payload"]) for row in world.store.select(schema.questions))
               for s in secrets), "the store holds the secrets the test looks for"
    assert stored
    tokens = world.tokens if team == "alpha" else world.beta
    n = 0
    for role in ("member", "reviewer"):  # a team-admin holds a member's scopes
        headers = tokens[role]
        for method, path, body in _probes(world):
            r = world.client.request(method, path, json=body, headers=headers)
            n += 1
            assert r.status_code < 500, (method, path, r.text)
            leaked = [s for s in secrets if s in r.text or s.split()[-1] in r.text]
            assert not leaked, f"{method} {path} as {role}@{team} shows {leaked}"
    assert n > 200


def test_team_a_runs_are_unreachable_with_team_b_tokens(world: World) -> None:
    """Alpha's own view shows its run (the control); no beta token sees any trace of it by any probe."""
    alpha = world.tokens["member"]
    assert ALPHA_MODEL in world.client.get(f"/runs/{OWN_RUN}", headers=alpha).text
    assert ALPHA_MODEL in world.client.get("/runs", headers=alpha).text
    for role, headers in world.beta.items():
        for method, path, body in _probes(world) if role != "team-admin" else ():  # a member's scopes
            r = world.client.request(method, path, json=body, headers=headers)
            assert ALPHA_MODEL not in r.text, f"{method} {path} as {role}@beta: {r.text[:200]}"
        assert [row["id"] for row in world.client.get("/runs", headers=headers).json()["runs"]] == [OTHER_RUN]
        gone = world.client.get(f"/runs/{OWN_RUN}", headers=headers)
        missing = world.client.get("/runs/no-such-run", headers=headers)
        assert gone.status_code == missing.status_code == 404  # indistinguishable from a run that does not exist
        assert gone.text == missing.text.replace("no-such-run", OWN_RUN)


def test_every_write_is_in_the_audit_log(world: World) -> None:
    before = world.store.count(schema.audit_log)
    writes = [("POST", "/runs", RUN_BODY, world.tokens["member"], 202),
              ("POST", "/runs", RUN_BODY, world.tokens["reviewer"], 403),
              ("POST", "/runs", RUN_BODY, {}, 401),
              ("POST", "/scrapes", {"source": "local_html", "location": "p", "release": "d"}, world.tokens["admin"],
               202),
              ("POST", "/releases/draft9/freeze", None, world.tokens["member"], 403),
              ("POST", "/releases/draft9/freeze", None, world.tokens["admin"], 202)]
    for method, path, body, headers, status in writes:
        assert world.client.request(method, path, json=body, headers=headers).status_code == status
    world.client.get("/runs", headers=world.tokens["member"])  # a read is not audited
    rows = sorted(world.store.select(schema.audit_log), key=lambda r: r["at"])[before:]
    assert [(r["action"], r["actor"], r["status"]) for r in rows] == [
        ("POST /runs", "member@alpha", 202), ("POST /runs", "reviewer@alpha", 403), ("POST /runs", "anonymous", 401),
        ("POST /scrapes", "admin@ops", 202), ("POST /releases/draft9/freeze", "member@alpha", 403),
        ("POST /releases/draft9/freeze", "admin@ops", 202)]
    assert rows[0]["target"] and rows[0]["team"] == "alpha" and rows[0]["token_id"]
    cli = {r["action"] for r in world.store.select(schema.audit_log)}
    assert {"team.create", "member.add", "token.create"} <= cli  # the admin actions that made the tokens
