"""Model settings -> the ModelSpec carried on runs and requests."""

from __future__ import annotations

from livetab.settings import ModelSettings
from livetab.v1 import common_pb2

__all__ = ["model_spec"]


def model_spec(m: ModelSettings) -> common_pb2.ModelSpec:
    params = dict(m.params)
    if m.backend == "llama_local":
        params.setdefault("n_ctx", str(m.n_ctx))
        params.setdefault("n_threads", str(m.n_threads))
    if m.prompt_mode != "chat":
        params.setdefault("prompt_mode", m.prompt_mode)
        params.setdefault("shots", str(m.shots))
    return common_pb2.ModelSpec(name=m.name, backend=m.backend, base_url=m.base_url, model=m.model or m.name,
                                api_key_ref=m.api_key_ref, pool=m.pool, params=params,
                                knowledge_cutoff=m.knowledge_cutoff)
