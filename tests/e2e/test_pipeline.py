"""One benchmark cycle through all six services as separate processes over Kafka and PostgreSQL, with
the real local model, checked against the same inputs run in embedded mode."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest
import yaml
from livetab.settings import load_settings
from livetab.store import open_store, schema
from livetab.v1 import inference_pb2
from livetab_cli.embedded import run_embedded

from tests.support.releases import publish_over_http
from tests.support.sample import sample_pages
from tests.support.services import start_services, stop_services
from tests.support.tokens import bearer

pytestmark = [pytest.mark.e2e, pytest.mark.kafka, pytest.mark.postgres, pytest.mark.model]
PAGES = ["203-733", "203-278", "203-831"]  # a cycling race, a golfer's results, a list of office holders


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _config(tmp: Path, store_url: str, kafka: str | None, out: str) -> Path:
    cfg = {
        "out_dir": out,
        "store": {"url": store_url},
        "kafka": {"bootstrap_servers": kafka or "127.0.0.1:9092", "session_timeout_ms": 6000,
                  "heartbeat_interval_ms": 1000, "max_poll_records": 20, "poll_timeout_ms": 300},
        "sources": [{"kind": "local_html", "location": str(tmp / "pages"), "language": "en"}],
        "guard": {"scrape_locations": {"pages": str(tmp / "pages")}},  # POST /scrapes names it, never a path
        "models": [{"name": "smollm2-135m", "backend": "llama_local", "n_ctx": 4096, "n_threads": 2}],
        "qagen": {"families": ["direct", "reasoning"], "per_table": 3},
        "run": {"team": "e2e", "release": "e2e", "max_tokens": 16, "temperature": 0.0, "seed": 7},
    }
    path = tmp / ("embedded.yaml" if kafka is None else "distributed.yaml")
    path.write_text(yaml.safe_dump(cfg))
    return path


def _answers(store) -> dict[str, tuple[str, str]]:
    out = {}
    for r in store.select(schema.results):
        res = inference_pb2.InferenceResult.FromString(r["payload"])
        out[res.id] = (res.question_id, res.response)
    return out


TIMING = re.compile(r"(_at|^generated|^created|latency|seconds|_ms|_s|per_s|per_second|tokens_per|duration|time)$|^time")


def _timeless(doc):
    """`doc` without timestamps and wall-clock measurements (latencies, throughput), which no two runs share."""
    if isinstance(doc, dict):
        return {k: _timeless(v) for k, v in doc.items() if not TIMING.search(k)}
    if isinstance(doc, list):
        return [_timeless(v) for v in doc]
    return doc


def _verdicts(store) -> dict[str, str]:
    return {j["request_id"]: j["verdict"] for j in store.select(schema.judgments)}


@pytest.mark.parametrize("store_url", ["postgresql"], indirect=True)
def test_six_services_over_kafka_match_embedded(tmp_path: Path, e2e_kafka: str, store_url: str) -> None:
    sample_pages(tmp_path / "pages", PAGES)

    # 1. embedded, on SQLite
    emb_settings = load_settings(_config(tmp_path, f"sqlite:///{tmp_path / 'emb.db'}", None, str(tmp_path / "emb")))
    summary = run_embedded(emb_settings)
    emb = open_store(emb_settings.store.url)
    emb_questions = {r["id"] for r in emb.select(schema.questions)}
    assert len(emb_questions) >= 6, "the sample pages should give questions"
    emb_answers, emb_verdicts = _answers(emb), _verdicts(emb)
    assert summary.model_answers == len(emb_questions)

    # 2. distributed: six processes over Kafka and PostgreSQL
    cfg = _config(tmp_path, store_url, e2e_kafka, str(tmp_path / "dist"))
    port = _free_port()
    procs: dict[str, subprocess.Popen] = {}
    logs = {}
    try:
        boot = open_store(store_url)  # the first admin token, as `livetab token create` makes it
        auth = bearer(boot, team="e2e")
        boot.close()
        http = httpx.Client(headers=auth, timeout=30)
        start_services(cfg, tmp_path, port, procs, logs)
        api = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 90
        while True:
            try:
                if httpx.get(f"{api}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, (tmp_path / "api.log").read_text()
            for svc, p in procs.items():
                assert p.poll() is None, f"{svc} exited: " + (tmp_path / f"{svc}.log").read_text()
            time.sleep(0.5)

        r = http.post(f"{api}/scrapes", json={"source": "local_html", "location": "pages", "release": "e2e"})
        assert r.status_code == 202, r.text
        deadline = time.monotonic() + 180
        while http.get(f"{api}/releases/e2e").json().get("questions", 0) < len(emb_questions):
            assert time.monotonic() < deadline, "questions did not arrive"
            time.sleep(1)
        time.sleep(2)  # let qagen finish the last table of the batch
        run_req = {"team": "e2e", "release": "e2e",
                   "model": {"name": "smollm2-135m", "backend": "llama_local", "n_ctx": 4096, "n_threads": 2},
                   "settings": {"max_tokens": 16, "temperature": 0.0, "seed": 7}}
        draft = http.post(f"{api}/runs", json=run_req)  # the release is still a draft: refused, with why
        assert draft.status_code == 409 and "draft" in draft.text, draft.text
        published = publish_over_http(api, "e2e", headers=auth, log=tmp_path / "api.log")  # runs are planned against a live release only
        assert published["frozen_questions"] == len(emb_questions)
        r = http.post(f"{api}/runs", json=run_req)
        assert r.status_code == 202, r.text
        rid = r.json()["run_id"]
        assert rid == summary.run_ids[0], "the same run settings must give the same run id in both modes"
        deadline = time.monotonic() + 600
        status = {}
        while time.monotonic() < deadline:
            resp = http.get(f"{api}/runs/{rid}")
            if resp.status_code == 200:
                status = resp.json()
                overall = [row for row in status["leaderboard"] if row["slice"] == "all"]
                if overall and overall[0]["n"] == status["planned"] == len(emb_questions):
                    break
            for svc, p in procs.items():
                assert p.poll() is None, f"{svc} exited: " + (tmp_path / f"{svc}.log").read_text()[-3000:]
            time.sleep(1)
        else:
            pytest.fail(f"leaderboard incomplete: {status}")
        overall = next(row for row in status["leaderboard"] if row["slice"] == "all")
        assert overall["n"] == len(emb_questions)
    finally:
        stop_services(procs, logs)

    dist = open_store(store_url)
    assert {r["id"] for r in dist.select(schema.questions)} == emb_questions
    assert _answers(dist) == emb_answers  # same backend, seed and temperature 0: the same text
    assert _verdicts(dist) == emb_verdicts
    for svc, p in procs.items():
        assert p.returncode == 0, f"{svc} did not drain cleanly on SIGTERM: " + (tmp_path / f"{svc}.log").read_text()[-2000:]

    # the reporter service wrote the report files itself (the run's and its release's), with the embedded scores
    def scores(folder: Path) -> list[tuple[str, int, int]]:
        doc = json.loads((folder / "leaderboard.json").read_text(encoding="utf-8"))
        return [(m["model"], m["n"], m["correct"]) for m in doc["models"]]

    emb_scores = scores(tmp_path / "emb")
    assert scores(tmp_path / "dist" / "runs" / rid) == scores(tmp_path / "dist") == emb_scores
    # the whole documents agree but for when they were made and how long calls took (wall-clock measurements)
    emb_doc = _timeless(json.loads((tmp_path / "emb" / "leaderboard.json").read_text(encoding="utf-8")))
    dist_doc = _timeless(json.loads((tmp_path / "dist" / "leaderboard.json").read_text(encoding="utf-8")))
    assert dist_doc == emb_doc
    for name in ("report.html", "leaderboard.md", "release/README.md", "release/results.jsonl",
                 "private/release/questions.jsonl"):
        assert (tmp_path / "dist" / name).is_file(), name
