"""An evaluation's report files written by a helper process, started while the requests are in flight.

The report files (leaderboard.json, .md, report.html and its figures: the reporter's `write_reports`, found by
its entry point `livetab.reports`) and samples.parquet need matplotlib, pyarrow and pandas: a second or more
of imports and first-use set-up. Done in the evaluating process while requests are in flight, the imports hold
its interpreter lock and every answer waits for them (the 95th-percentile latency doubled in `bench.eval`);
done after the last answer, they add that second to the wall time. Here a helper process (`python -m
livetab.evaluate_files`) does them instead, on another core: started once the first requests are in flight, it
imports and warms the writers (a throw-away figure and Parquet table). Its jobs come one line of JSON each on its
standard input, are done in order and answered one line each:

- `{"job": "reports", "store": URL, "run_ids": [...], "out": DIR, "release": R, "judge": J, "public": B,
  "split_date": D}`: `write_reports` from the store (the evaluating process has committed everything), given
  when the last answer is judged. The same with `"rehearsal": true`, given at the start of a long evaluation,
  writes the files of what is judged so far into a scratch folder and deletes it: the store's connection and
  statements, and every kind of figure, are then ready for the real job;
- `{"job": "parquet", "folder": DIR}`: samples.parquet from the samples.jsonl the evaluating process has
  written meanwhile (`evaluate_samples.write_parquet`).

The answer is `ok` or `error <one line>`. The evaluating process writes the files itself, as before, when the
helper cannot be used: a store only it can read (SQLite in memory), a helper that did not start, failed or died,
and when the machine has no core to spare (`spare_core`): the helper's own CPU (its imports, a second copy of the
writers, the rehearsal: about 1.3 ms a question in `bench.eval`) then costs more time than working beside the
evaluation saves (on 2 cores at load 6, bench.eval measured 0.30 with the helper against 0.42 without).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO, Any

__all__ = ["FileWriter", "can_share_store", "main", "spare_core"]

log = logging.getLogger(__name__)
READY = "ready"


def spare_core() -> bool:
    """Whether this machine has a core to spare for the helper: two or more, and a 1-minute load average at least
    half a core below their number."""
    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average on this platform
        return cores >= 2
    return cores >= 2 and load <= cores - 0.5


def can_share_store(url: str) -> bool:
    """Whether another process can read the store at `url` (not a SQLite database in memory)."""
    if not url.startswith("sqlite"):
        return True
    path = url.split(":///", 1)[1] if ":///" in url else ""
    return bool(path) and path != ":memory:" and "mode=memory" not in path


class FileWriter:
    """The helper process, seen from the evaluating process: `start` it early, `submit` jobs, `wait` for their
    answers; `close` it in any case. Every failure is reported as False from `wait` (with a log line), never
    raised: the caller then writes the files itself."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[str] | None = None
        self._names: list[str] = []  # of the jobs submitted, in order
        self._lines: list[str] = []
        self._reader: threading.Thread | None = None
        self._cond = threading.Condition()

    def start(self) -> bool:
        import livetab

        # the folder this process imports livetab from comes first: the helper runs this very code
        path = os.pathsep.join(p for p in (str(Path(livetab.__file__).resolve().parents[1]),
                                           os.environ.get("PYTHONPATH", "")) if p)
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "livetab.evaluate_files"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=None, text=True, encoding="utf-8", env={**os.environ, "PYTHONPATH": path})
        except OSError as e:
            log.info("no helper process for the report files (%s); they are written here", e)
            self._proc = None
            return False
        self._reader = threading.Thread(target=self._read, args=(self._proc.stdout,), daemon=True,
                                        name="livetab-file-writer")
        self._reader.start()
        return True

    @property
    def started(self) -> bool:
        return self._proc is not None

    def _read(self, stream: IO[str] | None) -> None:
        """Collect the helper's answer lines (a thread: this process's main thread never blocks on the pipe)."""
        assert stream is not None
        for line in stream:
            with self._cond:
                self._lines.append(line.strip())
                self._cond.notify_all()
        with self._cond:
            self._lines.append("error the helper process exited")
            self._cond.notify_all()

    def submit(self, job: dict[str, Any]) -> bool:
        """Give the helper `job`; False when it cannot take it."""
        if self._proc is None or self._proc.stdin is None:
            return False
        try:
            self._proc.stdin.write(json.dumps(job) + "\n")
            self._proc.stdin.flush()
        except (OSError, ValueError) as e:
            log.warning("the report files' helper process cannot take a job (%s); they are written here", e)
            return False
        self._names.append(str(job["job"]) + (" rehearsal" if job.get("rehearsal") else ""))
        return True

    def wait(self, timeout_s: float = 600.0) -> dict[str, bool]:
        """Whether each job submitted so far succeeded, by its name ("reports", "parquet", "reports rehearsal"):
        False for one that failed or was not answered within `timeout_s`."""
        with self._cond:
            self._cond.wait_for(lambda: len([x for x in self._lines if x != READY]) >= len(self._names),
                                timeout=timeout_s)
            lines = [x for x in self._lines if x != READY]
        answers = {}
        for i, name in enumerate(self._names):
            line = lines[i] if i < len(lines) else "error no answer in time"
            if line != "ok":
                (log.debug if name.endswith("rehearsal") else log.warning)(
                    "the report files' helper process (%s): %s", name, line.removeprefix("error "))
            answers[name] = line == "ok"
        return answers

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()  # end of its jobs: it exits
            proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()


