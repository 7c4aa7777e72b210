"""What the api checks at its door for safety (issue 15): where a submitted model may make the platform
connect (livetab.netguard), which secret its `api_key_ref` may name, and which locations a scrape may read.

- A model endpoint (`openai` base_url, `grpc` host:port) is resolved and refused (422) when it points at a
  non-public address not in `guard.allow`.
- The endpoint is then probed (`probe_model`, livetab.models.probe): one tiny request through the inference
  service's own client must show it reachable, speaking its protocol, accepting the key and serving the
  model; otherwise 422 with one line, and nothing is planned (`api.probe_endpoints` turns it off).
- `api_key_ref` names a secret *registered for the submitting team*: an environment variable
  `<guard.secret_prefix><TEAM>_<NAME>` or a file `<guard.secrets_dir>/<team>/<name>`. A bare name (`KEY`) is
  read as that team's secret `KEY`; a name of any other variable of the service (`HOME`) is refused. What
  reaches the run is the full reference, never the key.
- A scrape's `location` is a *name* in `guard.scrape_locations` (the admin's {name: path}); the path is
  the admin's, never the caller's: whatever else is sent (a path, `..`, a URL, an encoded variant) is refused
  (422, naming the allowed names) without touching the file system. Only a kind that reads no location
  (`wikipedia`) takes an empty one. A scrape's `options` may set only the keys in `guard.scrape_options`
  (none of them names a path, a folder or a URL), so a caller cannot override the location or a cache
  folder or an endpoint through them either.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from livetab.netguard import NetPolicy, NetRefused
from livetab.settings import GuardSettings, ModelSettings
from pydantic import BaseModel

__all__ = ["ERROR_RESPONSES", "ErrorBody", "Refused", "check_model", "policy", "probe_model", "scrape_location",
           "secret_ref"]

_REF_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_]{0,63}$")


class Refused(ValueError):
    """Refused at the door; the message is safe to show (it quotes at most a short excerpt)."""


def policy(guard: GuardSettings) -> NetPolicy:
    return NetPolicy.of(guard.allow, guard.cluster_cidrs, max_response_bytes=guard.max_response_bytes)


def team_prefix(guard: GuardSettings, team: str) -> str:
    return guard.secret_prefix + re.sub(r"[^A-Z0-9]", "_", team.upper()) + "_"


def secret_ref(guard: GuardSettings, team: str, ref: str, env: Mapping[str, str] | None = None) -> str:
    """The environment variable a team's `api_key_ref` stands for, checked to exist ("" for no key).
    A file secret under `secrets_dir` is loaded into this process's environment under that name."""
    if not ref:
        return ""
    env = os.environ if env is None else env
    prefix = team_prefix(guard, team)
    name = ref[len(prefix):] if ref.startswith(prefix) else ref
    if not _REF_NAME.match(name) or "__" in name:
        raise Refused("api_key_ref: a secret name is letters, digits and single underscores (the reference is not "
                      "repeated here: it might be a key pasted by mistake)")
    full = prefix + name.upper()
    if env.get(full):
        return full
    if guard.secrets_dir:
        path = Path(guard.secrets_dir) / team / name
        if path.is_file() and path.resolve().is_relative_to(Path(guard.secrets_dir).resolve()):
            value = path.read_text(encoding="utf-8").strip()
            if value:
                os.environ[full] = value  # the inference backend reads it from here; never stored or echoed
                return full
    raise Refused(f"api_key_ref: no secret of that name is registered for team {team[:40]!r} (an admin registers "
                  f"one as {prefix}<NAME> or in the team's secrets folder; the reference is not repeated here)")


def check_model(guard: GuardSettings, team: str, model: ModelSettings, net: NetPolicy | None = None) -> ModelSettings:
    """The model spec with its api_key_ref made the team's full secret reference; `Refused` when its
    endpoint or its key reference is not allowed."""
    if "model_path" in model.params:  # a file of the server's: only an admin's config names one
        raise Refused("params.model_path is not accepted from a submission; name a hosted model instead")
    if model.backend in ("openai", "grpc") and model.base_url:
        try:
            (net or policy(guard)).check_endpoint(model.base_url)
        except NetRefused as e:
            raise Refused(f"model base_url: {e}") from None
    return model.model_copy(update={"api_key_ref": secret_ref(guard, team, model.api_key_ref)})


def probe_model(guard: GuardSettings, model: ModelSettings, timeout_s: float) -> str:
    """One tiny request to a submitted openai/grpc endpoint through the inference client and this policy
    (livetab.models.probe); `Refused` with its one line when it does not answer as a run needs."""
    from livetab.models.probe import ProbeFailed, probe_endpoint_sync

    try:
        return probe_endpoint_sync(model, net=policy(guard), timeout_s=timeout_s)
    except ProbeFailed as e:
        raise Refused(f"model probe: {e}") from None


# Source kinds whose location is not read (they reach the web through their own, fixed endpoints).
NO_LOCATION_KINDS = frozenset({"wikipedia"})


def scrape_location(guard: GuardSettings, kind: str, location: str, options: Mapping[str, str] | None = None) -> str:
    """The admin's path a scrape of `kind` may read for the location *name* the caller sent. The caller's
    string is only ever a dictionary key here: nothing of it reaches the file system."""
    if kind not in guard.scrape_kinds:
        raise Refused(f"source kind {kind!r} is not one an admin allowed (guard.scrape_kinds)")
    bad = sorted(k for k in (options or {}) if k not in guard.scrape_options)
    if bad:
        raise Refused(f"scrape option {bad[0][:40]!r} is not one a caller may set; allowed: "
                      f"{', '.join(guard.scrape_options) or 'none'} (guard.scrape_options)")
    if location in guard.scrape_locations:
        return guard.scrape_locations[location]
    if not location and kind in NO_LOCATION_KINDS:
        return ""
    names = ", ".join(sorted(guard.scrape_locations)[:20]) or "none configured"
    raise Refused(f"scrape location {location[:40]!r} is not a location name an admin allowed; a path is never "
                  f"accepted. Allowed names: {names} (guard.scrape_locations)")


class ErrorBody(BaseModel):
    """Every 4xx/5xx the api answers: `detail` is a message, or for a refused body the list of problems
    (each with `loc`, `msg` quoting at most a short excerpt, `type`)."""

    detail: str | list[dict[str, Any]]


# Every route's error answers, declared in the OpenAPI schema (FastAPI(responses=...)) so clients and
# schemathesis can check them.
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": what} for status, what in (
        (400, "the body is not JSON"), (401, "no or bad token"), (403, "not allowed for this token"), (404, "not found"),
        (409, "conflicts with the release's state"), (413, "request body too large"),
        (422, "refused: the body or a parameter is not acceptable"), (429, "rate limited"),
        (503, "the message bus did not take it; try again"))}
