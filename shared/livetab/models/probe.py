"""The probe at the door: before a submitted run is accepted, one tiny request checks that its model endpoint
answers as the run will need — through the very client the inference service uses (`backend_from_spec` with
the api's `NetPolicy`: every address checked again at connect time, no redirect, the answer capped).

- OpenAI-compatible: `GET {base_url}/models` must list the run's model (`OpenAIBackend.served_models`).
- gRPC `ModelService`: the standard health check must say SERVING (the protocol has no model list; a wrong
  model name shows in the run's first answers).

`probe_endpoint` returns one line saying what it checked, or raises `ProbeFailed` with one line for: an
endpoint that cannot be reached, a model name it does not serve, a server that speaks another protocol, a key
the endpoint refuses or needs, a key reference whose secret is not set. The line never holds the key.
Other backends (the platform's own: llama_local, scripted, hosted pools) are not probed.

`livetab eval` probes through the same client (`served_models_sync`, no address policy: a local evaluation may
name any endpoint its user can reach), so what its probe accepts is what its requests get: no redirect
followed, no proxy the requests would not use. `KeyHint` says how a caller's messages name the key setting.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from livetab.models.registry import backend_from_spec
from livetab.models.resilience import StatusError
from livetab.models.spec import model_spec
from livetab.netguard import NetPolicy, NetRefused
from livetab.settings import ModelSettings

if TYPE_CHECKING:
    from livetab.models.grpc_backend import GrpcBackend
    from livetab.models.openai_compat import OpenAIBackend

__all__ = ["API_KEY_HINT", "PROBED_BACKENDS", "KeyHint", "ProbeFailed", "probe_endpoint", "probe_endpoint_sync",
           "served_models_sync"]

PROBED_BACKENDS = ("openai", "grpc")


class ProbeFailed(ValueError):
    """The endpoint does not answer as a run needs; the message is one line, safe to show its submitter."""


@dataclass(frozen=True)
class KeyHint:
    """What to tell a caller whose endpoint refused the request (401/403): with a key set (`check`) or without
    one (`needed`)."""

    check: str
    needed: str


# the api's door: a submitted run names its key by a secret of its team
API_KEY_HINT = KeyHint("check the secret api_key_ref names", "it needs a key: set api_key_ref to a secret registered "
                       "for the team")


def _backend(model: ModelSettings, net: NetPolicy | None, env: Mapping[str, str] | None) -> Any:
    try:
        return backend_from_spec(model_spec(model), net=net, env=env)
    except NetRefused as e:
        raise ProbeFailed(f"model base_url: {e}") from None
    except ValueError as e:  # e.g. the key reference names a variable that is not set
        raise ProbeFailed(f"the model cannot be reached as submitted: {str(e).splitlines()[0]}") from None


async def probe_endpoint(model: ModelSettings, *, net: NetPolicy | None = None, env: Mapping[str, str] | None = None,
                         timeout_s: float = 10.0) -> str:
    if model.backend not in PROBED_BACKENDS:
        return f"{model.backend}: served by the platform, not probed"
    backend = _backend(model, net, env)
    try:
        if model.backend == "openai":
            return await _probe_openai(backend, timeout_s)
        return await _probe_grpc(backend, timeout_s)
    finally:
        await backend.close()


async def _served(backend: OpenAIBackend, timeout_s: float, hint: KeyHint) -> list[str]:
    """The model ids the endpoint lists; `ProbeFailed` (one line) when it cannot say."""
    backend.timeout_s = backend.connect_timeout_s = timeout_s  # read when its session is made, just below
    try:
        return await asyncio.wait_for(backend.served_models(), timeout_s + 1)
    except TimeoutError:
        raise ProbeFailed(f"cannot reach {backend.base_url}/models: no answer within {timeout_s:g}s") from None
    except StatusError as e:
        if e.status in (401, 403):
            how = hint.check if backend.api_key_ref else hint.needed
            raise ProbeFailed(f"{backend.base_url}/models refused the request ({e.status}): {how}") from None
        if e.status and e.status != 200:
            raise ProbeFailed(f"{backend.base_url} does not speak the OpenAI API: GET /models answered {e.status} "
                              "(is base_url the server's /v1 base?)") from None
        raise ProbeFailed(str(e).splitlines()[0][:300]) from None


def served_models_sync(model: ModelSettings, *, hint: KeyHint, env: Mapping[str, str] | None = None,
                       timeout_s: float = 10.0) -> list[str]:
    """The model ids an OpenAI-compatible endpoint lists (`GET {base_url}/models` through the inference client,
    no address policy), from synchronous code with no running event loop; `ProbeFailed` (one line) when it
    cannot say. `hint` names the caller's key setting in the message for a refused request."""
    async def ask() -> list[str]:
        backend = _backend(model, None, env)
        try:
            return await _served(backend, timeout_s, hint)
        finally:
            await backend.close()

    return asyncio.run(ask())


async def _probe_openai(backend: OpenAIBackend, timeout_s: float) -> str:
    served = await _served(backend, timeout_s, API_KEY_HINT)
    if backend.model not in served:
        listed = ", ".join(m[:60] for m in served[:8]) or "none"
        raise ProbeFailed(f"{backend.base_url} does not serve a model named {backend.model[:80]!r} (it serves: "
                          f"{listed})")
    return f"{backend.base_url} serves {backend.model}"


async def _probe_grpc(backend: GrpcBackend, timeout_s: float) -> str:
    backend.timeout_s = timeout_s
    try:
        status = await asyncio.wait_for(backend.health(), timeout_s + 1)
    except (TimeoutError, OSError, ValueError) as e:
        raise ProbeFailed(f"cannot reach the ModelService at {backend.target}: {type(e).__name__}") from None
    if status.startswith("UNREACHABLE"):
        raise ProbeFailed(f"cannot reach a gRPC ModelService at {backend.target} ({status}; is it a gRPC server?)")
    if status != "SERVING":
        raise ProbeFailed(f"the ModelService at {backend.target} is not serving (health: {status})")
    return f"ModelService at {backend.target}: SERVING"


def probe_endpoint_sync(model: ModelSettings, *, net: NetPolicy | None = None, env: Mapping[str, str] | None = None,
                        timeout_s: float = 10.0) -> str:
    """`probe_endpoint` from synchronous code with no running event loop (the api's route threads)."""
    return asyncio.run(probe_endpoint(model, net=net, env=env, timeout_s=timeout_s))
