"""What `livetab eval --model ...` names, as model settings, and the probe that checks it answers before any
question is asked.

Model references:

- `openai:URL` — an OpenAI-compatible endpoint (`URL` ends in `/v1`); `model_name` is the served model's id
  (default: the only model the endpoint lists, named by its id, or by its file's name when the id is a GGUF's
  path, as llama.cpp's servers list them: `served_name`);
- `gguf:PATH` — a GGUF file run in process by llama.cpp (the `llama_local` backend);
- `grpc:HOST:PORT` — a team's `ModelService`;
- a bundled local model by name (`livetab.models.bundled`: `smollm2-135m`, `gemma3-270m`).

`model_args` (`temperature=0.2,max_tokens=256,api_key_env=MY_KEY`) sets the run's sampling (`temperature`,
`top_p`, `max_tokens`), the model's settings (`api_key_env` names the environment variable holding the key —
a key itself is never accepted —, `knowledge_cutoff`, `n_ctx`, `n_threads`, `prompt_mode`, `shots`, `name`)
and any backend option of `livetab.models.registry` (`timeout_s`, `concurrency`, `body.<field>`, ...).

The probe (`probe`) raises `ProbeError` with one line for: an endpoint that cannot be reached, a model name it
does not serve, a server that does not speak the protocol, an API-key variable that is not set, a GGUF that
is missing or not a GGUF.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from livetab.settings import ModelSettings

__all__ = ["RUN_ARGS", "EvalError", "EvalModel", "ProbeError", "parse_model", "parse_model_args", "probe",
           "served_name"]

RUN_ARGS = ("temperature", "top_p", "max_tokens")  # sampling: the run's knobs, not the model's
_MODEL_FIELDS = ("knowledge_cutoff", "n_ctx", "n_threads", "prompt_mode", "shots", "name", "pool")
_GGUF_MAGIC = b"GGUF"
PROBE_TIMEOUT_S = 10.0


class EvalError(Exception):
    """The evaluation cannot start (bad model reference, unknown release): one line for the user."""


class ProbeError(EvalError):
    """The model does not answer as it should (unreachable, wrong name, another protocol, missing key)."""


@dataclass
class EvalModel:
    """One model to evaluate: its settings and the run knobs its arguments set."""

    settings: ModelSettings
    run_args: dict[str, Any] = field(default_factory=dict)
    api_key_env: str = ""


def parse_model_args(text: str | Mapping[str, Any] | None) -> dict[str, str]:
    """`k=v,k=v` (or a mapping) as a dict of strings; a key named like a secret with a value is refused."""
    if not text:
        return {}
    if isinstance(text, Mapping):
        pairs = {str(k): str(v) for k, v in text.items()}
    else:
        pairs = {}
        for part in (p.strip() for p in text.split(",")):
            if not part:
                continue
            if "=" not in part:
                raise EvalError(f"--model-args: {part!r} is not KEY=VALUE")
            k, v = part.split("=", 1)
            pairs[k.strip()] = v.strip()
    for key in pairs:
        if key in ("api_key", "key", "token", "password") or (key.endswith("_key") and key != "api_key_env"):
            raise EvalError(f"--model-args: {key} would put a secret on the command line; name the environment "
                            "variable that holds it with api_key_env=VAR")
    return pairs


def _name_of(ref: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", ref).strip("-")[:120] or "model"


def served_name(model_id: str) -> str:
    """The leaderboard name of a model a server lists by `model_id`. llama.cpp's servers list a GGUF by its file
    path: it is named by the file's name without `.gguf`, as `gguf:PATH` names the same file, so one model gets one
    name either way. Any other id (`Qwen/Qwen2.5-7B-Instruct`, `fake-model`) is kept, made safe."""
    if model_id.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", model_id):
        leaf = re.split(r"[\\/]", model_id.rstrip("/\\"))[-1]
        return _name_of(leaf.removesuffix(".gguf"))
    return _name_of(model_id)


def parse_model(ref: str, *, model_name: str = "", args: Mapping[str, str] | None = None) -> EvalModel:
    """The settings `ref` and its arguments describe (see the module docstring); `EvalError` when they cannot."""
    from livetab.models.bundled import BUNDLED

    args = dict(args or {})
    run_args: dict[str, Any] = {}
    for key in RUN_ARGS:
        if key in args:
            raw = args.pop(key)
            try:
                run_args[key] = int(raw) if key == "max_tokens" else float(raw)
            except ValueError:
                raise EvalError(f"--model-args: {key}={raw!r} is not a number") from None
    fields: dict[str, Any] = {k: args.pop(k) for k in _MODEL_FIELDS if k in args}
    key_env = args.pop("api_key_env", "")
    params = dict(args)
    kind, _, rest = ref.partition(":")
    if kind == "openai" and rest:
        if not rest.startswith(("http://", "https://")):
            raise EvalError(f"--model {ref}: openai: takes an http(s) URL ending in /v1")
        base: dict[str, Any] = dict(backend="openai", base_url=rest.rstrip("/"), model=model_name,
                                    name=model_name or _name_of(rest.split("://", 1)[1]))
    elif kind == "gguf" and rest:
        path = Path(rest).expanduser().resolve()
        params.setdefault("model_path", str(path))
        base = dict(backend="llama_local", name=path.stem, model=path.stem)
    elif kind == "grpc" and rest:
        base = dict(backend="grpc", base_url=rest, model=model_name, name=model_name or _name_of(rest))
    elif ref in BUNDLED:
        base = dict(backend="llama_local", name=ref, model=ref)
        if ref == "gemma3-270m":  # a base model: completion prompts with one worked example, as in the demo
            base.update(prompt_mode="completion", shots=1)
    else:
        raise EvalError(f"--model {ref!r}: use openai:URL, gguf:PATH, grpc:HOST:PORT or a bundled model "
                        f"({', '.join(BUNDLED)})")
    if key_env and base["backend"] != "openai":
        raise EvalError(f"--model-args: api_key_env is for openai: endpoints, not {base['backend']}")
    try:
        settings = ModelSettings(**{**base, **fields, "api_key_ref": key_env, "params": params})
    except ValueError as e:
        raise EvalError(f"--model {ref}: {_first_line(e)}") from None
    return EvalModel(settings, run_args, key_env)


def _first_line(e: Exception) -> str:
    errors = getattr(e, "errors", None)
    if callable(errors):
        try:
            first = errors()[0]
            return f"{'.'.join(str(x) for x in first.get('loc', ())) or 'value'}: {first.get('msg', '')}"
        except (IndexError, TypeError):
            pass
    return str(e).splitlines()[0]


def probe(model: EvalModel, env: Mapping[str, str] | None = None) -> str:
    """Check the model can answer, without asking it anything; returns what was checked (one line).
    `ProbeError` (one line) when it cannot."""
    env = os.environ if env is None else env
    s = model.settings
    if s.backend == "openai":
        return _probe_openai(model, env)
    if s.backend == "grpc":
        return _probe_grpc(s)
    if "model_path" in s.params:
        return _probe_gguf(Path(s.params["model_path"]))
    from livetab.models.base import ModelError
    from livetab.models.bundled import locate

    try:
        return f"bundled model {s.model}: {locate(s.model)}"
    except ModelError as e:
        raise ProbeError(str(e)) from None


def _probe_gguf(path: Path) -> str:
    if not path.is_file():
        raise ProbeError(f"no GGUF file at {path}")
    with path.open("rb") as f:
        magic = f.read(4)
    if magic != _GGUF_MAGIC:
        raise ProbeError(f"{path} is not a GGUF file (it starts with {magic!r}, not {_GGUF_MAGIC!r})")
    return f"GGUF file {path} ({path.stat().st_size} bytes)"


def _probe_openai(model: EvalModel, env: Mapping[str, str]) -> str:
    """GET `{base_url}/models` through the client that will ask the questions (`livetab.models.probe`, the api's
    door probes with it too): no redirect followed and no proxy, as for the requests, so an endpoint the probe
    accepts is one the evaluation can use. Picks the one model a server serves when none was named."""
    from livetab.models.probe import KeyHint, ProbeFailed, served_models_sync

    s = model.settings
    if model.api_key_env and not env.get(model.api_key_env, ""):
        raise ProbeError(f"the environment variable {model.api_key_env} (api_key_env) is not set; export it "
                         "with the API key")
    hint = KeyHint(f"check the key in {model.api_key_env}", "it needs a key: --model-args api_key_env=VAR")
    try:
        served = served_models_sync(s, hint=hint, env=env, timeout_s=PROBE_TIMEOUT_S)
    except ProbeFailed as e:
        raise ProbeError(str(e)) from None
    if not s.model:
        if len(served) != 1:
            raise ProbeError(f"{s.base_url} serves {len(served)} models ({', '.join(served[:8]) or 'none'}); "
                             "choose one with --model-name")
        s.model = served[0]
        if s.name == _name_of(s.base_url.split("://", 1)[1]):
            s.name = served_name(served[0])
    elif s.model not in served:
        raise ProbeError(f"{s.base_url} does not serve a model named {s.model!r} (it serves: "
                         f"{', '.join(served[:8]) or 'none'})")
    return f"{s.base_url} serves {s.model}"


def _probe_grpc(s: ModelSettings) -> str:
    """The health check the api's door uses too (livetab.models.probe), with no address policy: a local eval
    may name any endpoint its user can reach."""
    from livetab.models.probe import ProbeFailed, probe_endpoint_sync

    try:
        return probe_endpoint_sync(s, timeout_s=PROBE_TIMEOUT_S)
    except ProbeFailed as e:
        raise ProbeError(str(e)) from None
