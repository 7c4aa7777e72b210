"""The fault-injection suite: the distributed pipeline (real Kafka, real PostgreSQL, the six services as
separate processes) answering a run of many inference requests against a fast local model endpoint (the
fault server) while it is hurt on purpose:

- a SIGKILL of a worker of every service, several rounds (each restarted at once, as an orchestrator would);
- a SIGKILL of the Kafka broker, restarted on the same ports and log directory;
- the model endpoint slow, then failing (HTTP 500), then healthy again;
- poison records on every consumed topic: garbage bytes, a record whose header names another message type,
  a well-formed frame (livetab.v1.Frame) holding one message of each of those kinds (each dead-lettered alone,
  by its index in the frame), and valid messages with impossible content (a run of 10**9 samples, a scrape into a release with a NUL).

Then it asserts the invariants: every planned request answered (or failed with a recorded reason); no
duplicate rows (one result and one judgment per request); every judgment counted once on the leaderboard;
every poison record in the stored dead letters; and the verdicts and leaderboard identical to a fault-free
(embedded) run of the same inputs, for every request whose call did not fail. It prints the counts.

The bounded form (`make test`): ~250 requests, one kill round. The long form (`make chaos`):
LIVETAB_CHAOS_REQUESTS=2000 LIVETAB_CHAOS_ROUNDS=3.
"""

from __future__ import annotations

import json
import math
import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from kafka import KafkaProducer
from livetab import topics
from livetab.bus.base import H_ID, H_PRODUCED, H_TYPE
from livetab.bus.frames import FrameBuffer
from livetab.models.spec import model_spec
from livetab.runs import build_run
from livetab.settings import ModelSettings, load_settings
from livetab.store import open_store, schema
from livetab.topics import SERVICES
from livetab.v1 import inference_pb2, table_pb2
from livetab_cli.embedded import run_embedded

from tests.fakes.fault_server import Scenario, ThreadedFaultServer
from tests.support.deploy import deploy_up
from tests.support.releases import publish_over_http
from tests.support.sample import sample_pages
from tests.support.services import start_services, stop_services
from tests.support.tokens import bearer

pytestmark = [pytest.mark.chaos, pytest.mark.e2e, pytest.mark.kafka, pytest.mark.postgres]
ROOT = Path(__file__).resolve().parents[2]
REQUESTS = int(os.environ.get("LIVETAB_CHAOS_REQUESTS", "250"))
# three pages give ~9 questions (enough for the bounded form at <= 64 samples each); the long form takes all
# the bundled sample pages, so that 2,000 requests are many questions times a few dozen samples
SAMPLE = ROOT / "deploy" / "sample" / "wiki"
PAGES = (["203-733", "203-278", "203-831"] if REQUESTS <= 400 else sorted(p.stem for p in SAMPLE.glob("*.html")))
ROUNDS = int(os.environ.get("LIVETAB_CHAOS_ROUNDS", "1"))
SEED = int(os.environ.get("LIVETAB_CHAOS_SEED", "16"))
PG_STOP_S = float(os.environ.get("LIVETAB_CHAOS_PG_STOP_S", "0"))  # make chaos: 20 (the session's own server)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _config(tmp: Path, store_url: str, kafka: str | None, out: str, model_url: str, samples: int) -> Path:
    cfg = {
        "out_dir": out,
        "store": {"url": store_url},
        "kafka": {"bootstrap_servers": kafka or "127.0.0.1:9092", "session_timeout_ms": 6000,
                  "heartbeat_interval_ms": 1000, "max_poll_records": 50, "poll_timeout_ms": 300},
        "sources": [{"kind": "local_html", "location": str(tmp / "pages"), "language": "en"}],
        "guard": {"scrape_locations": {"pages": str(tmp / "pages")}},  # POST /scrapes names it, never a path
        "models": [_model(model_url)],
        "qagen": {"families": ["direct", "reasoning"], "per_table": 3},
        "run": {"team": "chaos", "release": "chaos", "max_tokens": 16, "temperature": 0.0, "seed": 7,
                "samples": samples},
    }
    path = tmp / ("embedded.yaml" if kafka is None else "distributed.yaml")
    path.write_text(yaml.safe_dump(cfg))
    return path


