"""An evaluation's files: leaderboard.json, .md and report.html (the reporter's `write_reports`) and the
per-sample log (samples.jsonl, samples.parquet).

Two ways, the same files:

- beside this process (`livetab.report_process`), for an evaluation of at least `REPORT_PROCESS_MIN_REQUESTS`
  requests on a store another process can open: the report process imports the reporter and pyarrow on
  another core while the requests are in flight and reads the release's questions ahead; at the end it writes
  the leaderboard files while this process writes samples.jsonl, then it writes samples.parquet. On the
  2,000-question eval benchmark this takes ~0.3 s of interpreter-lock time off the answers in flight and
  writes the two halves at once. Anything wrong with that process and this one writes what it did not
  (logged as a warning); a report process still starting when the last answer is judged is not waited for;
- in this process: the writers are imported in a thread after the first requests are out (`_warm`), the
  release's questions read ahead while they are in flight (`ReadOnce.prefetch_release`), and every writer reads
  through one `ReadOnce` (the facts, the answer records and the samples read the same rows once).
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from livetab.evaluate_samples import jsonl_to_parquet, sample_rows, write_jsonl
from livetab.report_process import ReportProcess, ReportProcessError, warm_writers, write_report_files
from livetab.settings import Settings
from livetab.store.read_once import ReadOnce

__all__ = ["REPORT_PROCESS_MIN_REQUESTS", "EvalFiles"]

log = logging.getLogger(__name__)

# from how many planned requests an evaluation writes its files with a report process: its start (an
# interpreter and its imports, ~1 s of CPU on another core) pays off only when the requests take longer than it
REPORT_PROCESS_MIN_REQUESTS = 256


def _shared_store(url: str) -> bool:
    """Whether another process can open this store and see what this one wrote (not an in-memory SQLite)."""
    if url.startswith("sqlite"):
        path = url.split(":///", 1)[1] if ":///" in url else ""
        return bool(path) and path != ":memory:" and "mode=memory" not in path
    return url.startswith(("postgresql", "postgres"))


class EvalFiles:
    """The files of one evaluation (runs `run_ids` on `release`, `planned` requests), written to the settings'
    `out_dir`. Call `begin` once the runs are planned, `round_done` and `waiting` from the drive, `write` at
    the end and `close` always."""

    def __init__(self, store: Any, settings: Settings, *, release: str, run_ids: list[str], judge: str,
                 planned: int, started: float) -> None:
        self.store = store
        self.settings = settings
        self.release = release
        self.run_ids = run_ids
        self.judge = judge
        self.planned = planned
        self.started = started
        self.out = Path(settings.out_dir)
        self.reads = ReadOnce(store)
        self.process: ReportProcess | None = None
        self._warm: threading.Thread | None = None
        self._prefetched = False

    def begin(self) -> None:
        if self.planned < REPORT_PROCESS_MIN_REQUESTS or not _shared_store(self.settings.store.url):
            return
        try:
            self.process = ReportProcess().start()
            self.process.send("prepare", **self._report_args())
        except ReportProcessError as e:
            log.warning("%s; this process writes the files", e)
            self.close()

    def round_done(self) -> None:
        """After each round of the drive; after the first, whose requests are in flight, it warms this process's
        writers when there is no report process (importing them before would hold up the first requests: the
        interpreter lock, import locks); later calls do nothing."""
        if self.process is None and self._warm is None:
            self._warm = threading.Thread(target=_warm, name="livetab-warm-writers", daemon=True)
            self._warm.start()

    def waiting(self) -> None:
        """While every service waits on requests in flight: read the release's questions ahead (once)."""
        if not self._prefetched:
            self._prefetched = True
            self.reads.prefetch_release(self.release)

    def write(self) -> tuple[list[dict[str, Any]], list[Path]]:
        """Write every file; the sample rows and the paths written."""
        lb = self.out / "leaderboard.json"
        # the reporter service, when it runs in this evaluation, has written them already
        reports = not (lb.is_file() and lb.stat().st_mtime >= self.started)
        if self._warm is not None:
            self._warm.join()
        if self.process is not None and not self.process.ready.is_set():
            # still starting (a very fast evaluation, or its imports read from a cold disk): waiting for it
            # would cost more than this process importing just the writers
            log.info("the report process has not started yet; this process writes the files")
            self.close()
        sent = self._send_reports() if reports else False
        rows = sample_rows(self.reads, self.run_ids, self.judge)
        jsonl, text = write_jsonl(self.out, rows)
        parquet = self.out / "samples.parquet"
        parquet_sent = self._send("parquet", jsonl=str(jsonl), parquet=str(parquet))
        if reports and not self._done("reports", sent):
            self._write_reports()
        if not self._done("parquet", parquet_sent):
            jsonl_to_parquet(text, parquet)
        return rows, [lb, self.out / "leaderboard.md", self.out / "report.html", jsonl, parquet]

    def _report_args(self) -> dict[str, Any]:
        from livetab.publication import is_public

        return {"store": self.settings.store.url, "run_ids": self.run_ids, "release": self.release,
                "judge": self.judge, "public": is_public(self.release, self.settings),
                "split_date": self.settings.reporter.contamination_split}

    def _send_reports(self) -> bool:
        return self._send("reports", out=str(self.out), **self._report_args())

    def _send(self, op: str, **args: Any) -> bool:
        if self.process is None:
            return False
        try:
            self.process.send(op, **args)
            return True
        except ReportProcessError as e:
            log.warning("%s; this process writes the files", e)
            self.close()
            return False

    def _done(self, op: str, sent: bool) -> bool:
        """Whether the report process did `op` (sent to it); False when this process is to do it."""
        if not sent or self.process is None:
            return False
        try:
            self.process.wait(op)
            return True
        except ReportProcessError as e:
            log.warning("%s; this process writes what it did not", e)
            self.close()
            return False

    def _write_reports(self) -> None:
        from livetab.evaluate_model import EvalError

        try:
            write_report_files(self.reads, self._report_args(), self.out)
        except ReportProcessError as e:  # no reporter installed
            raise EvalError(f"{e}; run `make install`") from None

    def close(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            process.close()


def _warm() -> None:
    try:
        warm_writers()
    except Exception:  # reported, if at all, where the writers are used
        log.debug("warming the file writers failed", exc_info=True)
