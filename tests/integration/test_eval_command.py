"""`livetab eval` and `livetab.evaluate()`: a model evaluated on a release without a config file.

- the four probe failures (closed port, wrong model name, a server answering HTML, an unset API-key variable)
  each exit 2 with one line, before anything is asked or stored;
- against an OpenAI-compatible server (the fault server, fixed answers): files written, a second run asks
  nothing (resumed from the store), a run stopped by Ctrl-C resumes and asks only what it had not;
- a retired release's export folder, as the reporter writes it, is a release to evaluate;
- with the real local model (marked `model`): `gguf:PATH` through the command and through `livetab.evaluate()`
  give the same verdicts; llama-cpp-python's own OpenAI-compatible server through `openai:URL`.

The bundled sample is generated once per module into a temporary cache (`LIVETAB_CACHE`), as on a fresh clone.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from livetab_cli.main import main

from tests.fakes.fault_server import MODEL_ID, Scenario, ThreadedFaultServer

ROOT = Path(__file__).resolve().parents[2]
LIVETAB = Path(sys.executable).parent / "livetab"


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("livetab-cache")
    before = os.environ.get("LIVETAB_CACHE")
    os.environ["LIVETAB_CACHE"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("LIVETAB_CACHE", None)
    else:
        os.environ["LIVETAB_CACHE"] = before


@pytest.fixture(scope="module")
def fake() -> Iterator[ThreadedFaultServer]:
    with ThreadedFaultServer() as server:
        yield server


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Html(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<html><body>Welcome to nginx!</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def html_url() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Html)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


def _leaderboard(out: Path) -> dict:  # type: ignore[type-arg]
    return json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))


def _samples(out: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()]


# -- probes ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", ["closed port", "wrong model name", "html server", "unset key"])
def test_a_model_that_cannot_answer_stops_with_one_line_and_exit_2(case: str, fake: ThreadedFaultServer, html_url: str,
                                                                  tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LIVETAB_TEST_UNSET_KEY", raising=False)
    args, expected = {
        "closed port": ([f"openai:http://127.0.0.1:{_closed_port()}/v1"], "cannot reach"),
        "wrong model name": ([fake.url(), "--model-name", "no-such-model"], f"does not serve a model named "
                                                                              f"'no-such-model' (it serves: {MODEL_ID})"),
        "html server": ([f"openai:{html_url}"], "does not speak the OpenAI API"),
        "unset key": ([fake.url(), "--model-args", "api_key_env=LIVETAB_TEST_UNSET_KEY"],
                      "LIVETAB_TEST_UNSET_KEY (api_key_env) is not set"),
    }[case]
    if args[0].startswith("http"):
        args[0] = "openai:" + args[0]
    asked = fake.count()
    out = tmp_path / "out"
    rc = main(["eval", "--model", *args, "--output", str(out), "-q"])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.count("\n") == 1 and err.startswith("livetab eval: ") and expected in err, err
    assert fake.count() == asked  # nothing was asked
    assert not out.exists()  # nor stored: the probe comes first


def test_a_redirecting_endpoint_is_refused_at_the_probe_as_its_requests_would_be(
        fake: ThreadedFaultServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The probe asks through the client that asks the questions, which follows no redirect. Before, the probe
    (urllib) followed the 307 to the real server, accepted the endpoint, and every question then failed."""
    target = fake.url()

    class Redirect(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(307)
            self.send_header("Location", target + self.path.removeprefix("/v1"))
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_POST = do_GET

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        asked = fake.count()
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        rc = main(["eval", "--model", "openai:" + url, "--limit", "2", "--output", str(tmp_path / "out"), "-q"])
        err = capsys.readouterr().err
    finally:
        server.shutdown()
    assert rc == 2 and err.count("\n") == 1, err
    assert f"{url} does not speak the OpenAI API: GET /models answered 307" in err, err
    assert fake.count() == asked and not (tmp_path / "out").exists()


def test_a_key_on_the_command_line_is_refused(fake: ThreadedFaultServer, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["eval", "--model", "openai:" + fake.url(), "--model-args", "api_key=sk-123", "--output", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 2 and "api_key_env" in err and "sk-123" not in err


# -- an OpenAI-compatible endpoint (fixed answers) ----------------------------------------------------------------

def test_eval_over_openai_writes_files_and_a_second_run_asks_nothing(cache: Path, fake: ThreadedFaultServer,
                                                                     tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    argv = ["eval", "--model", "openai:" + fake.url(), "--limit", "6", "--output", str(out), "-q"]
    before = fake.count()
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert fake.count() - before == 6
    doc = _leaderboard(out)
    (row,) = doc["models"]
    assert row["model"] == MODEL_ID and row["n"] == 6 and row["errors"] == 0
    assert f"{MODEL_ID}: {row['correct']}/6 correct" in printed and str(out / "leaderboard.json") in printed
    rows = _samples(out)
    assert len(rows) == 6 and {r["verdict"] for r in rows} <= {"correct", "incorrect", "uncertain"}
    assert all(r["response"].startswith("seed=0 choice=0") and r["gold"] and r["family"] for r in rows)
    # the rendered prompt's hash: SHA-256 hex, one per distinct prompt (six questions, six prompts)
    assert len({r["prompt_sha256"] for r in rows}) == 6 and all(len(r["prompt_sha256"]) == 64 for r in rows)
    assert sum(r["score"] for r in rows) == row["correct"]
    import pyarrow.parquet as pq

    assert pq.read_table(out / "samples.parquet").num_rows == 6
    for name in ("leaderboard.md", "report.html"):
        assert (out / name).is_file()
    assert main(argv) == 0  # resumed: every answer is in the store
    assert fake.count() - before == 6
    assert _leaderboard(out)["models"][0]["n"] == 6


def test_evaluate_from_a_running_event_loop_and_save(cache: Path, fake: ThreadedFaultServer, tmp_path: Path) -> None:
    """As from a notebook: `livetab.evaluate` called where an event loop is already running; `save` copies the files."""
    import asyncio

    import livetab

    seen: list[livetab.Progress] = []

    async def notebook_cell() -> livetab.Results:
        return livetab.evaluate("openai:" + fake.url(), limit=2, output=tmp_path / "out", progress=seen.append)

    res = asyncio.run(notebook_cell())
    assert res.leaderboard["models"][0]["n"] == 2 and len(res.samples) == 2
    # the progress bar's figures: answered and judged counts, and the tokens generated (the fake's usage: 4 a call)
    last = seen[-1]
    assert (last.planned, last.answered, last.judged, last.tokens) == (2, 2, 2, 8)
    assert last.tokens_per_s == pytest.approx(8 / last.elapsed_s)
    assert [p.answered for p in seen] == sorted(p.answered for p in seen) and seen[0].tokens == 0
    saved = res.save(tmp_path / "saved")
    assert sorted(p.name for p in saved) == ["leaderboard.json", "samples.jsonl", "samples.parquet"]
    assert _leaderboard(tmp_path / "saved") == res.leaderboard
    assert _samples(tmp_path / "saved") == _samples(tmp_path / "out")


def test_livetab_score_on_the_same_responses_gives_the_same_verdicts(cache: Path, fake: ThreadedFaultServer,
                                                                    tmp_path: Path) -> None:
    """The responses `livetab eval` got, submitted as predictions made elsewhere, are judged alike by `livetab score`."""
    from livetab.store import open_store, schema
    from livetab.v1 import judgment_pb2
    from livetab_cli.score import score_run_id

    out = tmp_path / "out"
    assert main(["eval", "--model", "openai:" + fake.url(), "--limit", "5", "--output", str(out), "-q"]) == 0
    evaluated = {r["question_id"]: r for r in _samples(out)}
    preds = tmp_path / "predictions.jsonl"
    preds.write_text("".join(json.dumps({"question_id": q, "response": r["response"]}) + "\n"
                             for q, r in evaluated.items()), encoding="utf-8")
    cfg = tmp_path / "score.yaml"
    cfg.write_text(f"out_dir: {tmp_path / 'scored'}\nstore:\n  url: sqlite:///{out / 'livetab.db'}\n")
    assert main(["score", "--config", str(cfg), "--release", "demo", str(preds)]) == 0
    store = open_store(f"sqlite:///{out / 'livetab.db'}")
    try:
        scored = {j.question_id: j for j in (judgment_pb2.Judgment.FromString(r["payload"]) for r in
                                             store.select(schema.judgments, run_id=score_run_id("demo", "external")))}
    finally:
        store.close()
    assert len(evaluated) == 5
    for qid, row in evaluated.items():
        assert (scored[qid].verdict, scored[qid].extracted_answer, scored[qid].score) == (
            row["verdict"], row["extracted_answer"], row["score"]), qid


def test_compare_two_real_runs_pairs_samples_and_tests_with_mcnemar_exact(cache: Path, fake: ThreadedFaultServer,
                                                                         tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Run A: `livetab eval` against the fake server; run B: `livetab score` on predictions made elsewhere (the
    gold answer for the first five questions, A's response for the rest). `livetab compare A B` pairs the samples
    and gives McNemar's exact p-value, checked against the binomial sum computed here."""
    import math

    a_out, b_out = tmp_path / "a", tmp_path / "b"
    assert main(["eval", "--model", "openai:" + fake.url(), "--limit", "8", "--output", str(a_out), "-q"]) == 0
    a_rows = _samples(a_out)
    preds = tmp_path / "predictions.jsonl"
    preds.write_text("".join(json.dumps({"question_id": r["question_id"], "response": r["gold"] if i < 5 else r["response"]})
                             + "\n" for i, r in enumerate(a_rows)), encoding="utf-8")
    cfg = tmp_path / "score.yaml"
    cfg.write_text(f"out_dir: {b_out}\nstore:\n  url: sqlite:///{a_out / 'livetab.db'}\n")
    assert main(["score", "--config", str(cfg), "--release", "demo", str(preds)]) == 0
    b_rows = {r["question_id"]: r for r in _samples(b_out)}  # the release's other questions: "no prediction"
    assert all(b_rows[r["question_id"]]["response"] == (r["gold"] if i < 5 else r["response"])
               for i, r in enumerate(a_rows))
    capsys.readouterr()
    assert main(["compare", str(a_out), str(b_out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    ok_a = {r["question_id"]: r["verdict"] == "correct" for r in a_rows}
    ok_b = {q: b_rows[q]["verdict"] == "correct" for q in ok_a}
    b = sum(ok_a[q] and not ok_b[q] for q in ok_a)
    c = sum(ok_b[q] and not ok_a[q] for q in ok_a)
    assert c >= 1 and (doc["paired"], doc["a_correct_b_not"], doc["b_correct_a_not"]) == (8, b, c)
    assert (doc["only_in_a"], doc["only_in_b"]) == (0, sum(1 for r in b_rows.values() if r["verdict"]) - 8)
    assert doc["difference_b_minus_a"] == pytest.approx((c - b) / 8)
    p_exact = min(1.0, 2 * sum(math.comb(b + c, i) for i in range(min(b, c) + 1)) / 2 ** (b + c))
    assert doc["p_value"] == pytest.approx(p_exact) and doc["ci95"][0] < doc["difference_b_minus_a"] < doc["ci95"][1]
    assert main(["compare", str(a_out), str(b_out)]) == 0
    assert f"McNemar exact p = {p_exact:.4g}" in capsys.readouterr().out
    assert main(["compare", str(a_out), str(tmp_path)]) == 2  # a folder without samples: one line, exit 2
    assert "no samples.jsonl" in capsys.readouterr().err


def test_ctrl_c_stops_and_the_same_command_resumes(cache: Path, tmp_path: Path) -> None:
    with ThreadedFaultServer(Scenario(latency_ms=250)) as slow:
        out = tmp_path / "out"
        argv = [str(LIVETAB), "eval", "--model", "openai:" + slow.url(), "--limit", "24", "--concurrency", "1",
                "--output", str(out), "-q"]
        env = {**os.environ, "LIVETAB_CACHE": str(cache)}
        # SIGINT as a terminal sends it; default disposition even when this test runs as a background job
        # (a shell starts those with SIGINT ignored, and a child inherits that)
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        deadline = time.monotonic() + 120
        while slow.count() < 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err
        assert "run the same command again to resume" in err and "Traceback" not in err
        # the request in flight at Ctrl-C was waited for (250 ms, within the grace) and its answer kept
        assert "stopping: waiting up to 10s for the 1 request in flight" in err
        first = slow.count()
        assert 3 <= first < 24
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        asked_again = slow.count() - first
        # only what the first run had not asked is asked: every answer asked for was stored, none asked twice
        assert asked_again == 24 - first
        row = _leaderboard(out)["models"][0]
        # the requests cut off by Ctrl-C were not stored as failed answers: all 24 answered, none an error
        assert row["n"] == 24 and row["errors"] == 0
        assert not [r for r in _samples(out) if r["error"]]


def test_a_retired_release_export_folder_is_a_release(cache: Path, fake: ThreadedFaultServer, tmp_path: Path) -> None:
    """The reporter's export of a release (full, as once retired) is evaluated as it is."""
    from livetab.store import open_store
    from livetab_reporter.export import export_release

    src = tmp_path / "src"
    assert main(["eval", "--model", "openai:" + fake.url(), "--limit", "1", "--output", str(src), "-q"]) == 0
    store = open_store(f"sqlite:///{src / 'livetab.db'}")
    try:
        export_release(store, "demo", tmp_path / "export", full=True)
    finally:
        store.close()
    import livetab

    loaded = livetab.load_release(str(tmp_path / "export"))
    assert loaded.name == "demo" and len(loaded.questions) > 20 and loaded.tables
    out = tmp_path / "out"
    res = livetab.evaluate("openai:" + fake.url(), release=str(tmp_path / "export"), limit=4, output=out)
    assert res.release == "demo" and res.leaderboard["models"][0]["n"] == 4
    first4 = sorted(q.id for q in loaded.questions if q.status == "verified")[:4]
    assert sorted(res.samples["question_id"]) == first4


def test_eval_over_grpc(cache: Path, fake: ThreadedFaultServer, tmp_path: Path,
                        capsys: pytest.CaptureFixture[str]) -> None:
    """A team's ModelService (deploy/model_server_example.py, here in front of the fake endpoint); a closed port
    stops at the probe."""
    rc = main(["eval", "--model", f"grpc:127.0.0.1:{_closed_port()}", "--output", str(tmp_path / "closed"), "-q"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "cannot reach" in err and "ModelService" in err, err
    spec = json.dumps({"backend": "openai", "base_url": fake.url(), "model": MODEL_ID})
    server = subprocess.Popen([sys.executable, str(ROOT / "deploy" / "model_server_example.py"), "--port", "0",
                               "--spec", spec], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        assert line.startswith("PORT "), line
        out = tmp_path / "out"
        asked = fake.count()
        assert main(["eval", "--model", f"grpc:127.0.0.1:{line.split()[1]}", "--model-name", "team-model",
                     "--limit", "3", "--output", str(out), "-q"]) == 0
        assert fake.count() - asked == 3
        rows = _samples(out)
        assert len(rows) == 3 and all(r["model"] == "team-model" and r["response"] and not r["error"] for r in rows)
    finally:
        server.terminate()
        server.wait(timeout=30)


# -- the real local model -------------------------------------------------------------------------------------------

def _gguf() -> Path:
    from livetab.models.bundled import locate

    return locate("smollm2-135m")


@pytest.mark.model
def test_gguf_through_the_command_and_the_api_gives_the_same_verdicts(cache: Path, tmp_path: Path) -> None:
    import livetab

    gguf = _gguf()
    cli_out, api_out = tmp_path / "cli", tmp_path / "api"
    proc = subprocess.run([str(LIVETAB), "eval", "--model", f"gguf:{gguf}", "--limit", "3", "--model-args",
                           "max_tokens=16", "--output", str(cli_out)], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "LIVETAB_CACHE": str(cache)})
    assert proc.returncode == 0, proc.stderr
    assert "probe: GGUF file" in proc.stderr
    res = livetab.evaluate(f"gguf:{gguf}", limit=3, model_args={"max_tokens": 16}, output=api_out)
    cli_rows = _samples(cli_out)
    assert len(cli_rows) == 3 and all(r["verdict"] and not r["error"] and r["completion_tokens"] for r in cli_rows)
    api_rows = res.samples.to_dict("records")
    key = ["question_id", "response", "extracted_answer", "verdict", "score"]
    assert [{k: r[k] for k in key} for r in cli_rows] == [{k: r[k] for k in key} for r in api_rows]
    assert _leaderboard(cli_out)["models"][0]["model"] == gguf.stem
    assert res.leaderboard["models"][0]["correct"] == _leaderboard(cli_out)["models"][0]["correct"]


@pytest.mark.model
def test_eval_against_llama_cpp_python_openai_server(cache: Path, tmp_path: Path) -> None:
    port = _closed_port()
    log = (tmp_path / "server.log").open("w")
    server = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(_gguf()), "--model_alias",
                               "smollm2", "--port", str(port), "--n_ctx", "4096", "--n_threads", "2"],
                              stdout=log, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}/v1"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(url + "/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        out = tmp_path / "out"
        proc = subprocess.run([str(LIVETAB), "eval", "--model", f"openai:{url}", "--model-name", "smollm2",
                               "--limit", "3", "--model-args", "max_tokens=16", "--output", str(out)],
                              capture_output=True, text=True, timeout=600,
                              env={**os.environ, "LIVETAB_CACHE": str(cache)})
        assert proc.returncode == 0, proc.stderr
        assert f"probe: {url} serves smollm2" in proc.stderr.replace("\n", "")
        rows = _samples(out)
        assert len(rows) == 3 and all(r["verdict"] and not r["error"] and r["response"] for r in rows)
        assert _leaderboard(out)["models"][0]["model"] == "smollm2"
        wrong = subprocess.run([str(LIVETAB), "eval", "--model", f"openai:{url}", "--model-name", "gpt-4",
                                "--output", str(tmp_path / "wrong")], capture_output=True, text=True, timeout=120)
        assert wrong.returncode == 2 and "does not serve a model named 'gpt-4'" in wrong.stderr
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


class _Recorder(http.server.BaseHTTPRequestHandler):
    """A pass-through proxy in front of the llama-cpp-python server that keeps every chat request body: what
    `livetab eval` sent, for the other program to send again."""

    upstream = ""
    bodies: list[dict] = []  # type: ignore[type-arg]

    def _forward(self, body: bytes | None) -> None:
        r = httpx.request(self.command, self.upstream + self.path, content=body, timeout=300,
                          headers={"Content-Type": self.headers.get("Content-Type", "application/json")})
        self.send_response(r.status_code)
        self.send_header("Content-Type", r.headers.get("content-type", "application/json"))
        self.send_header("Content-Length", str(len(r.content)))
        self.end_headers()
        self.wfile.write(r.content)

    def do_GET(self) -> None:
        self._forward(None)

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path.endswith("/chat/completions"):
            type(self).bodies.append(json.loads(body))
        self._forward(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.model
def test_score_of_predictions_made_with_the_openai_client_matches_eval(cache: Path, tmp_path: Path) -> None:
    """`livetab eval --model openai:URL` against llama-cpp-python's own server (through a recording proxy); then a
    different program, the `openai` Python client, sends the same chat requests to the same server and writes a
    predictions file; `livetab score` on it gives, for every response equal to eval's, eval's verdict."""
    import openai

    port = _closed_port()
    log = (tmp_path / "server.log").open("w")
    server = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(_gguf()), "--model_alias",
                               "smollm2", "--port", str(port), "--n_ctx", "4096", "--n_threads", "2"],
                              stdout=log, stderr=subprocess.STDOUT)
    proxy = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    try:
        upstream = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(upstream + "/v1/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        _Recorder.upstream, _Recorder.bodies = upstream, []
        threading.Thread(target=proxy.serve_forever, daemon=True).start()
        out = tmp_path / "eval"
        proc = subprocess.run([str(LIVETAB), "eval", "--model", f"openai:http://127.0.0.1:{proxy.server_address[1]}/v1",
                               "--model-name", "smollm2", "--limit", "4", "--model-args", "max_tokens=16,timeout_s=300",
                               "--concurrency", "1", "--output", str(out), "-q"],
                              capture_output=True, text=True, timeout=600, env={**os.environ, "LIVETAB_CACHE": str(cache)})
        assert proc.returncode == 0, proc.stderr
        evaluated = _samples(out)
        asked = list({json.dumps(b, sort_keys=True): b for b in _Recorder.bodies}.values())  # a retry sends it again
        assert len(evaluated) == 4 and len(asked) == 4
        # the other program: the openai client, the same requests, its own file
        client = openai.OpenAI(base_url=upstream + "/v1", api_key="unused")
        preds = tmp_path / "predictions.jsonl"
        with preds.open("w", encoding="utf-8") as f:
            for body in asked:
                # the sample whose rendered prompt is what was sent (chat mode: no completion text after the newline)
                sent = json.dumps(body["messages"], sort_keys=True, ensure_ascii=False) + "\n"
                (row,) = [r for r in evaluated if r["prompt_sha256"] == hashlib.sha256(sent.encode("utf-8")).hexdigest()]
                sampling = {k: body[k] for k in ("max_tokens", "temperature", "top_p", "seed") if body.get(k) is not None}
                reply = client.chat.completions.create(model="smollm2", messages=body["messages"], **sampling)
                f.write(json.dumps({"question_id": row["question_id"], "response": reply.choices[0].message.content,
                                    "model": "openai-client"}) + "\n")
        cfg = tmp_path / "score.yaml"
        cfg.write_text(f"out_dir: {tmp_path / 'scored'}\nstore:\n  url: sqlite:///{out / 'livetab.db'}\n")
        assert main(["score", "--config", str(cfg), "--release", "demo", str(preds)]) == 0
        scored = {r["question_id"]: r for r in _samples(tmp_path / "scored")}
        same = [r for r in evaluated if scored[r["question_id"]]["response"] == r["response"]]
        assert len(same) >= 3, [(r["response"], scored[r["question_id"]]["response"]) for r in evaluated]
        key = ["response", "extracted_answer", "verdict", "score"]
        assert [{k: scored[r["question_id"]][k] for k in key} for r in same] == [{k: r[k] for k in key} for r in same]
    finally:
        proxy.shutdown()
        server.terminate()
        server.wait(timeout=30)
        log.close()
