"""Oracle and anti-oracle over Kafka and PostgreSQL: the six services as separate processes (`livetab serve`),
the scripted models served by the inference process. Same invariant as the embedded runs
(tests/integration/test_oracle_runs.py) on a smaller set: every family, both policies, two formats, both
settings, English and Arabic; the leaderboard is the one the reporter service computed. Insight answers are
judged by the claims the scripted models write (no LLM judge configured) and shown in the live leaderboard's
`insight` row: every insight of the oracle factual, every one of the anti-oracle not."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from livetab.settings import load_settings
from livetab.store import open_store, schema
from livetab.v1 import judgment_pb2
from livetab_cli.embedded import Pipeline

from tests.support.oracle import (
    ALL_FAMILIES,
    FAMILIES,
    INSIGHT,
    QAGEN_FAMILIES,
    SETTINGS,
    models,
    sources,
    verdict_cells,
)
from tests.support.releases import publish_over_http
from tests.support.services import start_services, stop_services
from tests.support.tokens import bearer

pytestmark = [pytest.mark.e2e, pytest.mark.kafka, pytest.mark.postgres]
PAGES = ["203-733", "203-278"]
FORMATS = ["markdown", "json"]
RELEASE = "oracle-kafka"
SERVICES = ("api", "scraper", "qagen", "inference", "judge", "reporter")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _config(path: Path, store_url: str, kafka: str, srcs: list[dict[str, Any]]) -> Path:
    cfg = {"out_dir": str(path.parent / "out"), "store": {"url": store_url},
           "kafka": {"bootstrap_servers": kafka, "session_timeout_ms": 6000, "heartbeat_interval_ms": 1000,
                     "max_poll_records": 50, "poll_timeout_ms": 300},
           "sources": srcs, "models": models("rotate"),
           "guard": {"scrape_locations": {s["kind"]: s["location"] for s in srcs}},  # POST /scrapes names them
           "qagen": {"families": QAGEN_FAMILIES, "per_table": 6},
           "reporter": {"refresh_s": 1.0},
           "run": {"release": RELEASE, "formats": FORMATS, "settings": SETTINGS}}
    path.write_text(yaml.safe_dump(cfg))
    return path


def _alive(procs: dict[str, subprocess.Popen[bytes]], logs: Path) -> None:
    for svc, p in procs.items():
        assert p.poll() is None, f"{svc} exited: " + (logs / f"{svc}.log").read_text()[-3000:]


@pytest.mark.parametrize("store_url", ["postgresql"], indirect=True)
def test_oracle_100_and_anti_oracle_0_over_kafka(tmp_path: Path, e2e_kafka: str, store_url: str) -> None:
    t0 = time.perf_counter()
    srcs = sources(tmp_path, PAGES, n_arabic=1, n_math=1)
    # the questions to expect: the same generation, embedded on SQLite (ids are content hashes)
    emb = Pipeline(load_settings(_config(tmp_path / "emb.yaml", f"sqlite:///{tmp_path / 'emb.db'}", e2e_kafka, srcs),
                                 env={}))
    emb.generate()
    expected = {r["id"] for r in emb.store.select(schema.questions)}
    emb.close()
    assert len(expected) >= 15

    cfg = _config(tmp_path / "dist.yaml", store_url, e2e_kafka, srcs)
    port = _free_port()
    procs: dict[str, subprocess.Popen[bytes]] = {}
    logs = {}
    runs: dict[str, str] = {}
    status: dict[str, dict[str, Any]] = {}
    try:
        boot = open_store(store_url)  # the first admin token, as `livetab token create` makes it
        auth = bearer(boot, team="oracle")
        boot.close()
        http = httpx.Client(headers=auth, timeout=30)
        start_services(cfg, tmp_path, port, procs, logs)
        api = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{api}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "api did not start"
            _alive(procs, tmp_path)
            time.sleep(0.5)

        for s in srcs:
            r = http.post(f"{api}/scrapes", json={"source": s["kind"], "location": s["kind"], "release": RELEASE,
                                                   "language": s.get("language", "en"),
                                                   "options": s.get("options", {})})  # as the embedded run reads
            assert r.status_code == 202, r.text
        deadline = time.monotonic() + 180
        while http.get(f"{api}/releases/{RELEASE}").json().get("questions", 0) < len(expected):
            assert time.monotonic() < deadline, "questions did not arrive"
            _alive(procs, tmp_path)
            time.sleep(0.5)
        early = http.post(f"{api}/runs", json={"team": "oracle", "release": RELEASE, "model": models("rotate")[0]})
        assert early.status_code == 409 and "is a draft" in early.text, early.text  # refused with its reason
        publish_over_http(api, RELEASE, headers=auth, log=tmp_path / "api.log")

        for m in models("rotate"):
            r = http.post(f"{api}/runs", json={"team": "oracle", "release": RELEASE, "model": m,
                                                # three samples: each question's are one call (n = 3)
                                                "settings": {"formats": FORMATS, "settings": SETTINGS, "samples": 3}})
            assert r.status_code == 202, r.text
            runs[m["name"]] = r.json()["run_id"]
        deadline = time.monotonic() + 240
        watch = open_store(store_url)
        try:
            while len(status) < len(runs):
                for name, rid in runs.items():
                    resp = http.get(f"{api}/runs/{rid}")
                    if resp.status_code != 200 or not 0 < resp.json()["planned"] == resp.json()["judged"]:
                        continue
                    # every answer judged: the reporter's rows are complete when "all" counts the QA answers
                    # and the insight row every insight of the insight answers
                    st = resp.json()
                    insight = watch.select(schema.judgments, run_id=rid, family=INSIGHT)
                    n_labels = sum(len(judgment_pb2.Judgment.FromString(r["payload"]).insights) for r in insight)
                    rows = {row["slice"]: row for row in st["leaderboard"]}
                    if (rows.get("all", {}).get("n") == st["planned"] - len(insight) > 0
                            and rows.get(INSIGHT, {}).get("n") == n_labels > 0):
                        status[name] = st
                assert time.monotonic() < deadline, f"leaderboards incomplete: {status}"
                _alive(procs, tmp_path)
                time.sleep(0.5)
        finally:
            watch.close()
    finally:
        stop_services(procs, logs)

    store = open_store(store_url)
    try:
        assert {r["id"] for r in store.select(schema.questions)} == expected
        for name, want, verdict in (("oracle", 1.0, "correct"), ("anti-oracle", 0.0, "incorrect")):
            rows = {row["slice"]: row for row in status[name]["leaderboard"]}
            assert all(row["accuracy"] == want and row["n"] > 0 for row in rows.values()), (name, rows)
            want_slices = {f"family={f}" for f in FAMILIES} | {f"format={f}" for f in FORMATS} | {
                f"setting={s}" for s in SETTINGS} | {"language=en", "language=ar", INSIGHT}
            assert want_slices <= set(rows), (name, want_slices - set(rows))
            cells = verdict_cells(store, runs[name])
            n_insight = sum(len(v) for c, v in cells.items() if c[0] == INSIGHT)
            assert sum(len(v) for v in cells.values()) == rows["all"]["n"] + n_insight == status[name]["planned"]
            assert all(set(v) == {verdict} for v in cells.values()), (name, cells)
            for fam in ALL_FAMILIES - {"math"}:
                assert any(c[0] == fam and c[3] == "ar" for c in cells), (name, fam)
            # the insight row: every insight decided by its claim, all factual (oracle) or none (anti-oracle)
            labels = [lab for r in store.select(schema.judgments, run_id=runs[name], family=INSIGHT)
                      for lab in judgment_pb2.Judgment.FromString(r["payload"]).insights]
            assert labels and {(lab.label, lab.decided_by) for lab in labels} == {
                ("factual" if want else "not_factual", "claim")}, (name, labels[:3])
            assert rows[INSIGHT]["n"] == len(labels) and rows[INSIGHT]["correct"] == want * len(labels)
        print(f"\noracle over Kafka: {len(expected)} questions, {status['oracle']['planned']} requests per model, "
              f"{time.perf_counter() - t0:.1f} s")
    finally:
        store.close()
    for svc, p in procs.items():
        assert p.returncode == 0, f"{svc} did not drain cleanly: " + (tmp_path / f"{svc}.log").read_text()[-2000:]
