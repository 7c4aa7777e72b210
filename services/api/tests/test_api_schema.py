"""schemathesis against the api's own OpenAPI schema: every operation, generated valid and invalid requests,
and no answer may be a server error or disagree with the schema (status code, content type, headers, body).

`make test` runs a few hundred cases (LIVETAB_SCHEMA_EXAMPLES per operation, 25 by default); `make schema-fuzz`
runs a few thousand. The app is the real one over the in-process bus and a SQLite store holding a live release,
so accepted runs and scrapes are published. Requests carry the headers of the `api_headers` fixture: when the
api takes tokens: an admin's (every route's full answers) and a token that is not one (every route's refusal)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from livetab.bus import InProcBus
from livetab.ids import question_id
from livetab.records import question_row
from livetab.settings import ApiSettings, GuardSettings
from livetab.store import open_store, schema
from livetab.topics import TOPICS
from livetab.v1 import question_pb2
from livetab_api.app import create_app
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.support.releases import publish
from tests.support.tokens import bearer

EXAMPLES = int(os.environ.get("LIVETAB_SCHEMA_EXAMPLES", "25"))
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_headers_conformance,
          response_schema_conformance]


def _schema(tmp: Path) -> Any:
    store = open_store(f"sqlite:///{tmp / 'api.db'}")
    qs = [question_pb2.Question(id=question_id(f"t{i}", "r1", {"i": i}), table_id=f"t{i}", family="direct",
                                text=f"q{i}?", status="verified", release="r1") for i in range(3)]
    store.upsert(schema.questions, [question_row(q) for q in qs])
    publish(store, "r1")
    (tmp / "pages").mkdir(exist_ok=True)
    guard = GuardSettings(scrape_kinds=["local_html"], scrape_locations={"pages": str(tmp / "pages")}, allow=["127.0.0.0/8"])
    limits = ApiSettings(rate_burst=1_000_000, rate_per_minute=1_000_000, auth_failures_per_minute=1_000_000,
                         runs_per_day=1_000_000, concurrent_runs=1_000_000,
                         probe_endpoints=False)  # never probe whatever listens on this machine's loopback ports
    app = create_app(InProcBus(known_topics={t.name for t in TOPICS}), store, limits, guard=guard)
    return schemathesis.openapi.from_asgi("/openapi.json", app), bearer(store, team="ops", role="admin")


@pytest.fixture(scope="module")
def api_world(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return _schema(tmp_path_factory.mktemp("schema"))


@pytest.fixture
def api_schema(api_world: Any) -> Any:
    return api_world[0]


@pytest.fixture(params=["admin-token", "bad-token"])
def api_headers(request: pytest.FixtureRequest, api_world: Any) -> dict[str, str]:
    """The headers every generated request carries: a valid admin token, or a well-formed one that is not."""
    if request.param == "admin-token":
        return dict(api_world[1])
    return {"Authorization": "Bearer lt_0000000000_notarealsecret"}


# The operations, listed from a throwaway app at collection time, so each gets its own test id.
OPERATIONS = ["GET /healthz", "GET /readyz", "GET /me", "GET /runs", "POST /runs", "POST /scrapes", "GET /releases", "GET /releases/{release}",
              "POST /releases/{release}/{action}", "GET /dead-letters", "GET /runs/{rid}", "POST /runs/{rid}/cancel"]


def test_every_operation_is_fuzzed(api_schema: Any) -> None:
    assert sorted(r.ok().label for r in api_schema.get_all_operations()) == sorted(OPERATIONS)


# Operations with nothing that can be invalid (no inputs, or only free-text path segments): positive only.
NO_INPUT = {"GET /healthz", "GET /readyz", "GET /me", "GET /runs", "GET /releases", "GET /releases/{release}",
            "POST /releases/{release}/{action}", "GET /runs/{rid}", "POST /runs/{rid}/cancel"}
CASES = [(label, mode) for label in OPERATIONS for mode in GenerationMode
         if mode is GenerationMode.POSITIVE or label not in NO_INPUT]


@pytest.mark.parametrize(("label", "mode"), CASES, ids=[f"{label}-{mode.value}" for label, mode in CASES])
def test_api_conforms_to_its_schema(api_schema: Any, api_headers: dict[str, str], label: str,
                                    mode: GenerationMode) -> None:
    operation = api_schema.find_operation_by_label(label)
    calls: list[int] = []

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    def check(case: Any) -> None:
        response = case.call_and_validate(headers=api_headers, checks=CHECKS)
        calls.append(response.status_code)

    check()
    assert calls and not [s for s in calls if s >= 500]
    print(f"{label} {mode.value}: {len(calls)} cases, statuses {sorted(set(calls))}")
