"""An evaluation's report files written by a process of their own, beside the evaluation's.

`livetab eval` asks its questions from one process: an event loop thread holds the HTTP connections and the
main thread prepares, stores and judges. Writing the files at the end needs the reporter (numpy) and the
Parquet writer (pyarrow): importing them there costs ~0.3 s of CPU under the interpreter lock, which holds up
the answers in flight if done while requests stream and the end of the evaluation if done after. This process
imports them on another core from the start of the evaluation, reads the release's questions ahead
(`prepare`: and writes the reports once into a scratch folder, so that the writers' first use costs nothing
at the end), and at the end writes leaderboard.json, .md and report.html (`reports`) and samples.parquet
(`parquet`) while the evaluation's own process writes samples.jsonl.

`python -m livetab.report_process` reads one JSON command per line on stdin and answers one JSON line per
command on stdout: {"op": ..., "ok": true} or {"op": ..., "ok": false, "error": one line}. Commands are done
in order, except `parquet`, which runs beside the command in progress (Arrow's reader and writer hold the
interpreter lock little: sent while `reports` is still writing, it is done on the other core), so its answer
may come before that of a command sent earlier. It
prints {"op": "ready", "ok": true} once its imports are done, and exits at the end of its input. The store
URL travels on stdin, never on the command line (it may hold a password).

`ReportProcess` is the evaluation's side. Anything that goes wrong with the process (it cannot start, dies,
answers an error, or is silent past `timeout_s`) is `ReportProcessError`: the caller then writes the files
itself (`evaluate_api`), so the files never depend on this process.
"""

from __future__ import annotations

import functools
import json
import os
import queue
import signal
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

__all__ = ["ReportProcess", "ReportProcessError", "main", "report_writer", "warm_writers", "write_report_files"]


# the process's scheduling priority, below the evaluation's (0): it imports and rehearses on whatever CPU the
# requests leave; at the end, when it writes, nothing else is running to be preferred to it
NICE = 10
STDERR_LINES = 20  # the last lines of the process's stderr kept for the message when it ends unexpectedly


class ReportProcessError(RuntimeError):
    """The report process could not do what it was asked; the message is one line."""


@functools.cache
def report_writer() -> Callable[..., Any] | None:
    """The reporter's `write_reports`, found by its entry point (`livetab.reports`, so that this package
    imports no service), loaded once; None when no reporter is installed."""
    from importlib.metadata import entry_points

    for ep in entry_points(group="livetab.reports", name="write_reports"):
        return ep.load()  # type: ignore[no-any-return]
    return None


# --- the process itself -------------------------------------------------------------------------------------

class _Session:
    """What the process keeps between commands: one store (opened by the first command that names it) and its
    reads (`ReadOnce`: what `prepare` read of the release, `reports` does not read again)."""

    def __init__(self) -> None:
        self.url = ""
        self.store: Any = None
        self.reads: Any = None

    def reads_of(self, url: str) -> Any:
        from livetab.store import open_store
        from livetab.store.read_once import ReadOnce

        if self.store is None or url != self.url:
            self.close()
            self.store = open_store(url, migrate_schema=False)
            self.url, self.reads = url, ReadOnce(self.store)
        return self.reads

    def fresh_reads(self, url: str) -> Any:
        """The store's reads for writing: a new `ReadOnce` that keeps what the release's prefetch read (the
        frozen questions and their tables do not change) and reads the answers anew."""
        from livetab.store import schema
        from livetab.store.read_once import ReadOnce

        old = self.reads_of(url)
        self.reads = ReadOnce(self.store)
        self.reads.adopt(old, (schema.questions, schema.tables))
        return self.reads

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
        self.store = self.reads = None


def _run(session: _Session, cmd: dict[str, Any]) -> None:
    op = cmd.get("op")
    if op == "prepare":
        reads = session.reads_of(cmd["store"])
        reads.prefetch_release(cmd["release"])
        _parse_questions(reads)
        _rehearse(session, cmd)
        _settle()
    elif op == "reports":
        write_report_files(session.fresh_reads(cmd["store"]), cmd, Path(cmd["out"]))
    elif op == "parquet":
        from livetab.evaluate_samples import jsonl_to_parquet

        jsonl_to_parquet(Path(cmd["jsonl"]).read_bytes(), Path(cmd["parquet"]))
    else:
        raise ReportProcessError(f"unknown command {op!r}")


