"""What the api checks at its door for safety (issue 15): where a submitted model may make the platform
connect (livetab.netguard), which secret its `api_key_ref` may name, and which locations a scrape may read.

- A model endpoint (`openai` base_url, `grpc` host:port) is resolved and refused (422) when it points at a
  non-public address not in `guard.allow`.
- `api_key_ref` names a secret *registered for the submitting team*: an environment variable
  `<guard.secret_prefix><TEAM>_<NAME>` or a file `<guard.secrets_dir>/<team>/<name>`. A bare name (`KEY`) is
  read as that team's secret `KEY`; a name of any other variable of the service (`HOME`) is refused. What
  reaches the run is the full reference, never the key.
- A scrape's `location` is a name in `guard.scrape_locations` or a path that, after following symlinks,
  lies inside one of `guard.scrape_roots`; `..`, URL-encoded or NUL-carrying variants and anything that
  escapes are refused (422) before the file system is touched beyond `realpath`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from livetab.netguard import NetPolicy, NetRefused
from livetab.settings import GuardSettings, ModelSettings
from pydantic import BaseModel

__all__ = ["ERROR_RESPONSES", "ErrorBody", "Refused", "check_model", "policy", "scrape_location", "secret_ref"]

_REF_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_]{0,63}$")


class Refused(ValueError):
    """Refused at the door; the message is safe to show (it quotes at most a short excerpt)."""


def policy(guard: GuardSettings) -> NetPolicy:
    return NetPolicy.of(guard.allow, guard.cluster_cidrs)


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


def scrape_location(guard: GuardSettings, kind: str, location: str) -> str:
    """The real path (or configured location) a scrape of `kind` may read for what the caller sent."""
    if kind not in guard.scrape_kinds:
        raise Refused(f"source kind {kind!r} is not one an admin allowed (guard.scrape_kinds)")
    if location in guard.scrape_locations:
        return guard.scrape_locations[location]
    decoded = location
    for _ in range(3):  # %2e%2e%2f, %252e...: whatever decoding a later layer might do
        decoded = unquote(decoded)
    if "\x00" in decoded or "\\" in decoded or "%" in decoded or any(
            part == ".." for part in decoded.replace("\\", "/").split("/")):
        raise Refused(f"scrape location {location[:40]!r}: '..', encoded or escaped paths are refused")
    if "://" in decoded:
        raise Refused(f"scrape location {location[:40]!r}: not a configured location name (guard.scrape_locations)")
    for root in guard.scrape_roots:
        base = Path(os.path.realpath(root))
        real = Path(os.path.realpath(decoded if os.path.isabs(decoded) else base / decoded))
        if real.is_relative_to(base) and real.exists():
            return str(real)
    raise Refused(f"scrape location {location[:40]!r} is neither a configured location name nor a path inside "
                  "an allowed root (guard.scrape_roots), symlinks followed")


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
