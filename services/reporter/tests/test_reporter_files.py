"""The reporter service writes the report files itself, from the store, over the in-process bus: a run's files
and its release's when the run completes (judged or dead-lettered), nothing while it is still going, a
re-judged run rewritten when the topic goes quiet, and the release exports on the lifecycle's events."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.message import Message
from livetab import topics
from livetab.bus import HandlerContext, InProcBus, Outgoing, Worker
from livetab.question_lint import LINT_FLAGS
from livetab.releases import frozen_questions
from livetab.settings import ReporterSettings, RunSettings, Settings
from livetab.store import schema
from livetab.v1 import inference_pb2, judgment_pb2, release_pb2
from livetab_api.releases import apply_commands, release_command
from livetab_reporter.files import report_dir
from livetab_reporter.handler import ReporterHandler
from reporter_data import RELEASE, Answer, add_questions, answer_and_judge, plan_run


def _settings(out: Path, release: str = RELEASE) -> Settings:
    # refresh_s high: only completion and the idle hook write files, never the clock
    return Settings(out_dir=str(out), run=RunSettings(release=release),
                    reporter=ReporterSettings(refresh_growth=10.0, refresh_s=3600.0, first_s=0.0))


class _Reporter:
    """The reporter handler in its worker over the in-process bus, as embedded mode runs it (`background`: as
    the reporter service runs it, its files written by a thread of their own)."""

    def __init__(self, store: Any, settings: Settings, *, background: bool = False) -> None:
        self.bus = InProcBus()
        self.handler = ReporterHandler(background_files=background)
        self.worker = Worker(self.handler, self.bus, HandlerContext(store=store, settings=settings),
                             poll_timeout_s=0, max_records=1000)

    def send(self, topic: str, messages: list[Message]) -> None:
        for m in messages:
            self.bus.publish(Outgoing(topic, m, key=getattr(m, "run_id", "") or m.id, message_id=m.id))
        assert self.worker.run_once() == len(messages)

    def idle(self) -> None:
        assert self.worker.run_once() == 0  # a quiet poll: the idle hook runs


def _verdict(r: inference_pb2.InferenceRequest) -> Answer:
    return Answer("correct" if int(r.question_id[-2:], 16) % 3 else "incorrect", extracted="x")


def _board(folder: Path) -> dict[str, Any]:
    return dict(json.loads((folder / "leaderboard.json").read_text(encoding="utf-8")))


def _scores(doc: dict[str, Any]) -> dict[str, tuple[int, int]]:
    return {m["model"]: (m["n"], m["correct"]) for m in doc["models"]}


def _expected(requests: list[inference_pb2.InferenceRequest], decide: Any = _verdict) -> tuple[int, int]:
    return len(requests), sum(decide(r).verdict == "correct" for r in requests)


class _Failing:
    """An inference handler that fails on every request: its worker dead-letters them (fault injection)."""

    service = "inference"
    topics = [topics.INFERENCE_REQUESTS]

    def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
        raise ValueError("the endpoint refused it")


def _dead_letter(store: Any, request: inference_pb2.InferenceRequest) -> None:
    bus = InProcBus()
    bus.publish(Outgoing(topics.INFERENCE_REQUESTS, request, key=request.run_id, message_id=request.id))
    assert Worker(_Failing(), bus, HandlerContext(store=store, settings=None), poll_timeout_s=0).run_once() == 1


def test_runs_are_written_when_complete_and_again_when_judged_anew(store: Any, tmp_path: Path) -> None:
    add_questions(store, 8)
    run1, req1 = plan_run(store, model="m1")
    run2, req2 = plan_run(store, model="m2")
    out = tmp_path / "out"
    reporter = _Reporter(store, _settings(out))

    reporter.send(topics.JUDGMENTS, answer_and_judge(store, req1[:5], _verdict))
    reporter.send(topics.JUDGMENTS, answer_and_judge(store, req2[:2], _verdict))
    reporter.idle()
    assert not out.exists()  # nothing is written for a run still going, not even when idle

    reporter.send(topics.JUDGMENTS, answer_and_judge(store, req1[5:], _verdict))
    dir1 = out / "runs" / run1
    assert dir1 == report_dir(_settings(out), RELEASE, run1)
    for name in ("leaderboard.json", "leaderboard.md", "report.html", "private/report.html"):
        assert (dir1 / name).is_file(), name
    assert _scores(_board(dir1)) == {"m1": _expected(req1)}
    assert _board(dir1)["calibration"]["figures"]  # the model-free figures, computed by the reporter
    assert json.loads((out / "calibration.json").read_text(encoding="utf-8"))["figures"]
    # the release's files wait while another run on it is in progress here
    assert not (out / "leaderboard.json").exists() and not (out / "runs" / run2).exists()

    # run 2's last request is dead-lettered: no judgment arrives, the idle hook finds the run complete
    reporter.send(topics.JUDGMENTS, answer_and_judge(store, req2[2:-1], _verdict))
    reporter.idle()
    assert not (out / "runs" / run2).exists()
    _dead_letter(store, req2[-1])
    assert store.count(schema.dead_letters, run_id=run2) == 1
    reporter.idle()
    assert _scores(_board(out / "runs" / run2)) == {"m2": _expected(req2[:-1])}
    # the release's files (the configured release: at the top of out_dir) hold every run on it
    assert _scores(_board(out)) == {"m1": _expected(req1), "m2": _expected(req2[:-1])}
    assert (out / "report.html").is_file() and (out / "plots" / "ranking.svg").is_file()
    assert (out / "release" / "README.md").is_file() and not (out / "release" / "questions.jsonl").exists()
    results = (out / "release" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(results) == len(req1) + len(req2) - 1
    assert (out / "private" / "release" / "questions.jsonl").is_file()  # live: the full copy is the operators'

    # the judge judges run 1 again (same judgment ids: the rows are replaced) and now says all correct
    def right(r: inference_pb2.InferenceRequest) -> Answer:
        return Answer("correct", extracted="x")

    assert _expected(req1, right) != _expected(req1)
    before = {f: f.read_bytes() for f in (dir1 / "leaderboard.json", out / "leaderboard.json")}
    for i in range(0, len(req1), 3):
        reporter.send(topics.JUDGMENTS, answer_and_judge(store, req1[i:i + 3], right))
    assert {f: f.read_bytes() for f in before} == before  # judgment batches alone rewrite nothing
    reporter.idle()
    assert _scores(_board(dir1)) == {"m1": _expected(req1, right)}
    assert _scores(_board(out)) == {"m1": _expected(req1, right), "m2": _expected(req2[:-1])}
    after = (out / "leaderboard.json").stat().st_mtime_ns
    reporter.idle()  # nothing judged since: nothing rewritten
    assert (out / "leaderboard.json").stat().st_mtime_ns == after


def test_files_that_cannot_be_written_fail_no_judgment_and_are_written_later(store: Any, tmp_path: Path) -> None:
    add_questions(store, 4)
    run_id, requests = plan_run(store, model="m1")
    out = tmp_path / "out"
    out.write_text("a file where the output folder should be")
    settings = _settings(out).model_copy(update={"reporter": ReporterSettings(refresh_s=0.0, first_s=0.0)})
    reporter = _Reporter(store, settings)
    reporter.send(topics.JUDGMENTS, answer_and_judge(store, requests, _verdict))
    assert reporter.worker.stats.dead_lettered == 0 and store.count(schema.dead_letters) == 0
    assert store.get(schema.leaderboard, f"{run_id}|all")["n"] == len(requests)  # the live rows are stored
    out.unlink()
    reporter.idle()  # tried again once `refresh_s` has passed (0 here)
    assert _scores(_board(out / "runs" / run_id)) == {"m1": _expected(requests)}
    assert _scores(_board(out)) == {"m1": _expected(requests)}


def _event(status: int, *, refused: str = "", n: int = 0, command: str = "c1") -> release_pb2.ReleaseEvent:
    """A hand-made event (the real ones come from the api service's release handler, used below)."""
    return release_pb2.ReleaseEvent(id=f"ev-{status}-{command}", release=RELEASE, status=status,  # type: ignore[arg-type]
                                    manifest_hash="ab" * 32, questions=n, command_id=command, refused=refused,
                                    at="2026-11-30T19:00:00Z")


def test_release_events_write_the_private_then_the_public_export(store: Any, tmp_path: Path) -> None:
    add_questions(store, 9)
    # another release's files go to their own folder: the configured release here is a different one
    settings = _settings(tmp_path / "out", release="other")
    folder = tmp_path / "out" / "releases" / RELEASE
    assert report_dir(settings, RELEASE) == folder
    reporter = _Reporter(store, settings)

    reporter.send(topics.RELEASES, [_event(release_pb2.FROZEN, refused="release is live", n=9),
                                    _event(release_pb2.LIVE, n=9)])
    assert not (tmp_path / "out").exists()  # a refused command's event and the other states write nothing

    # the api service's release handler freezes the release; its event reaches the reporter
    events = apply_commands(store, None, [release_command(RELEASE, "freeze", by="test")])
    [frozen_event] = [e for e in events if e.status == release_pb2.FROZEN and not e.refused]
    frozen = frozen_questions(store, RELEASE)
    assert len(frozen) == frozen_event.questions == 9
    add_questions(store, 12)  # 3 more questions under the release's name after freezing: not in it
    reporter.send(topics.RELEASES, [frozen_event])
    private = folder / "private" / "release"
    assert sorted(json.loads(line)["id"] for line in (private / "questions.jsonl").read_text().splitlines()) == frozen
    assert (private / "tables.jsonl").is_file() and "# livetab release" in (private / "README.md").read_text()
    quality = json.loads((folder / "private" / "quality.json").read_text(encoding="utf-8"))
    assert quality["frozen_questions"] == 9 and quality["manifest_hash"] == frozen_event.manifest_hash != ""
    assert quality["questions"]["n"] == 9 and quality["generated"] == {
        "n": 12, "status": {"verified": 12}, "in_release": 9, "left_out": 3}
    assert sum(quality["questions"]["family"].values()) == 9
    assert set(quality["lint"]) == {*LINT_FLAGS, "flagged"} and quality["lint"]["flagged"] <= 9
    assert "# Quality report" in (folder / "private" / "quality.md").read_text(encoding="utf-8")
    assert not (folder / "release").exists()  # nothing public while the release is not retired

    _, requests = plan_run(store, model="m1")  # publishes the release (live) and plans over its 9 questions
    assert len(requests) == 9
    reporter.send(topics.JUDGMENTS, answer_and_judge(store, requests, _verdict))
    page = (folder / "report.html").read_text(encoding="utf-8")
    assert "question 0?" not in page and "question 0?" in (folder / "private" / "report.html").read_text()

    events = apply_commands(store, None, [release_command(RELEASE, "retire", by="test")])
    [retired] = [e for e in events if e.status == release_pb2.RETIRED and not e.refused]
    reporter.send(topics.RELEASES, [retired])
    public = folder / "release"
    rows = [json.loads(line) for line in (public / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(r["id"] for r in rows) == frozen and all(r["gold"]["text"] for r in rows)
    assert (public / "tables.jsonl").is_file() and (public / "tables.parquet").is_file()
    results = [json.loads(line) for line in (public / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(results) == len(requests) and all("response" in r for r in results)
    assert "Live release" not in (public / "README.md").read_text(encoding="utf-8")
    assert not private.exists()  # nothing kept apart once the release is public
    assert _board(folder)["public"] is True and "question 0?" in (folder / "report.html").read_text()


def test_a_release_name_that_is_no_folder_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot name a folder"):
        report_dir(_settings(tmp_path), "../etc")
    assert report_dir(_settings(tmp_path), RELEASE) == tmp_path
    assert report_dir(_settings(tmp_path), "r-2") == tmp_path / "releases" / "r-2"


def test_judgment_and_release_topics_are_the_reporters(store: Any) -> None:
    assert ReporterHandler.topics == [topics.JUDGMENTS, topics.RELEASES]
    assert {t.name for t in topics.consumed_by("reporter")} == set(ReporterHandler.topics)
    assert judgment_pb2.Judgment.DESCRIPTOR.full_name == topics.by_name(topics.JUDGMENTS).message_type


def _eventually(check: Any, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, "the writer thread did not write the files in time"
        time.sleep(0.05)


def test_the_service_writes_files_on_its_own_thread_and_a_restart_writes_what_was_lost(
        store: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With `background_files` (the reporter service) a run's completing batch returns before its files are
    written (the consumer never waits for a report); the writer thread writes them, then the release's, and a
    stopping worker waits for them (`on_stop`). A
    reporter that stopped after committing a run's last judgments but before writing its files loses nothing:
    the next one's writer writes the files of every complete run that has none."""
    import livetab_reporter.files as files

    add_questions(store, 8)
    run1, req1 = plan_run(store, model="m1")
    out = tmp_path / "out"
    gate = threading.Event()
    real = files.write_run_files

    def held(*args: Any, **kwargs: Any) -> Path:
        assert threading.current_thread().name == "reporter-files"
        assert gate.wait(60)
        return real(*args, **kwargs)

    monkeypatch.setattr(files, "write_run_files", held)
    reporter = _Reporter(store, _settings(out), background=True)
    reporter.send(topics.JUDGMENTS, answer_and_judge(store, req1, _verdict))  # returns while the write waits
    assert store.get(schema.leaderboard, f"{run1}|all")["n"] == len(req1)  # the live rows are stored at once
    assert not (out / "runs" / run1 / "leaderboard.json").exists()
    threading.Timer(0.3, gate.set).start()
    reporter.handler.on_stop(reporter.worker.ctx)  # SIGTERM: the stopping worker waits for what is queued
    assert (out / "leaderboard.json").exists()  # the run's files and, at once, its release's
    assert _scores(_board(out / "runs" / run1)) == {"m1": _expected(req1)}
    assert _scores(_board(out)) == {"m1": _expected(req1)}

    # a run whose last judgments were committed by a reporter that stopped before writing its files
    run2, req2 = plan_run(store, model="m2")
    answer_and_judge(store, req2, _verdict)  # stored and committed; no judgment will arrive again
    monkeypatch.setattr(files, "write_run_files", real)
    restarted = _Reporter(store, _settings(out), background=True)
    restarted.idle()  # the first quiet poll starts the writer, which looks for complete runs without files
    _eventually(lambda: (out / "runs" / run2 / "leaderboard.json").exists())
    assert _scores(_board(out / "runs" / run2)) == {"m2": _expected(req2)}
    _eventually(lambda: _scores(_board(out)) == {"m1": _expected(req1), "m2": _expected(req2)})


def _held_writer(monkeypatch: pytest.MonkeyPatch, *, after: bool = False
                 ) -> tuple[threading.Event, list[str], list[str]]:
    """The writer thread's `write_run_files` held until the gate opens (before it reads the store, or with
    `after` once it has written); the runs written and recomputed."""
    import livetab_reporter.files as files
    import livetab_reporter.handler as handler_module

    gate, writes, recomputes = threading.Event(), [], []
    real_write, real_rows = files.write_run_files, handler_module.compute_rows

    def held(store_: Any, settings: Any, rid: str, **kwargs: Any) -> Path:
        writes.append(rid)
        if after:
            folder = real_write(store_, settings, rid, **kwargs)
            assert gate.wait(60)
            return folder
        assert gate.wait(60)
        return real_write(store_, settings, rid, **kwargs)

    def rows(store_: Any, rid: str, **kwargs: Any) -> Any:
        recomputes.append(rid)
        return real_rows(store_, rid, **kwargs)

    monkeypatch.setattr(files, "write_run_files", held)
    monkeypatch.setattr(handler_module, "compute_rows", rows)
    return gate, writes, recomputes


def _wrong(r: inference_pb2.InferenceRequest) -> Answer:
    return Answer("incorrect", extracted="y")


def _written_again(reporter: _Reporter, writes: list[str], folder: Path, requests: list[inference_pb2.InferenceRequest],
                   *, wrong: int) -> None:
    """The idle hook writes the run's files a second time, with its first `wrong` requests judged anew `_wrong`."""
    reporter.idle()
    _eventually(lambda: len(writes) == 2)
    reporter.handler._settled.wait(60)
    anew = {r.id for r in requests[:wrong]}
    assert _scores(_board(folder)) == {"m1": _expected(requests, lambda r: _wrong(r) if r.id in anew else _verdict(r))}
    reporter.handler.on_stop(reporter.worker.ctx)


def test_a_run_whose_files_are_being_written_is_neither_recomputed_nor_written_again(
        store: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run seen in progress, then complete: while the writer thread writes its files, quiet polls neither
    recompute the whole run again nor queue its files a second time (before, the idle hook found it still listed
    as in progress and did both). Its judgments that arrive as the files hold them (a redelivery, or the last
    of a run the store already counted complete) write nothing again, neither while the files are written nor
    after (before, a 48,000-answer run's files and its release's were written twice); a re-judgment after the
    files were written makes them stale, rewritten when idle."""
    add_questions(store, 8)
    run_id, requests = plan_run(store, model="m1")
    out = tmp_path / "out"
    gate, writes, recomputes = _held_writer(monkeypatch)
    reporter = _Reporter(store, _settings(out), background=True)
    half = len(requests) // 2
    reporter.send(topics.JUDGMENTS, answer_and_judge(store, requests[:half], _verdict))  # in progress
    last = answer_and_judge(store, requests[half:], _verdict)
    reporter.send(topics.JUDGMENTS, last)  # complete: its files are queued
    _eventually(lambda: writes == [run_id])  # the writer has taken it and is writing
    assert recomputes == [run_id, run_id]
    reporter.idle()
    reporter.send(topics.JUDGMENTS, last[:3])  # a redelivery while the files are written
    reporter.idle()
    assert recomputes == [run_id, run_id] and writes == [run_id]
    gate.set()
    _eventually(lambda: (out / "runs" / run_id / "leaderboard.json").exists())
    assert _scores(_board(out / "runs" / run_id)) == {"m1": _expected(requests)}
    reporter.handler._settled.wait(60)
    reporter.send(topics.JUDGMENTS, last[3:])  # the same judgments again, after the files were written
    reporter.idle()
    reporter.handler._settled.wait(60)
    assert writes == [run_id]  # the files hold them as they are: nothing is written again
    reporter.send(topics.JUDGMENTS, answer_and_judge(store, requests[:2], _wrong))  # judged anew, otherwise
    _written_again(reporter, writes, out / "runs" / run_id, requests, wrong=2)
    reporter.idle()
    reporter.handler.on_stop(reporter.worker.ctx)
    assert writes == [run_id, run_id]


def test_a_run_judged_anew_while_its_files_are_written_is_written_once_more(
        store: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A re-judgment that arrives while the run's files are being written, after the write read the store, is
    missing from them: the files are written once more, when idle after. (One stored before the write read the
    store is in them: nothing is written again for it.)"""
    add_questions(store, 8)
    run_id, requests = plan_run(store, model="m1")
    out = tmp_path / "out"
    gate, writes, _ = _held_writer(monkeypatch, after=True)
    reporter = _Reporter(store, _settings(out), background=True)
    reporter.send(topics.JUDGMENTS, answer_and_judge(store, requests, _verdict))  # complete: queued
    _eventually(lambda: writes == [run_id] and (out / "runs" / run_id / "leaderboard.json").exists())
    assert _scores(_board(out / "runs" / run_id)) == {"m1": _expected(requests)}
    reporter.send(topics.JUDGMENTS, answer_and_judge(store, requests[:3], _wrong))  # re-judged meanwhile
    gate.set()
    reporter.handler._settled.wait(60)
    _written_again(reporter, writes, out / "runs" / run_id, requests, wrong=3)


class _Counting:
    """The store, counting the rows each of its reads returns, by table."""

    def __init__(self, store: Any) -> None:
        self.store, self.rows = store, Counter()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def select(self, table: Any, **where: Any) -> list[dict[str, Any]]:
        out = self.store.select(table, **where)
        self.rows[table.name] += len(out)
        return out

    def get_many(self, table: Any, keys: Any, chunk: int = 500) -> dict[str, dict[str, Any]]:
        out = self.store.get_many(table, keys, chunk)
        self.rows[table.name] += len(out)
        return out

    def payloads(self, table: Any, **where: Any) -> list[bytes]:
        out = self.store.payloads(table, **where)
        self.rows[table.name] += len(out)
        return out

    def stream(self, table: Any, columns: Any, **kw: Any) -> Any:
        for row in self.store.stream(table, columns, **kw):
            self.rows[table.name] += 1
            yield row


def test_a_live_releases_files_read_its_questions_once_and_its_answers_twice(store: Any, tmp_path: Path) -> None:
    """The leaderboard, the pages' answers and the public and private exports of a live release read the same
    rows. Its questions are read once; its results and judgments twice, never held (the leaderboard's facts, then
    one pass that writes both exports and gives the pages their answers): held, a 100,000-answer release's rows
    were ~0.3 GB of the reporter's peak; read 2-4 times each, ~half of the release files' CPU."""
    from livetab_reporter.files import write_release_files

    add_questions(store, 12)
    requests = []
    for model in ("m1", "m2"):
        _, reqs = plan_run(store, model=model)
        answer_and_judge(store, reqs, _verdict)
        requests += reqs
    settings = _settings(tmp_path / "out")
    counting = _Counting(store)
    doc = write_release_files(counting, settings, RELEASE)
    assert doc["models"] and sum(m["n"] for m in doc["models"]) == len(requests) == 24
    assert counting.rows["questions"] == 12 and counting.rows["results"] == counting.rows["judgments"] == 2 * 24
    folder = report_dir(settings, RELEASE)
    for part in (folder / "release", folder / "private" / "release"):
        assert (part / "README.md").is_file()
    private = [json.loads(line) for line in (folder / "private" / "release" / "results.jsonl").read_text().splitlines()]
    assert len(private) == 24 and all("response" in r for r in private)