def write_report_files(reads: Any, args: dict[str, Any], out: Path) -> None:
    """leaderboard.json, .md and report.html in `out`, through the reporter's writer, from the arguments a
    `reports` command carries (`run_ids`, `release`, `judge`, `public`, `split_date`): in this process and in
    the evaluation's own when it writes them itself. ReportProcessError when no reporter is installed."""
    write = report_writer()
    if write is None:
        raise ReportProcessError("no report writer is installed (entry point livetab.reports: write_reports)")
    write(reads, list(args["run_ids"]), out, args["release"], judge=args["judge"], public=bool(args["public"]),
          split_date=args["split_date"])


def _parse_questions(reads: Any) -> None:
    """Parse the questions read ahead (`livetab.records.load_question` keeps each parsed, by its bytes): the
    rehearsal, over runs with no answer yet, parses none, and the reports' per-answer records at the end would
    parse every one (0.10 s -> 0.076 s for the reports of the 2,000-question eval benchmark, measured in one
    process: first write after an empty rehearsal, with and without this)."""
    from livetab.records import load_question
    from livetab.store import schema

    for row in reads.known(schema.questions):
        load_question(row)


def _settle() -> None:
    """Collect what the rehearsal left and move everything alive (the imported modules, the release read ahead)
    out of the cyclic collector's reach (`gc.freeze`): otherwise the allocations of the write at the end set off
    a full collection over every object of the process (numpy, pyarrow, the reporter) while the evaluation
    waits: the first write after an empty rehearsal took 0.108-0.118 s without this, 0.072-0.074 s with it
    (the reports of the 2,000-question eval benchmark, measured alone)."""
    import gc

    gc.collect()
    gc.freeze()


def _rehearse(session: _Session, cmd: dict[str, Any]) -> None:
    """Write the reports once into a scratch folder, over what is stored now (the runs just planned): the
    writers' first use in a process (statements compiled, lazy imports, first array operations) then costs
    nothing at the end. What it read of the answers is not kept; what it read and computed of the frozen
    release (its questions, tables and manifest hash) is handed to the real write (`fresh_reads`)."""
    import tempfile

    try:
        with tempfile.TemporaryDirectory(prefix="livetab-report-") as tmp:
            write_report_files(session.fresh_reads(cmd["store"]), cmd, Path(tmp))
    except Exception:  # the real write says what is wrong, if anything is
        pass


def warm_writers() -> None:
    """Import the writers and use the Parquet writer once, on one sample row of every column (its first use in
    a process sets up its thread and memory pools and Arrow's JSON reader: the first real samples.parquet of
    the 2,000-question eval benchmark then took 0.011-0.012 s instead of 0.013-0.024 s after a warm-up on no
    rows, measured alone)."""
    import tempfile

    from livetab.evaluate_samples import blank_row, jsonl_to_parquet

    report_writer()
    with tempfile.TemporaryDirectory(prefix="livetab-report-") as tmp:
        jsonl_to_parquet((json.dumps(blank_row()) + "\n").encode(), Path(tmp) / "warm.parquet")


