"""Build a `ModelBackend` from a model spec (`livetab.v1.ModelSpec`, or a dict with the same fields).

`backend` picks the kind: `llama_local` (in-process llama.cpp), `openai` (OpenAI-compatible HTTP),
`grpc` (a `ModelService`) or `scripted` (the in-process oracle / anti-oracle of livetab.models.scripted). Options come from `params` (strings in the proto; any JSON-ish value in a
dict; top-level keys of a dict that are not spec fields count as params too):

- every remote backend: timeout_s, concurrency, max_attempts, base_delay_s, max_delay_s,
  failure_threshold, cooldown_s, requests_per_minute, tokens_per_minute;
- openai: connect_timeout_s, keepalive_s, n_mode (auto|native|loop), extra_body (a JSON object) and
  `body.<field>` for single extra body fields (the value is parsed as JSON when it parses);
- grpc: tls;
- llama_local: model_path, n_ctx, n_threads (`model` names a bundled GGUF, `livetab.models.bundled`);
- scripted: policy (oracle | anti_oracle), phrasing (a name in `scripted.PHRASINGS`, or rotate | all);
- every backend: prompt_mode (chat|completion) and shots (worked examples of a completion prompt): read by
  the inference service when it builds prompts (`livetab_inference.prompts`), not by the backend.

An unknown option is an error that names it. Backends that reach the same endpoint share one
`Resilience` when the caller passes the same `EndpointGuards`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from livetab.models.base import ModelBackend
from livetab.models.resilience import Resilience
from livetab.netguard import NetPolicy
from livetab.v1 import common_pb2

__all__ = ["BACKENDS", "PROMPT_OPTIONS", "EndpointGuards", "backend_from_spec", "check_params", "spec_to_dict"]

log = logging.getLogger(__name__)

BACKENDS = ("llama_local", "openai", "grpc", "scripted")
_SPEC_FIELDS = ("name", "backend", "base_url", "model", "api_key_ref", "pool", "params")
_GUARD_INT = ("concurrency", "max_attempts", "failure_threshold")
_GUARD_FLOAT = ("base_delay_s", "max_delay_s", "cooldown_s", "requests_per_minute", "tokens_per_minute")
PROMPT_OPTIONS = ("prompt_mode", "shots")
_ALLOWED = {
    "openai": {"timeout_s", "connect_timeout_s", "keepalive_s", "n_mode", "extra_body", *_GUARD_INT, *_GUARD_FLOAT},
    "grpc": {"timeout_s", "tls", *_GUARD_INT, *_GUARD_FLOAT},
    "llama_local": {"model_path", "n_ctx", "n_threads"},
    "scripted": {"policy", "phrasing"},
}


class EndpointGuards:
    """One `Resilience` per endpoint, created on first use with the options of the first spec that asks."""

    def __init__(self) -> None:
        self._guards: dict[str, Resilience] = {}

    def get(self, endpoint: str, options: Mapping[str, Any]) -> Resilience:
        guard = self._guards.get(endpoint)
        if guard is None:
            kwargs: dict[str, Any] = {}
            for key in _GUARD_INT:
                if key in options:
                    kwargs["max_concurrency" if key == "concurrency" else key] = int(options[key])
            for key in _GUARD_FLOAT:
                if key in options:
                    kwargs[key] = float(options[key])
            guard = self._guards[endpoint] = Resilience.for_endpoint(endpoint, **kwargs)
        return guard

    def __len__(self) -> int:
        return len(self._guards)


def check_params(backend: str, params: Mapping[str, Any]) -> None:
    """Raise `ValueError` naming an option `backend` does not know, or a local model's n_ctx/n_threads out of
    bounds: what `backend_from_spec` would refuse later, checked without building anything."""
    from livetab.settings import MAX_CONTEXT, MAX_THREADS

    allowed = _ALLOWED.get(backend, set())
    unknown = sorted(k for k in params if k not in allowed and k not in PROMPT_OPTIONS
                     and not (backend == "openai" and k.startswith("body.")))
    if unknown:
        shown = ", ".join(k[:40] for k in unknown[:5])
        raise ValueError(f"unknown option(s) for backend {backend}: {shown}; allowed: {', '.join(sorted(allowed))}")
    for key, bound in (("n_ctx", MAX_CONTEXT), ("n_threads", MAX_THREADS)):
        if key in params:
            try:
                n = int(params[key])
            except (TypeError, ValueError):
                raise ValueError(f"{key} must be a whole number") from None
            if not 1 <= n <= bound:
                raise ValueError(f"{key} must be between 1 and {bound}")


def spec_to_dict(spec: common_pb2.ModelSpec | Mapping[str, Any]) -> dict[str, Any]:
    """The spec as a plain dict with every field present and `params` holding all options."""
    if isinstance(spec, common_pb2.ModelSpec):
        return {"name": spec.name, "backend": spec.backend, "base_url": spec.base_url, "model": spec.model,
                "api_key_ref": spec.api_key_ref, "pool": spec.pool, "params": dict(spec.params)}
    if not isinstance(spec, Mapping):
        raise TypeError(f"a model spec is a livetab.v1.ModelSpec or a mapping, got {type(spec).__name__}")
    out: dict[str, Any] = {k: spec.get(k, "") or "" for k in _SPEC_FIELDS if k != "params"}
    params = dict(spec.get("params") or {})
    for key, value in spec.items():
        if key not in _SPEC_FIELDS and value not in (None, ""):
            params.setdefault(key, value)
    out["params"] = params
    return out


def _json_or_text(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def backend_from_spec(spec: common_pb2.ModelSpec | Mapping[str, Any], *, guards: EndpointGuards | None = None,
                      env: Mapping[str, str] | None = None, net: NetPolicy | None = None) -> ModelBackend:
    """Build the backend a spec describes; raise `ValueError` naming the bad field or option. `net`: where the
    endpoint may connect (checked here for gRPC, which resolves by itself, and at each connect for HTTP)."""
    d = spec_to_dict(spec)
    kind = str(d["backend"] or "")
    if kind not in BACKENDS:
        raise ValueError(f"model spec {d['name']!r}: backend must be one of {BACKENDS}, got {kind!r}")
    params: dict[str, Any] = dict(d["params"])
    extra_body: dict[str, Any] = {}
    for key in list(params):
        if kind == "openai" and key.startswith("body."):
            extra_body[key[len("body."):]] = _json_or_text(params.pop(key))
    for key in PROMPT_OPTIONS:
        params.pop(key, None)
    unknown = sorted(set(params) - _ALLOWED[kind])
    if unknown:
        raise ValueError(f"model spec {d['name']!r}: unknown option(s) for backend {kind}: {', '.join(unknown)}; "
                         f"allowed: {', '.join(sorted(_ALLOWED[kind]))}")
    name = str(d["name"] or d["model"] or kind)
    try:
        if kind == "llama_local":
            from livetab.models.llama_local import LlamaLocalBackend

            local: dict[str, Any] = {"name": name, "model": str(d["model"] or "")}
            if "n_ctx" in params:
                local["n_ctx"] = int(params["n_ctx"])
            if "n_threads" in params:
                local["n_threads"] = int(params["n_threads"])
            return LlamaLocalBackend(params.get("model_path") or None, **local)
        if kind == "scripted":
            from livetab.models.scripted import ScriptedBackend

            return ScriptedBackend(name, policy=str(params.get("policy", "oracle")),
                                   phrasing=str(params.get("phrasing", "rotate")))
        guards = guards if guards is not None else EndpointGuards()
        if kind == "openai":
            from livetab.models.openai_compat import OpenAIBackend

            if "extra_body" in params:
                body = _json_or_text(params["extra_body"])
                if not isinstance(body, dict):
                    raise ValueError("extra_body must be a JSON object")
                extra_body = {**body, **extra_body}
            base_url = str(d["base_url"]).rstrip("/")
            options: dict[str, Any] = {}
            for key in ("timeout_s", "connect_timeout_s", "keepalive_s"):
                if key in params:
                    options[key] = float(params[key])
            if "concurrency" in params:
                options["concurrency"] = int(params["concurrency"])
            if "n_mode" in params:
                options["n_mode"] = str(params["n_mode"])
            return OpenAIBackend(base_url, str(d["model"]), name=name, api_key_ref=str(d["api_key_ref"]),
                                 extra_body=extra_body, resilience=guards.get(base_url, params), env=env, net=net,
                                 **options)
        from livetab.models.grpc_backend import GrpcBackend

        target = str(d["base_url"]).removeprefix("grpc://")
        if net is not None:
            net.check_endpoint(target)
        return GrpcBackend(target, str(d["model"]), name=name, api_key_ref=str(d["api_key_ref"]),
                           timeout_s=float(params.get("timeout_s", 120.0)), tls=_bool(params.get("tls", False)),
                           concurrency=int(params.get("concurrency", 16)),
                           resilience=guards.get(f"grpc://{target}", params), env=env)
    except (TypeError, ValueError) as e:
        raise ValueError(f"model spec {name!r} ({kind}): {e}") from None