def _model(url: str) -> dict[str, Any]:
    return {"name": "fake", "backend": "openai", "base_url": url, "model": "fake-model"}


def _verdicts(store: Any) -> dict[str, str]:
    return {j["request_id"]: j["verdict"] for j in store.select(schema.judgments)}


def _results(store: Any) -> dict[str, inference_pb2.InferenceResult]:
    return {r["id"]: inference_pb2.InferenceResult.FromString(r["payload"]) for r in store.select(schema.results)}


class Broker:
    """The test's own broker (deploy/kafka.sh), which it can SIGKILL and start again on the same ports."""

    def __init__(self, state: Path) -> None:
        self.state = state
        self.script = str(ROOT / "deploy" / "kafka.sh")
        self.bootstrap = deploy_up("kafka.sh", state)

    def restart(self) -> float:
        pid = int((self.state / "pid").read_text())
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[:-1]
        cwd = os.readlink(f"/proc/{pid}/cwd")
        os.kill(pid, signal.SIGKILL)
        while Path(f"/proc/{pid}").exists():
            time.sleep(0.05)
        t0 = time.monotonic()
        log = open(self.state / "restart.log", "ab")
        p = subprocess.Popen([c.decode() for c in cmd], cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True)
        (self.state / "pid").write_text(str(p.pid))
        host, port = self.bootstrap.split(":")
        while True:
            try:
                socket.create_connection((host, int(port)), timeout=1).close()
                return time.monotonic() - t0
            except OSError:
                assert time.monotonic() - t0 < 120, "the broker did not come back"
                time.sleep(0.2)

    def down(self) -> None:
        subprocess.run([self.script, "down", str(self.state)], check=False, timeout=60)


def _stop_postgres(seconds: float) -> float:
    """Stop the session's PostgreSQL server (deploy/postgres.sh's cluster; `-m immediate`, as a crash) for
    `seconds`, then start it again on the same port; returns how long it was down."""
    state = ROOT / ".state" / f"test-{os.getpid()}" / "postgres"
    binary = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))[-1]
    owner = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
    port = (state / "port").read_text().strip()
    t0 = time.monotonic()
    subprocess.run([*owner, str(binary), "-D", str(state / "data"), "-m", "immediate", "stop"], check=True,
                   capture_output=True, timeout=60)
    time.sleep(seconds)
    opts = f"-p {port} -k {state} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off " \
           "-c max_connections=200"
    subprocess.run([*owner, str(binary), "-D", str(state / "data"), "-l", str(state / "server.log"), "-w", "-t", "60",
                    "-o", opts, "start"], check=True, capture_output=True, timeout=90)
    return time.monotonic() - t0