def _warm() -> Any:
    """Import the writers and use them once (a figure in both formats, a Parquet table): the first use of each
    loads fonts and modules. Returns the reporter's `write_reports`."""
    import io
    from importlib.metadata import entry_points

    (ep,) = [ep for ep in entry_points(group="livetab.reports") if ep.name == "write_reports"]
    write = ep.load()
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 1))
    ax.bar([0, 1], [0.5, 1.0], label="a")
    ax.errorbar([0, 1], [0.5, 1.0], yerr=[0.1, 0.1], fmt="o-")
    ax.set_title("warm")
    ax.legend(title="model")
    fig.tight_layout()
    fig.savefig(io.BytesIO(), format="png")
    fig.savefig(io.StringIO(), format="svg")
    plt.close(fig)
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"warm": ["x"]}), io.BytesIO())
    from livetab.store import open_store  # noqa: F401  (the store's modules, for the first job)

    return write


_STORES: dict[str, Any] = {}  # the helper's open stores by URL: the rehearsal's connection serves the real job


def _job(job: dict[str, Any], write_reports: Any) -> None:
    if job.get("job") == "reports":
        from livetab.store import open_store

        url = job["store"]
        store = _STORES.get(url) or _STORES.setdefault(url, open_store(url, migrate_schema=False))
        out = Path(tempfile.mkdtemp(prefix="livetab-rehearsal-")) if job.get("rehearsal") else Path(job["out"])
        try:
            write_reports(store, list(job["run_ids"]), out, job["release"], judge=job["judge"],
                          public=bool(job["public"]), split_date=job.get("split_date", ""))
        finally:
            if job.get("rehearsal"):
                shutil.rmtree(out, ignore_errors=True)
    elif job.get("job") == "parquet":
        from livetab.evaluate_samples import write_parquet

        write_parquet(Path(job["folder"]))
    else:
        raise ValueError(f"unknown job {job.get('job')!r}")


def main() -> int:
    """The helper process: warm up, then one answer line per job line until its input ends."""
    try:
        write_reports = _warm()
    except Exception as e:
        print(f"error warming the writers failed: {type(e).__name__}: {e}".replace("\n", " "), flush=True)
        return 1
    print(READY, flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            _job(json.loads(line), write_reports)
        except Exception as e:
            print(f"error {type(e).__name__}: {e}".replace("\n", " ")[:500], flush=True)
            continue
        print("ok", flush=True)
    for store in _STORES.values():
        store.close()
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)  # every file is written and closed: no teardown of matplotlib, pandas and pyarrow (a second)
