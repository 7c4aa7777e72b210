"""Embedded mode from the command line: the services of `livetab.runtime.Embedded` (every service's handlers
over the in-process bus and SQLite), driven by commands.

`livetab run` publishes the configured sources' scrape commands, drives the services until nothing is left
to read, publishes the release (a ReleaseCommand), submits one run per configured model and drives again;
what happens in between is decided by the messages, as over Kafka. The stage commands (`generate`, `infer`,
`judge`) send the same commands to the same services and drive only as far as they need.

Resumable: ids are derived from content, every store write is an upsert and model answers are cached,
so a second run over the same inputs finds everything done and says so.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from google.protobuf.message import Message
from livetab import topics
from livetab.ids import content_id, judge_name, judgment_id
from livetab.models.spec import model_spec
from livetab.paths import repo_root
from livetab.runs import build_run
from livetab.runtime.embedded import Embedded
from livetab.settings import Settings
from livetab.store import Store, schema
from livetab.v1 import release_pb2, run_pb2, table_pb2

__all__ = ["Pipeline", "Summary", "export_release", "run_embedded", "run_messages", "scrape_commands",
           "write_jsonl"]

log = logging.getLogger(__name__)
COUNTED = {"tables": schema.tables, "questions": schema.questions, "answers": schema.results,
           "judgments": schema.judgments, "failures": schema.failures, "dead letters": schema.dead_letters}


@dataclass
class Summary:
    before: dict[str, int]
    after: dict[str, int]
    model_answers: int = 0  # answers the model gave in this process (a call of n samples gives n)
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


class Pipeline:
    """The services of embedded mode, and the commands the CLI sends them.

    `livetab run` sends every command; `livetab generate`, `infer` and `judge` send one kind each over the
    same store, so they compose: what one stored, the next finds. A service is started the first time a
    message reaches it, so a command never loads a model it does not call."""

    def __init__(self, settings: Settings, backends: dict[str, Any] | None = None) -> None:
        self.settings = settings
        self.services = Embedded(settings, backends=backends)
        self.store = self.services.store
        self.bus = self.services.bus
        self.before = _counts(self.store)
        self.calibration: dict[str, Any] | None = None  # calibration.json's figures, once reports are written

    def generate(self) -> None:
        """Sources -> tables -> verified questions, for every configured source; the release stays a draft."""
        for cmd in scrape_commands(self.settings):
            self.services.publish(topics.SCRAPES, cmd, key=cmd.id, message_id=cmd.id)
        self.services.drive()

    def publish_release(self, release: str | None = None) -> None:
        """Freeze the release (if still a draft) and make it live: runs may be planned against it."""
        from livetab_api.releases import release_command

        cmd = release_command(release or self.settings.run.release, "publish", by="livetab run")
        self.services.publish(topics.RELEASE_COMMANDS, cmd, key=cmd.release, message_id=cmd.id)
        self.services.drive()

    def plan(self, runs: list[run_pb2.Run]) -> int:
        """Submit the runs; the planner emits one request per question x format x setting x sample."""
        for run in runs:
            self.services.publish(topics.RUNS, run, key=run.id, message_id=run.id)
        self.services.drive(only=("api",))
        return sum((self.store.get(schema.runs, r.id) or {"planned": 0})["planned"] for r in runs)

    def answer(self, runs: list[run_pb2.Run], *, judge: bool, progress: Any = None) -> None:
        """Answer the planned requests (and, with `judge`, judge and report them as they come)."""
        planned = self.plan(runs)
        only = None if judge else ("api", "inference")
        table = schema.judgments if judge else schema.results
        task = progress.add_task("answer + judge" if judge else "answer", total=planned) if progress else None

        def tick() -> None:
            if progress:
                progress.update(task, completed=sum(self.store.count(table, run_id=r.id) for r in runs))

        self.services.drive(tick=tick, only=only)

    def judge_stored(self, run_ids: list[str], *, again: bool = False) -> int:
        """Send the judge service a JudgeCommand for these runs (their answers the configured judge has not
        judged yet; all of them with `again`) and drive it and the reporter. Returns how many answers the
        command covers."""
        name = judge_name(self.settings.judge)
        due = 0
        for run_id in run_ids:
            ids = [judgment_id(r["id"], name) for r in self.store.select(schema.results, run_id=run_id)]
            due += len(ids) if again else len(ids) - len(self.store.ids(schema.judgments, ids))
        at = datetime.now(UTC).isoformat(timespec="milliseconds")
        cmd = release_pb2.JudgeCommand(id=content_id("judge-command", *run_ids, str(again), at), run_ids=run_ids,
                                       again=again, requested_at=at)
        self.services.publish(topics.JUDGE_COMMANDS, cmd, key=cmd.id, message_id=cmd.id)
        self.services.drive(only=("judge", "reporter"))
        return due

    def write_reports(self, run_ids: list[str]) -> tuple[dict[str, Any], Path]:
        """The leaderboard files of these runs in the configured release's folder: read back when the reporter
        service of this pipeline has just written them (these runs are every run on the release and none was
        judged since), else written by the reporter's own function (`livetab_reporter.files.write_leaderboard`)."""
        from livetab.calibration import load_calibration
        from livetab_reporter.files import out_root, release_runs, report_dir, write_leaderboard

        release = self.settings.run.release
        out_dir = report_dir(self.settings, release)
        reporters = self.services.handlers("reporter")
        fresh: set[str] = set().union(*(getattr(h, "fresh_releases", set()) for h in reporters))
        board = out_dir / "leaderboard.json"
        if release in fresh and sorted(run_ids) == release_runs(self.store, release) and board.is_file():
            doc: dict[str, Any] = json.loads(board.read_text(encoding="utf-8"))
        else:
            auto = next((h.calibration(self.services.ctx) for h in reporters if hasattr(h, "calibration")), None)
            doc = write_leaderboard(self.store, self.settings, run_ids, out_dir, release, auto=auto)
        self.calibration = load_calibration(out_root(self.settings))  # the reports carry it
        return doc, out_dir

    def summary(self, run_ids: list[str], leaderboard: dict[str, Any], out_dir: Path) -> Summary:
        inf = self.services.handlers("inference")
        release = self.settings.run.release
        return Summary(before=self.before, after=_counts(self.store),
                       model_answers=sum(getattr(h, "model_answers", 0) for h in inf),
                       cache_hits=sum(getattr(h, "cache_hits", 0) for h in inf), run_ids=run_ids,
                       leaderboard=leaderboard,
                       failures=[f for f in self.store.select(schema.failures) if f["release"] in (release, "")],
                       out_dir=str(out_dir))

    def close(self) -> None:
        self.services.close()


def run_embedded(settings: Settings, *, progress: Any = None, backends: dict[str, Any] | None = None) -> Summary:
    """One whole cycle: generate, answer, judge, report, and the release files."""
    p = Pipeline(settings, backends)
    try:
        task = progress.add_task("scrape + generate", total=None) if progress else None
        p.generate()
        p.publish_release()
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