def _poison(bootstrap: str, tag: str) -> list[str]:
    """Poison records on every consumed topic; their positions (`topic:partition:offset`, and `:index` for a
    message of a frame), as their dead letters' ids end."""
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    sent = []

    def send(topic: str, value: bytes, headers: dict[str, str]) -> None:
        meta = producer.send(topic, value=value, key=tag.encode(),
                             headers=[(k, v.encode()) for k, v in headers.items()]).get(timeout=30)
        sent.append(f"{topic}:{meta.partition}:{meta.offset}")

    def send_frame(topic: str, messages: list[tuple[bytes, dict[str, str]]]) -> None:
        """A well-formed frame whose messages are each poison: each dead-lettered alone, by its index."""
        frame = FrameBuffer()
        for value, headers in messages:
            frame.add(tag.encode(), value, headers)
        value, headers = frame.take()
        meta = producer.send(topic, value=value, key=tag.encode(), headers=headers).get(timeout=30)
        sent.extend(f"{topic}:{meta.partition}:{meta.offset}:{i}" for i in range(len(messages)))

    consumed = [t for t in topics.TOPICS if t.consumer]
    for i, t in enumerate(consumed):
        other = consumed[(i + 1) % len(consumed)]
        now = str(time.time_ns() // 1_000_000)
        send(t.name, b"\xff\x00garbage " + os.urandom(32), {H_TYPE: t.message_type, H_ID: f"{tag}-g-{i}",
                                                          H_PRODUCED: now})
        send(t.name, other.message().SerializeToString(), {H_TYPE: other.message_type, H_ID: f"{tag}-w-{i}",
                                                            H_PRODUCED: now})
        send_frame(t.name, [(b"\xff\x00garbage " + os.urandom(32), {H_TYPE: t.message_type, H_ID: f"{tag}-fg-{i}",
                                                                     H_PRODUCED: now}),
                            (other.message().SerializeToString(), {H_TYPE: other.message_type,
                                                                   H_ID: f"{tag}-fw-{i}", H_PRODUCED: now})])
    # valid messages whose content cannot be (a run too big to plan, a release name PostgreSQL refuses)
    huge = build_run("chaos", "chaos", model_spec(ModelSettings(name=f"huge-{tag}")), samples=10**9)
    send("livetab.runs.v1", huge.SerializeToString(),
         {H_TYPE: huge.DESCRIPTOR.full_name, H_ID: f"{tag}-huge", H_PRODUCED: str(time.time_ns() // 1_000_000)})
    cmd = table_pb2.ScrapeCommand(id=f"scrape-{tag}", source="local_html", location="/nonexistent",
                                  release="bad\x00release")
    send("livetab.scrapes.v1", cmd.SerializeToString(),
         {H_TYPE: cmd.DESCRIPTOR.full_name, H_ID: f"{tag}-nul", H_PRODUCED: str(time.time_ns() // 1_000_000)})
    producer.close()
    return sent


@pytest.mark.parametrize("store_url", ["postgresql"], indirect=True)
def test_the_pipeline_survives_kills_a_broker_restart_a_failing_model_and_poison(tmp_path: Path,
                                                                                  store_url: str) -> None:
    rng = random.Random(SEED)
    sample_pages(tmp_path / "pages", PAGES)
    server = ThreadedFaultServer()
    server.__enter__()
    broker = Broker(tmp_path / "kafka")
    procs: dict[str, subprocess.Popen[Any]] = {}
    logs: dict[str, Any] = {}
    counts: dict[str, Any] = {"kills": {}, "broker_restarts": 0}
    try:
        url = server.set("model", Scenario())
        # the number of questions decides the samples: a fault-free embedded run first (it is the reference)
        probe = load_settings(_config(tmp_path, f"sqlite:///{tmp_path / 'probe.db'}", None, str(tmp_path / "probe"),
                                      url, 1))
        run_embedded(probe)
        n_questions = open_store(probe.store.url).count(schema.questions)
        samples = max(1, min(64, math.ceil(REQUESTS / n_questions)))
        ref_settings = load_settings(_config(tmp_path, f"sqlite:///{tmp_path / 'ref.db'}", None,
                                             str(tmp_path / "ref"), url, samples))
        reference = run_embedded(ref_settings)
        ref = open_store(ref_settings.store.url)
        ref_verdicts = _verdicts(ref)
        planned = len(ref_verdicts)
        assert planned == n_questions * samples and planned >= REQUESTS

        cfg = _config(tmp_path, store_url, broker.bootstrap, str(tmp_path / "dist"), url, samples)
        port = _free_port()
        api = f"http://127.0.0.1:{port}"
        sup = Supervisor(cfg, tmp_path, port, procs, logs)
        start_services(cfg, tmp_path, port, procs, logs)
        _wait_healthy(api, sup)
        auth = bearer(open_store(store_url), team="chaos", role="admin")  # the api takes tokens (livetab token create)
        r = httpx.post(f"{api}/scrapes", json={"source": "local_html", "location": "pages", "release": "chaos"},
                       headers=auth)
        assert r.status_code == 202, r.text
        deadline = time.monotonic() + 180
        while httpx.get(f"{api}/releases/chaos", headers=auth).json().get("questions", 0) < n_questions:
            assert time.monotonic() < deadline, "questions did not arrive"
            time.sleep(1)
        assert publish_over_http(api, "chaos", headers=auth, log=tmp_path / "api.log")["frozen_questions"] == n_questions
        server.set("model", Scenario(mode="latency", latency_ms=40))  # slow
        run_req = {"team": "chaos", "release": "chaos", "model": _model(url),
                   "settings": {"max_tokens": 16, "temperature": 0.0, "seed": 7, "samples": samples}}
        r = httpx.post(f"{api}/runs", json=run_req, headers=auth)
        assert r.status_code == 202, r.text
        rid = r.json()["run_id"]
        assert rid == reference.run_ids[0], "the same inputs give the same run id"
        poison = _poison(broker.bootstrap, f"chaos-{SEED}")

        def restart(svc: str) -> None:
            procs[svc].send_signal(signal.SIGKILL)
            procs[svc].wait(30)
            sup.start(svc)
            counts["kills"][svc] = counts["kills"].get(svc, 0) + 1

        t0 = time.monotonic()
        for round_ in range(ROUNDS):
            for svc in rng.sample(list(SERVICES), len(SERVICES)):
                time.sleep(rng.uniform(0.5, 2.0))
                sup.check()
                restart(svc)
            if round_ == 0:
                server.set("model", Scenario(mode="500"))  # failing, while requests flow
                time.sleep(3)
                server.set("model", Scenario())  # healthy again
                counts["broker_restart_s"] = round(broker.restart(), 1)
                counts["broker_restarts"] += 1
                if PG_STOP_S and not os.environ.get("LIVETAB_TEST_POSTGRES"):
                    sup.check()
                    counts["postgres_down_s"] = round(_stop_postgres(PG_STOP_S), 1)
        _wait_healthy(api, sup)
        status = _wait_complete(api, rid, sup, planned, auth)
        counts["orchestrator_restarts"] = sup.restarts
        counts["exits"] = sup.exits
        counts["seconds_under_faults"] = round(time.monotonic() - t0, 1)
    finally:
        stop_services(procs, logs)
        broker.down()
        server.__exit__(None, None, None)

    dist = open_store(store_url)
    results = _results(dist)
    verdicts = _verdicts(dist)
    failed = {k: r.error for k, r in results.items() if r.error}
    letters = {d["id"].split("|", 1)[1]: d for d in dist.select(schema.dead_letters)}  # by position
    counts |= {"planned": planned, "results": len(results), "failed_calls": len(failed), "judgments": len(verdicts),
               "poison_sent": len(poison), "poison_stored": sum(p in letters for p in poison),
               "dead_letters": len(letters), "status": status["status"]}
    print("chaos counts:", json.dumps(counts, sort_keys=True))
    # every request answered or failed with a recorded reason, once
    assert set(results) == set(ref_verdicts) and all(failed.values())
    assert dist.count(schema.results) == planned and dist.count(schema.judgments) == planned  # no duplicates
    assert status["complete"] and status["judged"] == planned
    # every judgment counted once on the leaderboard
    overall = next(row for row in status["leaderboard"] if row["slice"] == "all")
    assert overall["n"] == planned
    # every poison record in the stored dead letters, with its reason
    missing = [p for p in poison if p not in letters]
    assert not missing, f"poison records not stored as dead letters: {missing}"
    assert all(letters[p]["error"] for p in poison)
    # the same verdicts as the fault-free run wherever the call did not fail; the same leaderboard if none did
    assert {k: v for k, v in verdicts.items() if k not in failed} == \
           {k: v for k, v in ref_verdicts.items() if k not in failed}
    assert all(verdicts[k] == "error" for k in failed)
    if not failed:
        ref_board = json.loads((tmp_path / "ref" / "leaderboard.json").read_text(encoding="utf-8"))
        board = json.loads((tmp_path / "dist" / "runs" / rid / "leaderboard.json").read_text(encoding="utf-8"))
        assert [(m["model"], m["n"], m["correct"]) for m in board["models"]] == \
               [(m["model"], m["n"], m["correct"]) for m in ref_board["models"]]


@pytest.mark.parametrize("store_url", ["postgresql"], indirect=True)
def test_calls_that_finally_fail_end_as_failed_runs_with_their_reasons(tmp_path: Path, store_url: str) -> None:
    """The model endpoint of one model fails for good (HTTP 500 on every call, never healthy again) while
    another model's endpoint answers, both runs on one release through the six service processes: every request
    of the broken model ends as a result *failed with its reason* (retries and the circuit breaker spent), which
    GET /runs/{id} shows counted by reason; both runs reach complete; one result and one judgment per request;
    each judgment counted once on the leaderboard. Bounded: two pages, two samples, about 30 s."""
    sample_pages(tmp_path / "pages", PAGES[:2])
    server = ThreadedFaultServer()
    server.__enter__()
    broker = Broker(tmp_path / "kafka")
    procs: dict[str, subprocess.Popen[Any]] = {}
    logs: dict[str, Any] = {}
    try:
        good_url = server.set("good", Scenario())
        broken_url = server.set("broken", Scenario(mode="500"))
        cfg = _config(tmp_path, store_url, broker.bootstrap, str(tmp_path / "dist"), good_url, 2)
        port = _free_port()
        api = f"http://127.0.0.1:{port}"
        sup = Supervisor(cfg, tmp_path, port, procs, logs)
        t0 = time.monotonic()
        start_services(cfg, tmp_path, port, procs, logs)
        _wait_healthy(api, sup)
        auth = bearer(open_store(store_url), team="chaos", role="admin")
        r = httpx.post(f"{api}/scrapes", json={"source": "local_html", "location": "pages", "release": "chaos"},
                       headers=auth)
        assert r.status_code == 202, r.text
        deadline, seen = time.monotonic() + 180, [0]
        while not (seen[-1] > 0 and seen[-4:] == [seen[-1]] * 4):  # the scrape's questions stopped arriving
            assert time.monotonic() < deadline, "questions did not arrive"
            time.sleep(1)
            seen.append(httpx.get(f"{api}/releases/chaos", headers=auth).json().get("questions", 0))
        frozen = publish_over_http(api, "chaos", headers=auth, log=tmp_path / "api.log")["frozen_questions"]
        assert frozen == seen[-1]
        settings = {"max_tokens": 16, "temperature": 0.0, "seed": 7, "samples": 2}
        rids = {}
        for name, url in (("good", good_url), ("broken", broken_url)):
            model = {**_model(url), "name": name}
            r = httpx.post(f"{api}/runs", json={"team": "chaos", "release": "chaos", "model": model,
                                                "settings": settings}, headers=auth)
            assert r.status_code == 202, r.text
            rids[name] = r.json()["run_id"]
        planned = frozen * 2
        good = _wait_complete(api, rids["good"], sup, planned, auth)
        broken = _wait_complete(api, rids["broken"], sup, planned, auth)
        seconds = round(time.monotonic() - t0, 1)
    finally:
        stop_services(procs, logs)
        broker.down()
        server.__exit__(None, None, None)

    dist = open_store(store_url)
    failures = {f["reason"]: f["count"] for f in broken["failures"] if f["stage"] == "inference"}
    print("chaos failing-model counts:", json.dumps({
        "planned": planned, "seconds": seconds, "calls_to_broken_endpoint": server.count("broken"),
        "good": {k: good[k] for k in ("status", "answered", "failed", "judged")},
        "broken": {k: broken[k] for k in ("status", "answered", "failed", "judged")},
        "broken_reasons": failures}, sort_keys=True))
    # the broken model's requests: every one failed with a recorded reason, shown by reason on the run
    assert broken["status"] == "complete" and broken["complete"] is True
    assert (broken["planned"], broken["answered"], broken["failed"], broken["dead_lettered"]) == \
           (planned, planned, planned, 0)
    assert sum(failures.values()) == planned and all(reason.strip() for reason in failures)
    assert any("500" in reason for reason in failures), failures  # the endpoint's own answer is in the reason
    assert len(failures) <= 4, failures  # a few causes, a few reasons: counted by reason, not one line per request
    assert server.count("broken") >= 1  # the calls were made (and retried), not skipped
    results = dist.select(schema.results, run_id=rids["broken"])
    assert len(results) == planned and all(r["error"] for r in results)
    # the healthy model beside it is unaffected
    assert (good["status"], good["answered"], good["failed"]) == ("complete", planned, 0)
    for name, status in (("good", good), ("broken", broken)):
        rid = rids[name]
        # nothing duplicated: one result and one judgment per planned request
        ids = [r["id"] for r in dist.select(schema.results, run_id=rid)]
        assert len(ids) == len(set(ids)) == planned
        judged = dist.select(schema.judgments, run_id=rid)
        assert len(judged) == len({j["request_id"] for j in judged}) == planned == status["judged"]
        # nothing counted twice: the leaderboard counts each judgment once
        overall = next(row for row in status["leaderboard"] if row["slice"] == "all")
        assert overall["n"] == planned
    assert {j["verdict"] for j in dist.select(schema.judgments, run_id=rids["broken"])} == {"error"}
    assert next(row for row in broken["leaderboard"] if row["slice"] == "all")["correct"] == 0


def _wait_healthy(api: str, sup: Supervisor) -> None:
    deadline = time.monotonic() + 120
    while True:
        try:
            if httpx.get(f"{api}/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, (sup.folder / "api.log").read_text()[-3000:]
        sup.check()
        time.sleep(0.5)


class Supervisor:
    """What an orchestrator does: a service process that exited (a worker that died, a broker it could not
    reach at start) is started again; how often is counted."""

    def __init__(self, cfg: Path, folder: Path, port: int, procs: dict[str, subprocess.Popen[Any]],
                 logs: dict[str, Any]) -> None:
        self.cfg, self.folder, self.port, self.procs, self.logs = cfg, folder, port, procs, logs
        self.restarts: dict[str, int] = {}
        self.exits: list[str] = []

    def start(self, svc: str) -> None:
        if svc in self.logs:
            self.logs[svc].close()
            with open(self.folder / f"{svc}.log", encoding="utf-8", errors="replace") as f:
                (self.folder / f"{svc}.log.{sum(self.restarts.values())}").write_text(f.read())
        start_services(self.cfg, self.folder, self.port, self.procs, self.logs, services=[svc])

    def check(self) -> None:
        for svc, p in list(self.procs.items()):
            if p.poll() is not None:
                tail = (self.folder / f"{svc}.log").read_text(errors="replace").strip().splitlines()[-1:] or [""]
                self.exits.append(f"{svc} rc={p.returncode}: {tail[0][:160]}")
                self.restarts[svc] = self.restarts.get(svc, 0) + 1
                assert sum(self.restarts.values()) < 60, f"services keep exiting: {self.exits[-10:]}"
                self.start(svc)


def _wait_complete(api: str, rid: str, sup: Supervisor, planned: int, auth: dict[str, str]) -> dict[str, Any]:
    deadline = time.monotonic() + 300 + planned / 10
    status: dict[str, Any] = {}
    while time.monotonic() < deadline:
        try:
            resp = httpx.get(f"{api}/runs/{rid}", timeout=5, headers=auth)
            if resp.status_code == 200:
                status = resp.json()
                overall = [row for row in status["leaderboard"] if row["slice"] == "all"]
                if status.get("complete") and overall and overall[0]["n"] == planned == status["planned"]:
                    return status
        except httpx.HTTPError:
            pass
        sup.check()
        time.sleep(1)
    pytest.fail(f"the run did not complete: {status}")
    raise AssertionError  # unreachable


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-s", "-m", "chaos"]))
