"""`livetab.evaluate` writing its files with a report process (`livetab.report_process`): the files are those this
process writes from the same store, and a report process that cannot start, answers an error or dies leaves
them to this process — the same files, a warning in the log.

The release is one WikiTableQuestions table with 40 questions (as the eval benchmark seeds it), answered by the
fault server; `REPORT_PROCESS_MIN_REQUESTS` is lowered so that 40 requests take the report process."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import livetab
import livetab.evaluate_files as evaluate_files
import pyarrow.parquet as pq
import pytest
from livetab.evaluate_samples import sample_rows, write_samples
from livetab.ids import judge_name
from livetab.report_process import ReportProcess, ReportProcessError, main
from livetab.settings import Settings
from livetab.store import open_store, schema

from tests.fakes.fault_server import ThreadedFaultServer

RELEASE = "report-process"
BEGIN = evaluate_files.EvalFiles.begin  # as evaluations call it (the fixtures below wrap it)


@pytest.fixture(autouse=True)
def _collector_as_found() -> Iterator[None]:
    """The report process's `prepare` freezes what is alive (`gc.freeze`): run here in the test's own process, that
    would stay frozen for every later test (one checks that an evaluation leaves nothing frozen)."""
    import gc

    frozen = gc.get_freeze_count()
    yield
    if not frozen:
        gc.unfreeze()


@pytest.fixture(scope="module")
def fake() -> Iterator[ThreadedFaultServer]:
    with ThreadedFaultServer() as server:
        yield server


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    from bench.inference_service import seed_release

    url = f"sqlite:///{tmp_path / 'livetab.db'}"
    store = open_store(url)
    seed_release(store, RELEASE, 40)
    store.close()
    return url


@pytest.fixture
def used(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The report process for every evaluation, ready before the first request (these evaluations take less
    time than its start, and one still starting at the end is not waited for); the commands it answered."""
    monkeypatch.setattr(evaluate_files, "REPORT_PROCESS_MIN_REQUESTS", 0)

    def begin_and_wait(self: evaluate_files.EvalFiles) -> None:
        BEGIN(self)
        if self.process is not None:
            assert self.process.ready.wait(60)

    monkeypatch.setattr(evaluate_files.EvalFiles, "begin", begin_and_wait)
    done: list[str] = []
    wait = ReportProcess.wait

    def spy(self: ReportProcess, op: str) -> None:
        wait(self, op)
        done.append(op)

    monkeypatch.setattr(ReportProcess, "wait", spy)
    return done


def _evaluate(url: str, fake: ThreadedFaultServer, out: Path) -> livetab.Results:
    return livetab.evaluate("openai:" + fake.url(), release=RELEASE, store=url, output=out, concurrency=8)


def _as_this_process_writes(url: str, run_ids: list[str], out: Path) -> None:
    from livetab_reporter.files import write_reports

    store = open_store(url)
    judge = judge_name(Settings().judge)
    try:
        write_reports(store, run_ids, out, RELEASE, judge=judge)
        write_samples(out, sample_rows(store, run_ids, judge))
    finally:
        store.close()


