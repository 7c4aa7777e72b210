"""Embedded mode: every service's handlers in one process over the in-process bus and SQLite.

Resumable: ids are derived from content, every store write is an upsert and model answers are cached,
so a second run over the same inputs finds everything done and says so.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from google.protobuf.message import Message
from livetab.bus import HandlerContext, InProcBus, Outgoing, Worker
from livetab.bus.inflight import InFlightWorker
from livetab.ids import content_id, judge_name, judgment_id
from livetab.models.spec import model_spec
from livetab.paths import repo_root
from livetab.runs import build_run
from livetab.settings import Settings
from livetab.store import Store, open_store, schema
from livetab.v1 import run_pb2, table_pb2

from livetab_cli.wiring import handlers_for

__all__ = ["Pipeline", "Summary", "export_release", "run_embedded", "run_messages", "scrape_commands",
           "write_jsonl"]

log = logging.getLogger(__name__)
COUNTED = {"tables": schema.tables, "questions": schema.questions, "answers": schema.results,
           "judgments": schema.judgments, "failures": schema.failures, "dead letters": schema.dead_letters}


@dataclass
class Summary:
    before: dict[str, int]
    after: dict[str, int]
    model_calls: int = 0
    cache_hits: int = 0
    run_ids: list[str] = field(default_factory=list)
    leaderboard: dict[str, Any] = field(default_factory=dict)
    failures: list[dict[str, Any]] = field(default_factory=list)
    out_dir: str = ""

    @property
    def new(self) -> dict[str, int]:
        return {k: self.after[k] - self.before.get(k, 0) for k in self.after}


def _counts(store: Store) -> dict[str, int]:
    return {k: store.count(t) for k, t in COUNTED.items()}


def scrape_commands(settings: Settings) -> list[table_pb2.ScrapeCommand]:
    sources = settings.sources
    out = []
    for s in sources:
        location = s.location
        if location and not Path(location).is_absolute():
            location = str((repo_root() / location).resolve())
        out.append(table_pb2.ScrapeCommand(
            id=content_id("scrape", s.kind, location, settings.run.release, s.language), source=s.kind,
            location=location, release=settings.run.release, language=s.language, options=s.options))
    return out


def run_messages(settings: Settings) -> list[run_pb2.Run]:
    r = settings.run
    knobs = r.model_dump(exclude={"team", "release"})
    return [build_run(r.team, r.release, model_spec(m), **knobs) for m in settings.models]


def _drain(workers: list[Worker], tick: Callable[[], None] | None = None) -> None:
    while True:
        moved = sum(w.run_once() for w in workers)
        if tick:
            tick()
        if moved == 0:
            return


class Pipeline:
    """The six services' handlers over one in-process bus and one store, run stage by stage.

    `livetab run` runs every stage; `livetab generate`, `infer` and `judge` run one each over the same
    store, so they compose: what one stage stored, the next finds. Workers are built on first use, so a
    stage never loads a model it does not call."""

    def __init__(self, settings: Settings, backends: dict[str, Any] | None = None) -> None:
        self.settings = settings
        self.store = open_store(settings.store.url)
        self.bus = InProcBus()
        self.ctx = HandlerContext(store=self.store, settings=settings)
        self.before = _counts(self.store)
        self._backends = backends
        self._workers: dict[str, Worker] = {}
        self.calibration: dict[str, Any] | None = None  # calibration.json's figures, once reports are written

    def worker(self, name: str) -> Worker:
        if name not in self._workers:
            handler = handlers_for(name, self.settings, backends=self._backends)[0]
            if name == "inference":  # the service's own in-flight loop; run_once waits for what it polled
                self._workers[name] = InFlightWorker(handler, self.bus, self.ctx,  # type: ignore[arg-type]
                                                     poll_timeout_s=0, max_in_flight=4)
            else:
                self._workers[name] = Worker(handler, self.bus, self.ctx, poll_timeout_s=0, max_records=100)
        return self._workers[name]

    def generate(self) -> None:
        """Sources -> tables -> verified questions, for every configured source."""
        for cmd in scrape_commands(self.settings):
            self.bus.publish(Outgoing("livetab.scrapes.v1", cmd, key=cmd.id, message_id=cmd.id))
        _drain([self.worker("scraper"), self.worker("qagen")])

    def plan(self, runs: list[run_pb2.Run]) -> int:
        """Register the runs; the planner emits one request per question x format x setting x sample."""
        for run in runs:
            self.bus.publish(Outgoing("livetab.runs.v1", run, key=run.id, message_id=run.id))
        _drain([self.worker("api")])
        return sum((self.store.get(schema.runs, r.id) or {"planned": 0})["planned"] for r in runs)

    def answer(self, runs: list[run_pb2.Run], *, judge: bool, progress: Any = None) -> None:
        """Answer the planned requests (and, with `judge`, judge and report them as they come)."""
        planned = self.plan(runs)
        stage = [self.worker("inference")] + ([self.worker("judge"), self.worker("reporter")] if judge else [])
        table = schema.judgments if judge else schema.results
        task = progress.add_task("answer + judge" if judge else "answer", total=planned) if progress else None

        def tick() -> None:
            if progress:
                progress.update(task, completed=sum(self.store.count(table, run_id=r.id) for r in runs))

        _drain(stage, tick)

    def judge_stored(self, run_ids: list[str], *, again: bool = False) -> int:
        """Judge the stored answers of these runs that the configured judge has not judged yet (all of
        them with `again`), then report. Returns how many answers were judged."""
        from livetab.v1 import inference_pb2

        name = judge_name(self.settings.judge)
        fed = 0
        for run_id in run_ids:
            rows = {judgment_id(r["id"], name): r for r in self.store.select(schema.results, run_id=run_id)}
            done = set() if again else self.store.ids(schema.judgments, rows)
            for jid, r in rows.items():
                if jid not in done:
                    res = inference_pb2.InferenceResult.FromString(r["payload"])
                    self.bus.publish(Outgoing("livetab.inference.results.v1", res, key=res.run_id, message_id=res.id))
                    fed += 1
        _drain([self.worker("judge"), self.worker("reporter")])
        return fed

    def write_reports(self, run_ids: list[str]) -> tuple[dict[str, Any], Path]:
        """The leaderboard files of these runs in the configured release's folder: read back when the reporter
        handler of this pipeline has just written them (these runs are every run on the release and none was
        judged since), else written by the reporter's own function (`livetab_reporter.files.write_leaderboard`)."""
        from livetab.calibration import load_calibration
        from livetab_reporter.files import out_root, release_runs, report_dir, write_leaderboard

        release = self.settings.run.release
        out_dir = report_dir(self.settings, release)
        reporter = self._workers.get("reporter")
        fresh: set[str] = getattr(reporter.handler, "fresh_releases", set()) if reporter is not None else set()
        board = out_dir / "leaderboard.json"
        if release in fresh and sorted(run_ids) == release_runs(self.store, release) and board.is_file():
            doc: dict[str, Any] = json.loads(board.read_text(encoding="utf-8"))
        else:
            auto = reporter.handler.calibration(self.ctx) if reporter is not None else None  # type: ignore[attr-defined]
            doc = write_leaderboard(self.store, self.settings, run_ids, out_dir, release, auto=auto)
        self.calibration = load_calibration(out_root(self.settings))  # the reports carry it
        return doc, out_dir

    def summary(self, run_ids: list[str], leaderboard: dict[str, Any], out_dir: Path) -> Summary:
        inf = self._workers.get("inference")
        release = self.settings.run.release
        return Summary(before=self.before, after=_counts(self.store),
                       model_calls=getattr(inf.handler, "calls", 0) if inf else 0,
                       cache_hits=getattr(inf.handler, "cache_hits", 0) if inf else 0, run_ids=run_ids,
                       leaderboard=leaderboard,
                       failures=[f for f in self.store.select(schema.failures) if f["release"] in (release, "")],
                       out_dir=str(out_dir))

    def close(self) -> None:
        self.store.close()