def main(stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> int:
    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    lock = threading.Lock()  # one reply line at a time: `parquet` answers from its own thread

    def say(doc: dict[str, Any]) -> None:
        with lock:
            stdout.write(json.dumps(doc) + "\n")
            stdout.flush()

    def do(cmd: dict[str, Any], op: str) -> None:
        try:
            _run(session, cmd)
        except Exception as e:
            say({"op": op, "ok": False, "error": _line(e)})
        else:
            say({"op": op, "ok": True})

    session = _Session()
    beside: list[threading.Thread] = []  # the `parquet` commands running beside the others
    try:
        try:
            warm_writers()
            say({"op": "ready", "ok": True})
        except Exception as e:  # the commands say it again, each with its own error
            say({"op": "ready", "ok": False, "error": _line(e)})
        for line in stdin:
            if not line.strip():
                continue
            try:
                cmd = json.loads(line)
                op = str(cmd.get("op", "?"))
            except Exception as e:
                say({"op": "?", "ok": False, "error": _line(e)})
                continue
            if op == "parquet":
                beside.append(threading.Thread(target=do, args=(cmd, op), name="livetab-parquet", daemon=True))
                beside[-1].start()
            else:
                do(cmd, op)
        for t in beside:
            t.join()
    except KeyboardInterrupt:  # Ctrl-C reaches the whole process group: the evaluation says what happened
        return 130
    finally:
        session.close()
    return 0


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


def _line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"[:500]


# --- the evaluation's side ----------------------------------------------------------------------------------

class ReportProcess:
    """The evaluation's handle on its report process: `start` spawns it (its imports begin at once), the
    commands are sent without waiting, `wait(op)` returns when that command is done."""

    def __init__(self, *, timeout_s: float = 120.0) -> None:
        self.timeout_s = timeout_s
        self._proc: subprocess.Popen[str] | None = None
        self._replies: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._sent: list[str] = []
        self._early: dict[str, list[dict[str, Any]]] = {}  # replies read while waiting for another command's
        self._stderr: deque[str] = deque(maxlen=STDERR_LINES)
        self._stderr_reader: threading.Thread | None = None
        self.ready = threading.Event()  # set once the process has done its imports ("ready")

    def start(self) -> ReportProcess:
        """Spawn `python -m livetab.report_process` with this interpreter and this process's import path."""
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        try:
            self._proc = subprocess.Popen([sys.executable, "-m", "livetab.report_process"], stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                          encoding="utf-8", env=env)
        except OSError as e:
            raise ReportProcessError(f"cannot start the report process: {e}") from None
        threading.Thread(target=self._read, name="livetab-report-process", daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, name="livetab-report-process-stderr",
                                               daemon=True)
        self._stderr_reader.start()
        return self

    def _read_stderr(self) -> None:
        """Keep the last lines the process wrote to stderr (a crash's traceback ends with its reason)."""
        assert self._proc is not None and self._proc.stderr is not None
        for line in self._proc.stderr:
            if line.strip():
                self._stderr.append(line.strip())

    def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        for line in self._proc.stdout:
            try:
                reply = json.loads(line)
            except ValueError:
                continue  # not a reply (a library printing): the replies are JSON lines
            if isinstance(reply, dict) and reply.get("op") == "ready":
                self.ready.set()
            self._replies.put(reply)
        self._replies.put(None)  # the process ended

    def send(self, op: str, **args: Any) -> None:
        if self._proc is None or self._proc.stdin is None or self._proc.poll() is not None:
            raise ReportProcessError("the report process is not running")
        try:
            self._proc.stdin.write(json.dumps({"op": op, **args}) + "\n")
            self._proc.stdin.flush()
        except OSError as e:
            raise ReportProcessError(f"the report process stopped reading: {e}") from None
        self._sent.append(op)

    def wait(self, op: str) -> None:
        """Until the reply to `op` (the oldest unanswered command of that name) comes; the replies before it
        are read on the way (the "ready" line, earlier commands: a failed `prepare` only means `reports`
        reads more) and kept for a later wait (a `parquet` may answer before a `reports` sent earlier).
        ReportProcessError when `op` failed, the process ended, or nothing came in time."""
        while True:
            early = self._early.get(op)
            if early:
                return self._answered(op, early.pop(0))
            try:
                reply = self._replies.get(timeout=self.timeout_s)
            except queue.Empty:
                raise ReportProcessError(f"the report process did not answer {op!r} within {self.timeout_s:g} s") from None
            if reply is None:
                self._replies.put(None)  # ended: so it stays for any later wait
                if self._stderr_reader is not None:
                    self._stderr_reader.join(timeout=1.0)  # what it wrote last, before its output ended
                last = f" (it said: {self._stderr[-1][:300]})" if self._stderr else ""
                raise ReportProcessError(f"the report process ended before it answered {op!r}{last}")
            name = str(reply.get("op"))
            if name == "ready":
                continue
            if name in self._sent:
                self._sent.remove(name)
            if name == op:
                return self._answered(op, reply)
            self._early.setdefault(name, []).append(reply)

    @staticmethod
    def _answered(op: str, reply: dict[str, Any]) -> None:
        if not reply.get("ok"):
            raise ReportProcessError(f"the report process could not do {op!r}: {reply.get('error', '')}")

    def close(self) -> None:
        """End the process: its input closed, so that it exits when done; not waited for (an interpreter with
        numpy and pyarrow loaded takes ~0.3 s to exit), unless it is still busy: then stopped."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except OSError:
            pass
        if self._sent:  # a command it has not answered (Ctrl-C, a failure): nobody will read the answer
            proc.terminate()  # its handler raises KeyboardInterrupt: a scratch folder is removed on the way out
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)


def _as_a_process() -> int:
    """`main` as the evaluation starts it: below the evaluation's priority (it and its model server come first
    while requests stream), and SIGTERM taken as Ctrl-C (scratch folders removed on the way out). Not in
    `main` itself, which a caller may run in its own process (the tests)."""
    try:
        os.nice(NICE)
    except OSError:
        pass
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        return main()
    except KeyboardInterrupt:  # SIGTERM once `main` had left its loop (closing its session, returning): still 130,
        return 130  # not an interpreter killed by SIGINT (-2), which is how an uncaught KeyboardInterrupt ends it


if __name__ == "__main__":
    sys.exit(_as_a_process())