def _same_files(a: Path, b: Path) -> None:
    assert json.loads((a / "leaderboard.json").read_text()) == json.loads((b / "leaderboard.json").read_text())
    for name in ("leaderboard.md", "report.html", "samples.jsonl"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert pq.read_table(a / "samples.parquet").equals(pq.read_table(b / "samples.parquet"))


def test_the_report_process_writes_the_files_this_process_would(used: list[str], store_url: str,
                                                                 fake: ThreadedFaultServer, tmp_path: Path) -> None:
    res = _evaluate(store_url, fake, tmp_path / "out")
    assert used == ["reports", "parquet"]
    assert res.leaderboard["models"][0]["n"] == 40 and len(res.sample_rows) == 40
    assert all(p.is_file() for p in res.files)
    _as_this_process_writes(store_url, res.run_ids, tmp_path / "here")
    _same_files(tmp_path / "out", tmp_path / "here")


def _cannot_start(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def refuse(self: ReportProcess) -> ReportProcess:
        raise ReportProcessError("cannot start the report process: refused by the test")

    monkeypatch.setattr(ReportProcess, "start", refuse)


def _answers_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    args = evaluate_files.EvalFiles._report_args

    def elsewhere(self: evaluate_files.EvalFiles) -> dict[str, Any]:  # a store with no tables: its reads fail
        return {**args(self), "store": f"sqlite:///{tmp_path / 'empty.db'}"}

    monkeypatch.setattr(evaluate_files.EvalFiles, "_report_args", elsewhere)


def _dies(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    begin = evaluate_files.EvalFiles.begin

    def then_kill(self: evaluate_files.EvalFiles) -> None:
        begin(self)
        assert self.process is not None and self.process._proc is not None
        self.process._proc.kill()

    monkeypatch.setattr(evaluate_files.EvalFiles, "begin", then_kill)


@pytest.mark.parametrize("failure", [_cannot_start, _answers_an_error, _dies], ids=lambda f: f.__name__[1:])
def test_a_failing_report_process_leaves_the_files_to_this_process(failure: Any, used: list[str], store_url: str,
                                                                   fake: ThreadedFaultServer, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    failure(monkeypatch, tmp_path)
    with caplog.at_level(logging.WARNING, logger="livetab.evaluate_files"):
        res = _evaluate(store_url, fake, tmp_path / "out")
    assert "this process writes" in caplog.text
    assert "reports" not in used  # nothing the report process answered was taken for written
    _as_this_process_writes(store_url, res.run_ids, tmp_path / "here")
    _same_files(tmp_path / "out", tmp_path / "here")


def test_the_process_answers_each_command_in_order_and_says_what_failed(tmp_path: Path) -> None:
    jsonl = tmp_path / "samples.jsonl"
    jsonl.write_bytes(b"")
    commands = [{"op": "nonsense"}, {"op": "parquet", "jsonl": str(jsonl), "parquet": str(tmp_path / "s.parquet")},
                {"op": "parquet", "jsonl": str(tmp_path / "missing.jsonl"), "parquet": str(tmp_path / "t.parquet")}]
    out = io.StringIO()
    assert main(io.StringIO("".join(json.dumps(c) + "\n" for c in commands)), out) == 0
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    assert replies[0] == {"op": "ready", "ok": True}
    assert replies[1]["op"] == "nonsense" and not replies[1]["ok"] and "unknown command" in replies[1]["error"]
    # the two parquet commands run beside the others, so either may answer first
    parquets = sorted(replies[2:], key=lambda r: r["ok"])
    assert [r["op"] for r in parquets] == ["parquet", "parquet"] and len(replies) == 4
    assert not parquets[0]["ok"] and "FileNotFoundError" in parquets[0]["error"]
    assert parquets[1] == {"op": "parquet", "ok": True} and pq.read_table(tmp_path / "s.parquet").num_rows == 0


def test_prepare_parses_the_releases_questions_so_the_reports_at_the_end_find_them_parsed(store_url: str) -> None:
    """The rehearsal runs over runs with no answer yet, so it parses no question; the reports' per-answer records
    at the end would parse every one of them (`load_question`, kept by payload) while the evaluation waits."""
    import livetab.records as records
    from livetab.releases import frozen_questions
    from livetab.report_process import _run, _Session

    store = open_store(store_url)
    payloads = {bytes(r["payload"]) for r in store.get_many(schema.questions, frozen_questions(store, RELEASE)).values()}
    store.close()
    assert len(payloads) == 40
    records._QUESTIONS.clear()
    session = _Session()
    try:
        _run(session, {"op": "prepare", "store": store_url, "run_ids": [], "release": RELEASE,
                       "judge": judge_name(Settings().judge), "public": False, "split_date": ""})
    finally:
        session.close()
    assert payloads <= set(records._QUESTIONS)


def _stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: str) -> None:
    """The report process's interpreter replaced by a shell script (`script`, after its #! line)."""
    import livetab.report_process as report_process

    python = tmp_path / "python"
    python.write_text("#!/bin/sh\n" + script)
    python.chmod(0o755)
    monkeypatch.setattr(report_process.sys, "executable", str(python))


def test_a_reply_that_comes_before_an_earlier_commands_is_kept_for_its_wait(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # it answers the second command before the first, as the process does when its parquet is written beside
    # a reports still in progress
    _stand_in(tmp_path, monkeypatch, "echo '{\"op\": \"ready\", \"ok\": true}'\nread a\nread b\n"
              "echo '{\"op\": \"parquet\", \"ok\": false, \"error\": \"OSError: disk full\"}'\n"
              "echo '{\"op\": \"reports\", \"ok\": true}'\nread end\n")
    proc = ReportProcess(timeout_s=10).start()
    try:
        proc.send("reports", out=str(tmp_path))
        proc.send("parquet", jsonl="j", parquet="p")
        proc.wait("reports")  # reads the parquet answer on the way
        with pytest.raises(ReportProcessError, match=r"could not do 'parquet': OSError: disk full"):
            proc.wait("parquet")
    finally:
        proc.close()


def test_a_report_process_that_crashes_is_named_with_its_last_words(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    _stand_in(tmp_path, monkeypatch, "read line\necho 'Traceback (most recent call last):' >&2\n"
              "echo 'MemoryError: out of memory while writing' >&2\nexit 1\n")
    proc = ReportProcess(timeout_s=10).start()
    try:
        proc.send("reports", out=str(tmp_path))
        with pytest.raises(ReportProcessError, match=r"ended before it answered 'reports' \(it said: MemoryError"):
            proc.wait("reports")
    finally:
        proc.close()


def test_closing_a_busy_report_process_stops_it_as_ctrl_c_would(store_url: str, tmp_path: Path) -> None:
    """An evaluation stopped (Ctrl-C) while its report process works: `close` stops it with SIGTERM, which the
    process takes as KeyboardInterrupt (its scratch folders are removed on the way out), exit code 130."""
    import time

    proc = ReportProcess(timeout_s=60).start()
    assert proc._replies.get(timeout=60) == {"op": "ready", "ok": True}  # its signal handler is in place
    child = proc._proc
    assert child is not None
    proc.send("prepare", store=store_url, release=RELEASE, run_ids=[], judge="rubric", public=False, split_date="")
    t0 = time.monotonic()
    proc.close()
    assert child.returncode == 130 and time.monotonic() - t0 < 3


def test_a_report_process_still_starting_at_the_end_is_not_waited_for(used: list[str], store_url: str,
                                                                        fake: ThreadedFaultServer, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A helper whose imports are not done when the last answer is judged (a cold disk, a fast evaluation) is
    stopped, and this process writes the files at once instead of waiting for it."""
    import time

    _stand_in(tmp_path, monkeypatch, "exec sleep 60\n")  # never gets to "ready"
    monkeypatch.setattr(evaluate_files.EvalFiles, "begin", BEGIN)  # as evaluations run: not waiting for it
    t0 = time.monotonic()
    res = _evaluate(store_url, fake, tmp_path / "out")
    assert time.monotonic() - t0 < 30 and used == []
    _as_this_process_writes(store_url, res.run_ids, tmp_path / "here")
    _same_files(tmp_path / "out", tmp_path / "here")


def test_a_sigterm_as_the_process_leaves_its_loop_still_exits_130() -> None:
    """`close` sends SIGTERM when a command is unanswered, but the command may just have finished: the
    KeyboardInterrupt can then land after `main`'s loop (closing its session, returning), where Python would end
    the process by SIGINT (-2, as this test's busy sibling once saw) instead of the 130 of Ctrl-C."""
    import subprocess
    import sys

    code = ("import sys, livetab.report_process as rp\n"
            "def late():\n"
            "    raise KeyboardInterrupt  # SIGTERM's handler raising after the loop, as in `finally`\n"
            "rp.main = late\n"
            "sys.exit(rp._as_a_process())\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert done.returncode == 130, done.stderr.decode()[-500:]