def run_embedded(settings: Settings, *, progress: Any = None, backends: dict[str, Any] | None = None) -> Summary:
    """One whole cycle: generate, answer, judge, report, and the release files."""
    p = Pipeline(settings, backends)
    try:
        task = progress.add_task("scrape + generate", total=None) if progress else None
        p.generate()
        if progress:
            progress.update(task, total=1, completed=1)
        runs = run_messages(settings)
        p.answer(runs, judge=True, progress=progress)
        run_ids = [r.id for r in runs]
        doc, out_dir = p.write_reports(run_ids)
        export_release(p.store, settings, out_dir / "release", calibration=p.calibration, run_ids=run_ids)
        return p.summary(run_ids, doc, out_dir)
    finally:
        p.close()


def write_jsonl(path: Path, rows: list[dict[str, Any]], message: type[Message]) -> None:
    """Stored rows as JSON lines, one protobuf `message` (decoded from each row's payload) per line."""
    from google.protobuf.json_format import MessageToDict

    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for r in rows:
            doc = MessageToDict(message.FromString(r["payload"]), preserving_proto_field_name=True)
            f.write(json.dumps(doc, ensure_ascii=False) + "\n")


def export_release(store: Store, settings: Settings, folder: Path, *, release: str | None = None,
                   balance: str | None = None, calibration: dict[str, Any] | None = None,
                   run_ids: list[str] | None = None) -> dict[str, int]:
    """The release as files, by the reporter's export (`livetab_reporter.export.export_release_files`): in
    full into `folder` when the release is retired; for a live release, counts and redacted results into
    `folder` and the full files into the operator's `private/release`. Returns the questions per family."""
    from livetab_reporter.export import export_release_files

    return export_release_files(store, settings, folder, release=release or settings.run.release, balance=balance,
                                calibration=calibration, run_ids=run_ids)
