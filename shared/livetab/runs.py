"""Building a run: the same settings give the same run id, whether the run came from a config file
(embedded) or over HTTP (api); which of a question's samples are asked in one model call (`sample_call`); and
how far a run's judging has got (`judging_progress`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from livetab.ids import run_id
from livetab.store import schema
from livetab.topics import INFERENCE_REQUESTS, INFERENCE_RESULTS
from livetab.v1 import common_pb2, run_pb2

__all__ = ["CANCELLED", "SAMPLES_PER_CALL", "JudgingProgress", "build_run", "judging_progress", "rerun_of", "sample_call"]

CANCELLED = "cancelled"  # the error of a request whose run was cancelled (POST /runs/{id}/cancel)
# At most this many of a question's samples are asked in one model call (`sample_call`): the endpoint reads the
# prompt, most of it the table, once for them; a server that honours `n` draws them side by side.
SAMPLES_PER_CALL = 16


def sample_call(model: common_pb2.ModelSpec, samples: int, index: int) -> tuple[int, int]:
    """(call_size, call_choice) of sample `index` (0-based) of a question asked `samples` times
    (`InferenceRequest.call_size`, `.call_choice`): samples go in calls of `SAMPLES_PER_CALL` in order, the last
    call taking what is left, and sample `index` is choice `call_choice` of its call; (0, 0), a call of its own,
    when it would be alone in its call, for a llama_local model (in-process llama.cpp answers one sample at a
    time, so a call of n would give n samples one request's time limit) and for a model whose `n_mode` param is
    loop (one call per sample, each with its own seed: what its owner asked for). A function of the run alone,
    so planning a run again gives the same requests."""
    if samples < 2 or model.backend == "llama_local" or model.params.get("n_mode") == "loop":
        return 0, 0
    start = index - index % SAMPLES_PER_CALL
    size = min(SAMPLES_PER_CALL, samples - start)
    return (size, index - start) if size > 1 else (0, 0)


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


def rerun_of(run: run_pb2.Run, release: str) -> run_pb2.Run:
    """The same team, model spec and knobs on another release: the run `build_run` gives for them there (so
    its id is the one a fresh submission of the same settings on that release would get)."""
    rs, sp = run.settings, run.settings.sampling
    return build_run(run.team, release, run.model, formats=list(rs.formats), settings=list(rs.settings),
                     samples=rs.samples, temperature=sp.temperature, top_p=sp.top_p, max_tokens=sp.max_tokens,
                     seed=sp.seed, max_rows=rs.max_rows, families=list(rs.families), limit=rs.limit)


@dataclass(frozen=True)
class JudgingProgress:
    planned: int  # requests the planner made (0 when the run is not planned, or not yet)
    judged: int  # judgments by the judge asked about (one per request; a re-judgment replaces its row)
    dead_lettered: int  # requests, or their results, dead-lettered and not redriven: they will never be judged
    cancelled: int = 0  # requests of a cancelled run recorded unasked (error CANCELLED): never judged either

    @property
    def complete(self) -> bool:
        """Every planned request is judged, dead-lettered or cancelled (a planned run only)."""
        return self.planned > 0 and self.judged + self.dead_lettered + self.cancelled >= self.planned


def _settles(letter: dict[str, Any]) -> bool:
    """A dead letter of an inference request (any pool's topic) or result, not redriven since: its request
    will never be judged. A redriven one is outstanding again until it is answered."""
    topic = str(letter["source_topic"])
    request = topic.startswith(INFERENCE_REQUESTS.removesuffix(".v1"))
    return (request or topic == INFERENCE_RESULTS) and letter.get("redriven_at") is None


def judging_progress(store: Any, run: str, judge: str, planned: int | None = None,
                     cancelled: bool | None = None) -> JudgingProgress:
    """How far judging has got on `run` (by `judge`'s verdicts): a few count queries, so a reporter can ask
    on every batch. `planned` and `cancelled` (its `cancelled_at` is set) when the caller has the run's row
    already; a run not cancelled costs no count of cancelled results."""
    with store.reading():  # one connection for these reads
        if planned is None or cancelled is None:
            row = store.get(schema.runs, run)
            planned = planned if planned is not None else int(row["planned"]) if row is not None else 0
            cancelled = row is not None and row.get("cancelled_at") is not None
        judged = int(store.count(schema.judgments, run_id=run, judge=judge))
        letters = sum(_settles(d) for d in store.select(schema.dead_letters, run_id=run))
        unasked = int(store.count(schema.results, run_id=run, error=CANCELLED)) if cancelled else 0
    return JudgingProgress(planned=planned, judged=judged, dead_lettered=letters, cancelled=unasked)
