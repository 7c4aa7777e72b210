"""`livetab.evaluate` (this module is `livetab.evaluate_api`, so that `livetab.evaluate` stays the function): evaluate one or more models on a release without a config file — what `livetab eval`
runs, and the same from Python.

It goes through the pipeline's own services (`livetab.runtime.embedded.Embedded`: planner, inference, judge,
reporter over the in-process bus and one store), exactly as `livetab run` does after generation:

1. every model is probed (`evaluate_model.probe`) before anything else: an endpoint that cannot be reached, a
   model name it does not serve, a server that speaks another protocol or a missing API-key variable stops
   the evaluation with `ProbeError` (one line) before any question is asked;
2. the release is made present in the store (`evaluate_release.ensure_release`: a stored release, a retired
   release's export folder, or the bundled sample) and published (a ReleaseCommand PUBLISH, which freezes a
   draft first);
3. one run per model is submitted (a Run message: the planner makes the requests) and the services are driven
   until nothing is left to read;
4. the leaderboard files (`leaderboard.json`, `.md`, `report.html`) come from the reporter, the per-sample log
   (`samples.jsonl`, `samples.parquet`) from the store (`evaluate_files.EvalFiles`: for a large evaluation, the
   reporter's half is written by a process of its own, `livetab.report_process`, started with the requests).

The store is persistent (default `OUTPUT/livetab.db`), ids are content hashes and answers are cached, so an
evaluation stopped half-way (Ctrl-C) resumes where it stopped when run again with the same arguments.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from livetab import interpreter
from livetab.evaluate_files import EvalFiles
from livetab.evaluate_model import EvalError, EvalModel, ProbeError, parse_model, parse_model_args, probe
from livetab.evaluate_release import BUNDLED_RELEASE, ensure_release
from livetab.evaluate_samples import write_samples
from livetab.settings import InferenceSettings, ReporterSettings, RunSettings, Settings, StoreSettings

__all__ = ["DEFAULT_OUTPUT", "EvalError", "ProbeError", "Progress", "Results", "evaluate"]

log = logging.getLogger(__name__)
DEFAULT_OUTPUT = "out/eval"
TEAM = "eval"
PROGRESS_EVERY_S = 0.1  # the `progress` callback's interval, at most (a progress bar redrawn ten times a second)


@dataclass(frozen=True)
class Progress:
    """Where an evaluation stands, given to the `progress` callback after every round of the services."""

    planned: int
    answered: int
    judged: int
    elapsed_s: float
    tokens: int = 0  # completion tokens generated so far by this evaluation's calls (cached answers excluded)

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / self.elapsed_s if self.elapsed_s > 0 else 0.0


@dataclass
class Results:
    """An evaluation's results: `leaderboard` (leaderboard.json's document), `samples` (one row per answer: a
    pandas DataFrame), the files written and the runs."""

    leaderboard: dict[str, Any]
    sample_rows: list[dict[str, Any]]
    release: str
    run_ids: list[str]
    output: Path
    files: list[Path] = field(default_factory=list)
    probes: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0

    @property
    def samples(self) -> Any:
        """The per-sample rows as a pandas DataFrame."""
        import pandas as pd

        from livetab.evaluate_samples import SAMPLE_COLUMNS

        return pd.DataFrame(self.sample_rows, columns=list(SAMPLE_COLUMNS))

    def save(self, folder: str | Path) -> list[Path]:
        """leaderboard.json and the samples files into `folder`; the paths written."""
        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        lb = out / "leaderboard.json"
        lb.write_text(json.dumps(self.leaderboard, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return [lb, *write_samples(out, self.sample_rows)]


def _models(model: str | Sequence[str], model_name: str, model_args: Any) -> list[EvalModel]:
    refs = [model] if isinstance(model, str) else list(model)
    if not refs:
        raise EvalError("no model to evaluate")
    args = parse_model_args(model_args)
    models = [parse_model(r, model_name=model_name, args=args) for r in refs]
    names = [m.settings.name for m in models]
    if len(set(names)) != len(names):
        raise EvalError(f"two models would have the same name ({', '.join(names)}); evaluate them one at a time")
    return models


# the services an evaluation runs: the release made live (api), answered, judged; no scraping or generation, and no
# reporter service (its live leaderboard rows serve the api; `_write_reports` writes the files once, at the end)
EVAL_SERVICES = ("api", "inference", "judge")


def _settings(models: list[EvalModel], output: Path, store: str, concurrency: int, knowledge_cutoff: str) -> Settings:
    for m in models:
        if knowledge_cutoff:
            m.settings.knowledge_cutoff = knowledge_cutoff
        if concurrency and m.settings.backend in ("openai", "grpc"):
            m.settings.params.setdefault("concurrency", str(concurrency))
    window = max(concurrency, 1) if any(m.settings.backend != "llama_local" for m in models) else 4
    inference = InferenceSettings(max_in_flight=max(window, 1), embedded_max_in_flight=window)
    # nobody reads the live leaderboard rows during a batch evaluation: recompute them when the judged count has
    # doubled (and, as always, once the run is complete) instead of every 10%; the report files are written once,
    # at the end, by `_write_reports` (the reporter service would write each run's folder and the release's
    # files, figures included, as runs complete: seconds of drawing while requests wait)
    reporter = ReporterSettings(refresh_growth=1.0, refresh_s=600.0, write_files=False)
    return Settings(out_dir=str(output), store=StoreSettings(url=store or f"sqlite:///{output / 'livetab.db'}"),
                    models=[m.settings for m in models], inference=inference, reporter=reporter)


def _publish_release(services: Any, release: str) -> None:
    """Make the release live (the release handler freezes a draft first), as `livetab run` does: a ReleaseCommand
    PUBLISH, unless it is live already. A retired release takes no new runs (`livetab.releases`): evaluate its
    export folder instead. EvalError (one line) when the release handler leaves it not live."""
    from livetab import topics
    from livetab.ids import content_id
    from livetab.releases import RETIRED, get_release, not_live_reason
    from livetab.v1 import release_pb2

    rel = get_release(services.store, release)
    if rel is not None and rel.status == RETIRED:
        raise EvalError(f"release {release!r} is retired in this store and takes no new runs; evaluate its export "
                        f"folder (`livetab release export`) with another --output")
    if not_live_reason(services.store, release) is None:
        return
    at = datetime.now(UTC).isoformat(timespec="milliseconds")
    cmd = release_pb2.ReleaseCommand(id=content_id("release-command", release, "publish", at), release=release,
                                     action=release_pb2.ReleaseCommand.PUBLISH, requested_by="livetab eval",
                                     requested_at=at)
    services.publish(topics.RELEASE_COMMANDS, cmd, key=release, message_id=cmd.id)
    services.drive()
    reason = not_live_reason(services.store, release)
    if reason is not None:
        raise EvalError(f"could not publish the release: {reason}")


@contextmanager
def _interpreter_for_a_batch() -> Iterator[None]:
    """Python's cyclic garbage collector and thread switch interval set for one evaluation, then put back.

    The HTTP client's event loop runs in its own thread beside this one (which prepares, stores and judges):
    each time it waits for the GIL (after every socket call) while this thread computes, it waits up to the
    switch interval. At 1 ms instead of 5 the answers' mean latency against a 100 ms server fell from
    115-119 ms to 112-115 ms and the last answer came 0.01-0.19 s earlier (4 alternating pairs).

    Every object alive when the evaluation starts (the imported modules, the settings, the caller's own data)
    is moved out of the collector's reach (`gc.freeze`), and the young generation is collected every
    GC_YOUNG_THRESHOLD allocations instead of every 700. With the defaults, an evaluation of 2,000 questions spent
    0.5-0.75 s in collections, three of them full ones that scanned every object of the process for 0.09-0.19 s
    each with the GIL held while answers waited for it; 0.09-0.14 s in all this way (no full collection). Garbage
    is still collected, in fewer and larger young collections. The thresholds are put back at the end and the
    objects frozen here unfrozen, unless the caller had frozen some itself (everything then stays frozen, as it
    asked)."""
    before, frozen, switch = gc.get_threshold(), gc.get_freeze_count(), sys.getswitchinterval()
    gc.freeze()
    interpreter.tune()
    try:
        yield
    finally:
        sys.setswitchinterval(switch)
        gc.set_threshold(*before)
        if not frozen:
            gc.unfreeze()


def evaluate(model: str | Sequence[str], *, release: str = BUNDLED_RELEASE, model_name: str = "",
             model_args: str | dict[str, Any] | None = None, families: Sequence[str] = (),
             formats: Sequence[str] = ("markdown",), settings: Sequence[str] = ("with_table",), samples: int = 1,
             limit: int = 0, seed: int = 0, concurrency: int = 16, output: str | Path = DEFAULT_OUTPUT,
             store: str = "", knowledge_cutoff: str = "", max_rows: int = 40,
             progress: Callable[[Progress], None] | None = None,
             on_probe: Callable[[str], None] | None = None) -> Results:
    """Evaluate `model` (a reference or a list: `openai:URL`, `gguf:PATH`, `grpc:HOST:PORT`, a bundled model
    name) on `release` and return its results; the files go to `output`. See the module docstring and
    `livetab eval --help` for the options. Raises `ProbeError` / `EvalError` (one line) when it cannot start.

    Usable from a notebook: when this thread already runs an event loop, the evaluation runs in a worker
    thread and this call waits for it."""
    kwargs = dict(release=release, model_name=model_name, model_args=model_args, families=families, formats=formats,
                  settings=settings, samples=samples, limit=limit, seed=seed, concurrency=concurrency, output=output,
                  store=store, knowledge_cutoff=knowledge_cutoff, max_rows=max_rows, progress=progress,
                  on_probe=on_probe)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        with _interpreter_for_a_batch():
            return _evaluate(model, **kwargs)  # type: ignore[arg-type]
    import concurrent.futures

    with _interpreter_for_a_batch(), concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="livetab-evaluate") as pool:
        return pool.submit(_evaluate, model, **kwargs).result()  # type: ignore[arg-type]


def _evaluate(model: str | Sequence[str], *, release: str, model_name: str, model_args: str | dict[str, Any] | None,
              families: Sequence[str], formats: Sequence[str], settings: Sequence[str], samples: int, limit: int,
              seed: int, concurrency: int, output: str | Path, store: str, knowledge_cutoff: str, max_rows: int,
              progress: Callable[[Progress], None] | None, on_probe: Callable[[str], None] | None) -> Results:
    from livetab import topics
    from livetab.ids import judge_name
    from livetab.models.spec import model_spec
    from livetab.runs import build_run
    from livetab.runtime.embedded import Embedded
    from livetab.store import open_store, schema

    t0 = time.monotonic()
    started = time.time()
    models = _models(model, model_name, model_args)
    out = Path(output).expanduser().resolve()
    cfg = _settings(models, out, store, concurrency, knowledge_cutoff)
    probes = []
    for m in models:  # before anything is written or asked
        probes.append(probe(m))
        if on_probe:
            on_probe(probes[-1])
    try:
        knobs = RunSettings(formats=list(formats), settings=list(settings), samples=samples, seed=seed, limit=limit,
                            families=list(families), max_rows=max_rows).model_dump(exclude={"team", "release"})
    except ValueError as e:
        from livetab.evaluate_model import _first_line

        raise EvalError(_first_line(e)) from None
    out.mkdir(parents=True, exist_ok=True)
    db = open_store(cfg.store.url)
    try:
        name, origin = ensure_release(release, db, cfg)
    except ValueError as e:
        db.close()
        raise EvalError(str(e)) from None
    cfg = cfg.model_copy(update={"run": cfg.run.model_copy(update={"release": name, "team": TEAM})})
    log.info("release %s from %s", name, origin)
    services = Embedded(cfg, store=db, services=EVAL_SERVICES)
    files: EvalFiles | None = None
    try:
        _publish_release(services, name)
        runs = []
        for m in models:
            try:
                run_knobs = RunSettings(**{**knobs, **m.run_args}).model_dump(exclude={"team", "release"})
            except ValueError as e:
                from livetab.evaluate_model import _first_line

                raise EvalError(f"--model-args: {_first_line(e)}") from None
            runs.append(build_run(TEAM, name, model_spec(m.settings), **run_knobs))
        for run in runs:
            services.publish(topics.RUNS, run, key=run.id, message_id=run.id)
        # one step of the planner: the runs planned (their rows say how many requests) and their first requests
        # published; the rest are published by the drive below, as the first ones are asked
        services.step(("api",))
        run_ids = [r.id for r in runs]
        planned = sum(int((services.store.get(schema.runs, r) or {"planned": 0})["planned"]) for r in run_ids)
        if planned == 0:
            raise EvalError(f"nothing to ask: release {name} has no verified question for these families/settings")
        judge = judge_name(cfg.judge)

        shown = [0.0]  # when progress was last given

        def tick(*, force: bool = False) -> None:
            # the drive's rounds are a few ms apart while requests stream: the counts (store queries) are read at
            # most every PROGRESS_EVERY_S, and once more at the end
            if progress is None or (not force and time.monotonic() - shown[0] < PROGRESS_EVERY_S):
                return
            shown[0] = time.monotonic()
            st = services.store
            progress(Progress(planned=planned, answered=sum(st.count(schema.results, run_id=r) for r in run_ids),
                              judged=sum(st.count(schema.judgments, run_id=r, judge=judge) for r in run_ids),
                              elapsed_s=time.monotonic() - t0,
                              tokens=sum(int(getattr(h, "completion_tokens", 0)) for h in services.handlers("inference"))))

        files = EvalFiles(services.store, cfg, release=name, run_ids=run_ids, judge=judge, planned=planned,
                          started=started)
        files.begin()

        def round_done() -> None:
            files.round_done()
            tick()

        # the services the answers will need and that have not started: each built the first time every service
        # waits on requests in flight (the judge's rubric import and handler, 0.05-0.07 s of the interpreter lock,
        # came when the first answers arrived and held them and the next requests up), then the files' reads ahead
        to_start = [n for n in EVAL_SERVICES if not services.handlers(n)]

        def waiting() -> None:
            if to_start:
                services.workers(to_start.pop(0))
            else:
                files.waiting()

        tick(force=True)
        services.drive(tick=round_done, on_wait=waiting)
        tick(force=True)
        rows, written = files.write()
    finally:
        try:
            for h in services.handlers("inference"):  # a handler that holds client sessions closes them
                close = getattr(h, "close", None)
                if callable(close):
                    close()
            services.close()
            db.close()
        finally:
            # the report process last: while it has the store open, closing this process's connections does not
            # checkpoint a SQLite store's write-ahead log into the database (0.02 s of writing and syncing at the
            # end of the eval benchmark); the last connection to close does it, the report process's as it exits
            if files is not None:
                files.close()
    doc = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    return Results(leaderboard=doc, sample_rows=rows, release=name, run_ids=run_ids, output=out, files=written,
                   probes=probes, elapsed_s=time.monotonic() - t0)
