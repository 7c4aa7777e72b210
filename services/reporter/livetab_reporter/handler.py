"""The reporter handler: judgments and release events in; leaderboard rows (store), a leaderboard update (topic)
and the report files out.

Rows are always recomputed from the store, never accumulated from messages, so redelivered judgments
never count twice; they count the verdicts of the configured judge only (`livetab.ids.judge_name`), so
an answer judged again by another judge is not counted twice either. A recompute reads the whole run,
so it is not done for every batch: a run named in a batch is recomputed when

- this handler has not recomputed it yet (a new run, or after a restart) and its first judgments arrived here
  `reporter.first_s` ago (1 s by default; not waited for when the run is complete: a run that completes within
  it is recomputed once, not twice, and each recompute reads the whole run; in `python -m bench pipeline` a
  2,000-answer run's recompute at its first batch took ~50 ms of the reporter's CPU while every stage was busy),
- its judged count has grown by `reporter.refresh_growth` (a fraction) since this handler's last recompute
  of it (the count is a query that grows with the run, so between counts the judgments a batch brings are
  added to the last one, and the store is counted again only when that estimate could make something due,
  or after `COUNT_EVERY_S`: see `_count_due`), and the last recompute has rested: one that took t seconds
  is followed by the next due to growth no sooner than t / `reporter.refresh_share` after it began, so the
  live recomputes of a large run (each reads the whole run) take at most that share of the reporter's time
  (in `python -m bench pipeline`, 40,000-answer runs: a recompute every ~10 % of the run read the run ~11
  times over and took ~80 % of the reporter's CPU),
- `reporter.refresh_s` seconds (monotonic clock) have passed since that recompute, or
- the run is complete: every planned request is judged or dead-lettered (`livetab.runs.judging_progress`),
  so the final update always goes out (once: a complete run's later batches, e.g. the backlog of a reporter
  that fell behind the judge, redeliveries, re-judgments, are throttled by `refresh_s` like the rest).

Otherwise the batch emits nothing for that run, and the run is held back: when the topic goes quiet
(`on_idle`, called by the worker on an empty poll) every held-back run whose `refresh_s` has passed, or that
has grown enough and rested, is recomputed, so a live leaderboard never stays behind its store for long even if the run never completes.
Geometric steps keep a run's total work near-linear in its size instead of quadratic. The state is per
process: each reporter replica throttles on its own.

Files (`files.write_run_files`, `files.write_release_files`, unless `reporter.write_files` is off): when a run
becomes complete, its own files are written at once, from the same store the rows came from, and its release's
(every run on it) with them, or, while other runs on that release are still in progress here, once the last of
those completes (at most `refresh_s` later), so runs that complete one after another cost one release write. Judgments that arrive for a run after its files were written (re-judging, a redrive) mark
it stale, and the idle hook rewrites stale runs and their releases, so a burst of re-judgments costs one
rewrite. A judgment the files already hold is not one of those: a run is complete once the store counts every
judgment, while its last ones may still be on their way in the topic, so the writer keeps what each judgment it
read was (a digest of its stored bytes, for the last `INCLUDED_RUNS` runs written) and a judgment that arrives
the same as it was read changes nothing (a 48,000-answer run's files and its release's had been written twice). A run that completes without a judgment arriving (its last requests dead-lettered) is noticed by the
idle hook too. Rewriting on every judgment batch would redo the whole report each time; nothing is written
for a run that is still going.

With `background_files` (the reporter service; not embedded mode, whose caller reads the files at once), those
files are written by a thread of the handler's own, so consuming judgments never waits for a report: the
consumer thread only decides what is due and queues it. The files are derived from the store, never from the
messages, so nothing of a run is lost if the process stops before its queued files are written: when the
writer thread starts, it writes the files of every complete run that has none (`_sweep`).

Release events (`livetab.releases.v1`, from the api service's release lifecycle): FROZEN writes the release's
private export (the operators' full copy) and its quality report (`quality`); RETIRED writes the public export
in full (questions, gold answers, tables, card, results) and rewrites the release's reports, which may now show
everything. Refused commands' events and the other states write nothing.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message
from livetab import topics as topic_names
from livetab.bus import HandlerContext, Outgoing, PoisonMessage
from livetab.ids import content_id, judge_name
from livetab.runs import judging_progress
from livetab.settings import JudgeSettings, ReporterSettings, Settings
from livetab.store import schema
from livetab.store.read_once import payload_digest
from livetab.v1 import judgment_pb2, release_pb2, report_pb2

from livetab_reporter.leaderboard import compute_rows

__all__ = ["ReporterHandler"]

log = logging.getLogger(__name__)
INCLUDED_RUNS = 8  # runs whose judgments as their files read them are kept (digests: ~50 bytes a judgment)
COUNT_EVERY_S = 1.0  # at most this long between counts of a run's judgments while they arrive (`_count_due`)
STOP_WRITE_S = 20.0  # how long a stopping reporter service waits for its writer thread (orchestrators allow 30 s)


@dataclass(frozen=True)
class _Recomputed:
    judged: int
    at: float  # time.monotonic() of the recompute (once its rows were stored)
    cost: float = 0.0  # seconds it took

    def resting(self, s: ReporterSettings, now: float) -> bool:
        """Whether a recompute due to growth waits still: until `cost / refresh_share` has passed since this
        one began (`ReporterSettings.refresh_share`)."""
        return now - self.at < self.cost * (1.0 / s.refresh_share - 1.0)


class ReporterHandler:
    service = "reporter"
    topics = [topic_names.JUDGMENTS, topic_names.RELEASES]

    def __init__(self, *, background_files: bool = False) -> None:
        self._background = background_files
        self._lock = threading.RLock()  # the files state below, shared with the writer thread
        self._queued: list[str] = []  # runs whose files the writer thread writes next
        self._wake = threading.Event()
        self._writer: threading.Thread | None = None
        self._settled = threading.Event()  # set while the writer has nothing queued
        self._settled.set()
        self._stopping = False  # the worker is stopping: write what is due now, without waiting on open runs
        self._last: dict[str, _Recomputed] = {}  # run id -> this handler's last recompute of it
        self._seen: dict[str, float] = {}  # run not recomputed yet -> when (monotonic) its judgments first came
        self._counted: dict[str, tuple[int, float]] = {}  # run id -> judged at its last count, when (monotonic)
        self._since: dict[str, int] = {}  # run id -> judgments of the configured judge seen since that count
        self._held: set[str] = set()  # runs judged since their last recompute
        self._written: set[str] = set()  # runs whose files this handler wrote once complete
        self._stale: set[str] = set()  # written runs judged again since their files were written
        self._open: dict[str, str] = {}  # run seen incomplete -> its release: the idle hook checks on them
        # runs whose files the writer thread is writing now (taken off `_queued`): with `_queued`, the runs whose
        # files are on their way, which neither the idle hook nor a late batch of their judgments queues again
        self._writing: set[str] = set()
        # such runs judged meanwhile -> {judgment id: digest} of what arrived: stale once written unless the write
        # read those as they are
        self._judged_while_writing: dict[str, dict[str, bytes]] = {}
        # run -> {judgment id: digest} as its last file write read them (the last INCLUDED_RUNS runs written)
        self._included: dict[str, dict[str, bytes]] = {}
        self._due_releases: dict[str, float] = {}  # release -> when (monotonic) a run of it was written
        # releases whose files this handler wrote with no judgment of theirs since: an in-process caller (the
        # embedded CLI) reads those files instead of writing them again
        self.fresh_releases: set[str] = set()
        self._auto: dict[str, Any] | None = None  # the model-free calibration figures, computed once per process
        self._failed: dict[str, float] = {}  # run or release whose files could not be written -> when (monotonic)

    def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
        return self.handle_batch([message], ctx)

    def handle_batch(self, messages: list[Message], ctx: HandlerContext) -> list[Outgoing]:
        runs: list[str] = []
        events: list[release_pb2.ReleaseEvent] = []
        for m in messages:
            if isinstance(m, release_pb2.ReleaseEvent):
                events.append(m)
            elif isinstance(m, judgment_pb2.Judgment):
                if m.run_id not in runs:
                    runs.append(m.run_id)
            else:
                raise PoisonMessage(f"reporter got {m.DESCRIPTOR.full_name}")
        settings, judge = self._settings(ctx)
        files = self._files(ctx) is not None
        run_rows = ctx.store.get_many(schema.runs, runs)
        out = []
        complete: list[str] = []
        judged: dict[str, list[judgment_pb2.Judgment]] = {}
        for m in messages:
            if isinstance(m, judgment_pb2.Judgment) and m.judge == judge:
                self._since[m.run_id] = self._since.get(m.run_id, 0) + 1
                judged.setdefault(m.run_id, []).append(m)
        began = time.monotonic()
        for run_id in runs:
            if run_id not in self._last:
                self._seen.setdefault(run_id, began)
        for run_id in runs:
            run = run_rows.get(run_id)
            self.fresh_releases.discard(run["release"] if run else "")
            if not self._count_due(run_id, run["planned"] if run else 0, settings):
                self._held.add(run_id)  # nothing can be due: not counted, not recomputed
                if files:
                    self._judged(run_id, run["release"] if run else "", complete=False, seen=judged.get(run_id, []))
                continue
            progress = judging_progress(ctx.store, run_id, judge, planned=run["planned"] if run else 0,
                                        cancelled=run is not None and run.get("cancelled_at") is not None)
            self._counted[run_id] = (progress.judged, time.monotonic())
            self._since[run_id] = 0
            if self._due(run_id, progress.judged, progress.complete, settings):
                out.append(self._recompute(ctx.store, run_id, run, judge, progress.judged))
            else:
                self._held.add(run_id)
            if files and self._judged(run_id, run["release"] if run else "", complete=progress.complete,
                                      seen=judged.get(run_id, [])):
                complete.append(run_id)
        self._files_due(ctx, complete)
        for event in events:
            self._release_event(ctx, event)
        return out

    def on_idle(self, ctx: HandlerContext) -> list[Outgoing]:
        """Recompute the held-back runs whose `refresh_s` has passed, write the files of runs that completed
        without a judgment arriving, and rewrite those judged again since their files were written (the
        worker calls this when idle)."""
        out: list[Outgoing] = []
        self.start_writer(ctx)
        if self._held:
            settings, judge = self._settings(ctx)
            now = time.monotonic()
            timed = {r for r in self._held if self._timed(r, settings, now)}
            grown = {r for r in self._held - timed if r in self._last and not self._last[r].resting(settings, now)
                     and self._grown(self._last[r], self._estimate(r), settings)}
            # growth is estimated (judgments that arrived after the last count but were in the store when it
            # counted are added twice): the store is counted, and the run recomputed only if the count grew
            counts = {r: ctx.store.count(schema.judgments, run_id=r, judge=judge) for r in sorted(timed | grown)}
            for r in grown:
                self._counted[r], self._since[r] = (counts[r], now), 0
            due = sorted(r for r in counts if r in timed or self._grown(self._last[r], counts[r], settings))
            run_rows = ctx.store.get_many(schema.runs, due)
            out += [self._recompute(ctx.store, run_id, run_rows.get(run_id), judge, counts[run_id]) for run_id in due]
        with self._lock:
            open_runs = sorted(set(self._open) - set(self._queued) - self._writing)
            stale = sorted(self._stale - set(self._queued) - self._writing)
        if open_runs:
            _, judge = self._settings(ctx)
            done = [r for r in open_runs if judging_progress(ctx.store, r, judge).complete]
            out += [self._recompute(ctx.store, r, ctx.store.get(schema.runs, r), judge,
                                    ctx.store.count(schema.judgments, run_id=r, judge=judge)) for r in done]
            self._files_due(ctx, done)
        if stale:
            self._files_due(ctx, stale)
        if self._due_releases and not self._background:
            self._write_releases(ctx)
        return out

    def _files_due(self, ctx: HandlerContext, runs: list[str]) -> None:
        """Write these runs' files (then their releases'), or, with `background_files`, queue them for the
        writer thread."""
        if not runs or self._files(ctx) is None:
            return
        with self._lock:
            for run_id in runs:
                self._open.pop(run_id, None)
        if not self._background:
            self._write_runs(ctx, runs)
            return
        with self._lock:
            self._queued += [r for r in runs if r not in self._queued]
            self._settled.clear()
        self.start_writer(ctx)
        self._wake.set()

    def on_stop(self, ctx: HandlerContext, timeout_s: float = STOP_WRITE_S) -> None:
        """The worker is stopping (SIGTERM): let the writer thread write what is queued and the releases that
        are due, within `timeout_s`, before the process exits. What it cannot finish is not lost: the next
        reporter's writer writes the files of complete runs that have none."""
        if self._writer is None:
            return
        with self._lock:
            self._stopping = True
            self._settled.clear()
        self._wake.set()
        if not self._settled.wait(timeout_s):
            log.warning("reporter stops with report files still being written; the next reporter writes them")

    def start_writer(self, ctx: HandlerContext) -> None:
        """Start the writer thread now (it first writes the files of complete runs that have none)."""
        with self._lock:
            if self._background and self._writer is None and self._files(ctx) is not None:
                self._writer = threading.Thread(target=self._write_loop, args=(ctx,), daemon=True,
                                                name="reporter-files")
                self._writer.start()

    def _write_loop(self, ctx: HandlerContext) -> None:
        """The writer thread: the queued runs' files, then the releases that are due (checked at least every
        `refresh_s`, so a release waiting on a run still in progress is written in time). An error is logged
        and the loop goes on: what failed is tried again later (`_failure`)."""
        try:
            self._sweep(ctx)
        except Exception:
            log.exception("reporter could not look for complete runs without files")
        settings, _ = self._settings(ctx)
        while True:
            self._wake.wait(timeout=max(1.0, min(settings.refresh_s, 30.0)))
            self._wake.clear()
            with self._lock:
                runs, self._queued = self._queued, []
                self._writing.update(runs)
            try:
                if runs:
                    self._write_runs(ctx, runs)  # then their releases
                else:
                    self._write_releases(ctx)
            except Exception:
                log.exception("reporter's file writer failed; it goes on")
            with self._lock:
                if not self._queued:
                    self._settled.set()

    def _sweep(self, ctx: HandlerContext) -> None:
        """Queue every complete run whose folder has no leaderboard.json: its last judgments were committed
        by a reporter that stopped before writing its files (or by one that does not write files)."""
        settings = self._files(ctx)
        if settings is None:
            return
        from livetab_reporter.files import report_dir

        _, judge = self._settings(ctx)
        missing = []
        for run in ctx.store.select(schema.runs):
            try:
                folder = report_dir(settings, run["release"], run["id"])
            except ValueError:
                continue
            if not run["planned"] or (folder / "leaderboard.json").exists():
                continue
            if judging_progress(ctx.store, run["id"], judge, planned=run["planned"],
                                cancelled=run.get("cancelled_at") is not None).complete:
                missing.append(run["id"])
        with self._lock:
            missing = [r for r in missing if r not in self._written and r not in self._queued and r not in self._writing]
            self._queued += missing
        if missing:
            log.info("reporter writes the files of %d complete run(s) that have none", len(missing))
            self._wake.set()

    @staticmethod
    def _settings(ctx: HandlerContext) -> tuple[ReporterSettings, str]:
        settings = getattr(ctx.settings, "reporter", None) or ReporterSettings()
        return settings, judge_name(getattr(ctx.settings, "judge", None) or JudgeSettings())

    def calibration(self, ctx: HandlerContext) -> dict[str, Any] | None:
        """The model-free calibration figures this handler computed for its files (None when it writes none),
        for an in-process caller that writes a report beside them."""
        settings = self._files(ctx)
        return self._calibration(settings) if settings is not None else None

    @staticmethod
    def _files(ctx: HandlerContext) -> Settings | None:
        """The settings when this reporter writes files (full settings with `reporter.write_files`), else None."""
        s = ctx.settings
        return s if isinstance(s, Settings) and s.reporter.write_files else None

    def _calibration(self, settings: Settings) -> dict[str, Any]:
        """The model-free calibration figures, computed on first use by this handler (a second or two)."""
        if self._auto is None:
            from livetab_reporter.calibration import auto_calibration

            self._auto = auto_calibration(settings)
        return self._auto

    def _write_runs(self, ctx: HandlerContext, runs: list[str]) -> None:
        """Each run's files, then their releases' files (`_write_releases`)."""
        settings = self._files(ctx)
        if settings is None or not runs:
            return
        from livetab_reporter.files import read_once, write_run_files

        auto = self._calibration(settings)
        _, judge = self._settings(ctx)
        for run_id in runs:
            if self._backing_off(f"run {run_id}", settings):  # failed before: written and stale, retried when idle
                with self._lock:
                    self._writing.discard(run_id)
                    self._judged_while_writing.pop(run_id, None)
                continue
            t0 = time.perf_counter()
            reads = read_once(ctx.store)
            try:
                folder = write_run_files(reads, settings, run_id, auto=auto)
            except Exception:
                self._failure(f"run {run_id}")
                with self._lock:
                    self._done_writing(run_id, stale=True)  # tried again when idle, `refresh_s` later
                continue
            log.info("reporter wrote run %s's files into %s in %.1f s", run_id, folder, time.perf_counter() - t0)
            # the judgments the files were made of, as the write read them (None: it read them some other way)
            included = reads.streamed(schema.judgments, run_id=run_id, judge=judge)
            run = ctx.store.get(schema.runs, run_id)
            with self._lock:
                self._done_writing(run_id, stale=False, included=included)
                if run is not None:
                    self._due_releases.setdefault(run["release"], time.monotonic())
        self._write_releases(ctx)

    def _judged(self, run_id: str, release: str, *, complete: bool,
                seen: list[judgment_pb2.Judgment] | None = None) -> bool:
        """A batch judged `run_id` (this reporter writes files; `seen`: its judgments of the configured judge):
        whether its files are due now. A run whose files are being written is written once more after (the write
        may have read the store before this batch) unless the write read these judgments as they are; one queued
        is left to its write; one written before is stale (rewritten when idle) unless its files hold these
        judgments as they are; one still going is open (the idle hook checks on it)."""
        with self._lock:
            if run_id in self._writing:
                self._judged_while_writing.setdefault(run_id, {}).update(_digests(seen or []))
            elif run_id in self._queued:
                pass  # its write has not begun: it reads the store after this batch
            elif run_id in self._written:
                if not seen or not _holds(self._included.get(run_id), _digests(seen)):
                    self._stale.add(run_id)
            elif complete:
                return True
            else:
                self._open[run_id] = release
            return False

    def _done_writing(self, run_id: str, *, stale: bool, included: dict[str, bytes] | None = None) -> None:
        """Under the lock: the run's files were written (or failed to be, `stale`) from the judgments `included`
        (id -> digest, as read): judged while they were being written with anything else, it is stale too,
        rewritten when idle with what the write may have missed."""
        self._written.add(run_id)
        self._open.pop(run_id, None)
        self._writing.discard(run_id)
        self._included.pop(run_id, None)
        if included is not None:
            self._included[run_id] = included
            while len(self._included) > INCLUDED_RUNS:  # the oldest written first (insertion order)
                del self._included[next(iter(self._included))]
        seen = self._judged_while_writing.pop(run_id, None)
        if stale or (seen is not None and not _holds(included, seen)):
            self._stale.add(run_id)
        else:
            self._stale.discard(run_id)

    def _write_releases(self, ctx: HandlerContext) -> None:
        """The files of each release a run of which was written: at once when no other run on it is in progress
        here, else once the last of those completes (or `refresh_s` later, whichever comes first), so runs
        completing one after another cost one release write, not one each."""
        settings = self._files(ctx)
        if settings is None:
            return
        from livetab_reporter.files import write_release_files

        now = time.monotonic()
        with self._lock:
            waiting = set(self._open.values())
            due = sorted(self._due_releases.items())
        for release, since in due:
            if (release in waiting and now - since < settings.reporter.refresh_s and not self._stopping) or \
                    self._backing_off(f"release {release}", settings):
                continue
            t0 = time.perf_counter()
            try:
                write_release_files(ctx.store, settings, release, auto=self._calibration(settings))
            except Exception:
                self._failure(f"release {release}")  # still due: tried again when idle, `refresh_s` later
                continue
            with self._lock:
                if self._due_releases.get(release) == since:  # no run of it written since this write began
                    del self._due_releases[release]
            self.fresh_releases.add(release)
            log.info("reporter wrote release %s's files in %.1f s", release, time.perf_counter() - t0)

    def _failure(self, what: str) -> None:
        """Files that could not be written (a full disk, a folder without permission) are logged and tried again
        later; the judgments that asked for them are stored and never dead-lettered for it."""
        log.exception("reporter could not write the files of %s; it tries again when idle", what)
        self._failed[what] = time.monotonic()

    def _backing_off(self, what: str, settings: Settings) -> bool:
        """True while `what` failed less than `refresh_s` ago."""
        at = self._failed.get(what)
        if at is None:
            return False
        if time.monotonic() - at < settings.reporter.refresh_s:
            return True
        del self._failed[what]
        return False

    def _release_event(self, ctx: HandlerContext, event: release_pb2.ReleaseEvent) -> None:
        """FROZEN: the private export and the quality report; RETIRED: the public export and the reports. A
        failure here fails the event's record, which the worker dead-letters: `livetab dlq redrive` replays it."""
        settings = self._files(ctx)
        if settings is None or event.refused or event.status not in (release_pb2.FROZEN, release_pb2.RETIRED):
            return
        from livetab_reporter.export import export_release_files
        from livetab_reporter.files import PRIVATE_DIR, out_root, release_runs, report_dir, write_release_files
        from livetab_reporter.quality import write_quality_report

        auto = self._calibration(settings)
        folder = report_dir(settings, event.release)
        if event.status == release_pb2.FROZEN:
            from livetab_reporter.calibration import ensure_calibration

            calibration = ensure_calibration(settings, out_root(settings), auto=auto)
            export_release_files(ctx.store, settings, folder / "release", release=event.release, private_only=True,
                                 run_ids=release_runs(ctx.store, event.release), calibration=calibration)
            write_quality_report(ctx.store, event, folder / PRIVATE_DIR)
            log.info("release %s frozen (%d questions): private export and quality report in %s", event.release,
                     event.questions, folder / PRIVATE_DIR)
        else:
            write_release_files(ctx.store, settings, event.release, auto=auto, public=True)
            self._due_releases.pop(event.release, None)
            self.fresh_releases.add(event.release)
            log.info("release %s retired: public export in %s", event.release, folder / "release")

    def _count_due(self, run_id: str, planned: int, s: ReporterSettings) -> bool:
        """Whether this batch counts the run's judgments in the store (`judging_progress`: a count that grows
        with the run, too dear for every batch of a large one). Judgments seen since the last count are added
        to it: a redelivered one is added twice, so the estimate errs high and only asks for a count sooner. A
        count is due for a run not counted yet, when the estimate could complete the run or make a recompute
        due, and at least every `COUNT_EVERY_S` (another replica may be consuming the run's other partitions)."""
        counted, last = self._counted.get(run_id), self._last.get(run_id)
        if counted is None:
            return True
        judged, at = counted
        estimate = judged + self._since.get(run_id, 0)
        now = time.monotonic()
        if last is None:  # its first recompute waits for `first_s` or completion
            return estimate >= planned or now - at >= COUNT_EVERY_S or self._timed(run_id, s, now)
        could_complete = estimate >= planned and last.judged < planned  # not once recomputed complete
        return (could_complete or now - at >= COUNT_EVERY_S or now - last.at >= s.refresh_s
                or (self._grown(last, estimate, s) and not last.resting(s, now)))

    def _timed(self, run_id: str, s: ReporterSettings, now: float) -> bool:
        """Whether time alone makes a recompute of the run due: `refresh_s` since its last one or, before its
        first, `first_s` since its first judgments arrived here."""
        last = self._last.get(run_id)
        if last is not None:
            return now - last.at >= s.refresh_s
        return now - self._seen.get(run_id, now) >= s.first_s

    def _estimate(self, run_id: str) -> int:
        """The run's judged count at its last count plus the judgments seen since (`_count_due`)."""
        counted = self._counted.get(run_id)
        base = counted[0] if counted is not None else self._last[run_id].judged
        return base + self._since.get(run_id, 0)

    @staticmethod
    def _grown(last: _Recomputed, judged: int, s: ReporterSettings) -> bool:
        return judged > last.judged and judged - last.judged >= s.refresh_growth * last.judged - 1e-9

    def _due(self, run_id: str, judged: int, complete: bool, s: ReporterSettings) -> bool:
        last = self._last.get(run_id)
        if last is None:
            return complete or self._timed(run_id, s, time.monotonic())
        if complete and judged != last.judged:
            return True
        if complete:  # recomputed at this count already: a redelivery, or a re-judgment (which waits refresh_s)
            return time.monotonic() - last.at >= s.refresh_s
        now = time.monotonic()
        if self._grown(last, judged, s) and not last.resting(s, now):
            return True
        return now - last.at >= s.refresh_s

    def _recompute(self, store: Any, run_id: str, run: dict[str, Any] | None, judge: str, judged: int) -> Outgoing:
        """Rows from the store; `judged` counts every judgment of the run by `judge` (insight answers too,
        which the "all" row leaves out)."""
        began = time.monotonic()
        rows = compute_rows(store, run_id, judge=judge)
        stored = [{"id": f"{r.run_id}|{r.slice}", **r.as_dict()} for r in rows]
        # a stratum can empty as answers arrive (an item's prompt-token bin is the largest over its samples):
        # its stored row is zeroed, never left with stale counts
        now = {row["id"] for row in stored}
        stored += [{**old, "n": 0, "correct": 0, "accuracy": 0.0, "ci_low": 0.0, "ci_high": 1.0}
                   for old in store.select(schema.leaderboard, run_id=run_id) if old["id"] not in now and old["n"]]
        store.upsert(schema.leaderboard, [{k: v for k, v in row.items() if k != "created_at"} for row in stored])
        done = time.monotonic()
        self._last[run_id] = _Recomputed(judged, done, done - began)  # only once the rows are stored
        self._seen.pop(run_id, None)
        log.info("reporter recomputed run %s at %d judged of %s in %.2fs", run_id, judged,
                 run["planned"] if run else "?", done - began)
        self._held.discard(run_id)
        update = report_pb2.LeaderboardUpdate(
            id=content_id("lb", run_id, judged), run_id=run_id, release=run["release"] if run else "",
            rows=[report_pb2.LeaderboardRow(**r.as_dict()) for r in rows], judged=judged,
            planned=run["planned"] if run else 0,
        )
        return Outgoing(topic_names.REPORTS, update, key=run_id, message_id=update.id)


def _digests(judgments: list[judgment_pb2.Judgment]) -> dict[str, bytes]:
    """Each judgment's stored bytes in 16 (`payload_digest`: its id and verdict, all of it), as the files' reading
    of the store digests them (`ReadOnce.streamed`)."""
    return {j.id: payload_digest(j.SerializeToString()) for j in judgments}


def _holds(included: dict[str, bytes] | None, seen: dict[str, bytes]) -> bool:
    """Whether files made of the judgments `included` (id -> digest; None: not known) hold each of `seen` as
    it is."""
    return included is not None and all(included.get(k) == v for k, v in seen.items())
