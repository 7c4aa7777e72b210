"""Building a run: the same settings give the same run id, whether the run came from a config file
(embedded) or over HTTP (api)."""

from __future__ import annotations

from collections.abc import Sequence

from livetab.ids import run_id
from livetab.v1 import common_pb2, run_pb2

__all__ = ["build_run"]


def build_run(team: str, release: str, spec: common_pb2.ModelSpec, *, formats: Sequence[str] = ("markdown",),
              settings: Sequence[str] = ("with_table",), samples: int = 1, temperature: float = 0.0,
              top_p: float = 1.0, max_tokens: int = 32, seed: int = 0, max_rows: int = 40,
              families: Sequence[str] = (), limit: int = 0) -> run_pb2.Run:
    knobs = {"formats": list(formats), "settings": list(settings), "samples": samples, "temperature": temperature,
             "top_p": top_p, "max_tokens": max_tokens, "seed": seed, "max_rows": max_rows,
             "families": list(families), "limit": limit}
    model = {"backend": spec.backend, "model": spec.model, "base_url": spec.base_url, "params": dict(spec.params)}
    rs = run_pb2.RunSettings(formats=formats, settings=settings, samples=samples, max_rows=max_rows,
                             families=families, limit=limit,
                             sampling=common_pb2.Sampling(temperature=temperature, top_p=top_p, max_tokens=max_tokens,
                                                          seed=seed))
    return run_pb2.Run(id=run_id(team, spec.name, release, {**knobs, "model": model}), team=team, model=spec,
                       release=release, settings=rs)
