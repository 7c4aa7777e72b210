"""Inference throughput: the inference service's own request path (the in-flight worker and the inference
handler over the in-process bus and a SQLite store: store reads, prompt, response cache, the OpenAI
backend's call, stored and published result) against an ideal plain asyncio + aiohttp
loop and EleutherAI lm-evaluation-harness's `local-chat-completions` model, side by side in one run.

The server is tests/fakes/fault_server.py in fixed-latency mode (100 ms per answer) in its own process, so
at concurrency 64 the ceiling is 640 requests/s. Each contender runs in a fresh process of its own (the
lm-eval one in its own virtual environment, since lm-eval's dependencies pin packages livetab pins
differently) for up to N requests or T seconds; rounds alternate the contenders so that load from
elsewhere on the machine hits them alike. Also measured: peak memory of the service path with 100k requests
queued upstream (backpressure), against gathering all of them at once.

    python -m bench inference            # or: python bench/inference.py [--requests 2000 --rounds 3]

Module-level imports are the standard library only: the same file is the lm-eval contender's script.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["main"]

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[1]
LMEVAL_VENV = ROOT / ".state" / "venv-lmeval"
LMEVAL_REQUIREMENT = "lm-eval[api]==0.4.13"
SYSTEM = "You are a careful assistant that answers questions about tables."


def _messages(i: int) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Question {i}: how many rows does the table have? Answer:"}]


def _cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# ---- contenders (each runs in its own process and prints one JSON line) ----

def _service_path(store_dir: str) -> Any:
    """Imports for the contenders that run the inference service's own code (ROOT on the path: this file
    also runs as a script)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from livetab.store import open_store

    return open_store(f"sqlite:///{Path(store_dir) / 'bench.db'}")


def _contender_livetab(url: str, n: int, concurrency: int, max_s: float) -> dict[str, Any]:
    """The inference service's own code path in one process: the requests of a run on the in-process bus,
    the in-flight worker (max_in_flight = concurrency) running the inference handler (store reads, prompt,
    response cache, the OpenAI backend's call, stored result, published result) against the server."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="livetab-bench-inference-") as tmp:
        store = _service_path(tmp)
        from livetab.bus import HandlerContext, InProcBus, Outgoing
        from livetab.bus.inflight import InFlightWorker
        from livetab.runs import build_run
        from livetab.topics import requests_topic
        from livetab.v1 import common_pb2, inference_pb2
        from livetab_api.planner import plan_requests
        from livetab_inference.handler import TOPIC_OUT, InferenceHandler

        from bench.inference_service import seed_release

        release = "benchinference"
        seed_release(store, release, n)
        spec = common_pb2.ModelSpec(name="bench", backend="openai", base_url=url, model="bench",
                                    params={"concurrency": str(concurrency), "timeout_s": "30"})
        run = build_run("bench", release, spec, max_tokens=16, temperature=0.0, seed=1)
        bus = InProcBus()
        for r in plan_requests(run, store):
            bus.publish(Outgoing(requests_topic(""), r, key=r.question_id, message_id=r.id))
        handler = InferenceHandler(timeout_s=30)
        worker = InFlightWorker(handler, bus, HandlerContext(store=store, settings=None), max_in_flight=concurrency,
                                poll_timeout_s=0.2)
        t0, cpu0 = time.perf_counter(), _cpu_s()
        worker.run(until_idle=True, max_seconds=max_s)
        seconds, cpu = time.perf_counter() - t0, _cpu_s() - cpu0
        results = [inference_pb2.InferenceResult.FromString(r.value) for r in bus.records(TOPIC_OUT)]
        store.close()
    ok = sum(1 for r in results if not r.error)
    stats = handler.stats["bench"].to_dict()  # the calls as the service counts them (livetab_inference.calls)
    return {"ok": ok, "failed": len(results) - ok, "seconds": seconds, "cpu_s": cpu,
            "latency_p50_ms": stats["latency_p50_ms"], "latency_p99_ms": stats["latency_p99_ms"],
            "errors": stats["errors"]}


async def _contender_aiohttp(url: str, n: int, concurrency: int, max_s: float) -> dict[str, Any]:
    import aiohttp

    deadline = time.perf_counter() + max_s
    next_i = 0
    ok = failed = 0
    endpoint = url.rstrip("/") + "/chat/completions"
    headers = {"Content-Type": "application/json"}

    async def worker(session: aiohttp.ClientSession) -> None:
        nonlocal next_i, ok, failed
        while next_i < n and time.perf_counter() < deadline:
            i = next_i
            next_i += 1
            body = json.dumps({"model": "bench", "messages": _messages(i), "temperature": 0.0, "top_p": 1.0,
                               "max_tokens": 16, "seed": i}).encode()
            try:
                async with session.post(endpoint, data=body, headers=headers) as resp:
                    data = json.loads(await resp.read())
                if resp.status == 200 and data["choices"][0]["message"]["content"]:
                    ok += 1
                else:
                    failed += 1
            except (aiohttp.ClientError, ValueError, KeyError):
                failed += 1

    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=30)) as session:
        t0, cpu0 = time.perf_counter(), _cpu_s()
        await asyncio.gather(*(worker(session) for _ in range(concurrency)))
        seconds, cpu = time.perf_counter() - t0, _cpu_s() - cpu0
    return {"ok": ok, "failed": failed, "seconds": seconds, "cpu_s": cpu}


def _contender_lmeval(url: str, n: int, concurrency: int, max_s: float) -> dict[str, Any]:
    import lm_eval
    from lm_eval.api.instance import Instance
    from lm_eval.models.api_models import JsonChatStr
    from lm_eval.models.openai_completions import LocalChatCompletion

    # lm-eval takes a fixed list (no time limit of its own): size it from the 640/s ceiling and max_s.
    n = min(n, int(640 * max_s))
    lm = LocalChatCompletion(base_url=url.rstrip("/") + "/chat/completions", model="bench",
                             num_concurrent=concurrency, max_retries=3, tokenized_requests=False,
                             tokenizer_backend=None, timeout=30)
    # One gen_kwargs for all: lm-eval runs each distinct gen_kwargs group as its own batch.
    gen_kwargs = {"max_gen_toks": 16, "temperature": 0.0, "until": ["\n\n"]}
    requests = [Instance(request_type="generate_until", doc={}, idx=i,
                         arguments=(JsonChatStr(json.dumps(_messages(i))), dict(gen_kwargs)))
                for i in range(n)]
    t0, cpu0 = time.perf_counter(), _cpu_s()
    answers = lm.generate_until(requests, disable_tqdm=True)
    seconds, cpu = time.perf_counter() - t0, _cpu_s() - cpu0
    ok = sum(1 for a in answers if a)
    return {"ok": ok, "failed": len(answers) - ok, "seconds": seconds, "cpu_s": cpu,
            "lm_eval_version": lm_eval.__version__}


class _QueuedTopic:
    """A bus whose request topic holds `n` requests, as a broker does: outside this process, made only when
    polled (what a consumer takes is all the service holds); published results are counted and dropped."""

    def __init__(self, topic: str, requests: Any, n: int) -> None:
        self._topic, self._requests, self._n, self._next = topic, requests, n, 0
        self.published = 0

    # the Bus side
    def publish(self, out: Any, headers: Any = None) -> None:
        self.published += 1

    def send_frames(self) -> None:
        return None

    def flush(self, timeout_s: float = 30.0) -> None:
        return None

    def topic_exists(self, name: str) -> bool:
        return True

    def consumer(self, group: str, topic_names: list[str]) -> _QueuedTopic:
        return self

    def close(self) -> None:
        return None

    # the Consumer side
    def poll(self, max_records: int, timeout_s: float) -> list[Any]:
        from livetab.bus.base import Record, make_headers

        out = []
        while self._next < self._n and len(out) < max_records:
            req = self._requests(self._next)
            out.append(Record(self._topic, 0, self._next, None, req.SerializeToString(),
                              make_headers(self._topic, req, req.id)))
            self._next += 1
        return out

    def commit(self, records: list[Any]) -> None:
        return None

    def rewind(self) -> None:
        return None


async def _instant_generate(request: Any) -> list[Any]:
    from livetab.models.base import Completion

    await asyncio.sleep(0)
    return [Completion(text="3", prompt_tokens=40, completion_tokens=1)]


def _memory(queued: int, mode: str, concurrency: int) -> dict[str, Any]:
    """Peak RSS with `queued` requests waiting upstream: through the service's own path (the in-flight worker
    and the inference handler, with an instant in-process backend), or every prompt built and gathered at once."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="livetab-bench-memory-") as tmp:
        store = _service_path(tmp)
        from livetab.bus import HandlerContext
        from livetab.bus.inflight import InFlightWorker
        from livetab.topics import requests_topic
        from livetab.v1 import common_pb2, inference_pb2
        from livetab_inference.handler import InferenceHandler

        from bench.inference_service import seed_release

        class InstantBackend:
            name = "instant"

            async def generate(self, request: Any) -> list[Any]:
                return await _instant_generate(request)

        questions = seed_release(store, "benchmemory", 64)
        spec = common_pb2.ModelSpec(name="instant", backend="scripted")

        def request(i: int) -> Any:
            return inference_pb2.InferenceRequest(
                id=f"req{i}", run_id="memory", question_id=questions[i % len(questions)], model=spec,
                format="markdown", setting="with_table", sample_index=i, max_rows=40,
                sampling=common_pb2.Sampling(max_tokens=16, seed=i))

        handler = InferenceHandler({"instant": InstantBackend()}, timeout_s=30)
        ctx = HandlerContext(store=store, settings=None)
        base = _peak_rss_mb()
        t0 = time.perf_counter()
        if mode == "service":
            bus = _QueuedTopic(requests_topic(""), request, queued)
            InFlightWorker(handler, bus, ctx, max_in_flight=concurrency, poll_timeout_s=0).run(until_idle=True)
            done = bus.published
        else:  # what a loop without backpressure does: every request prepared and scheduled at once
            done = len(handler.handle_batch([request(i) for i in range(queued)], ctx))
        seconds = time.perf_counter() - t0
        store.close()
    return {"done": done, "seconds": seconds, "rss_before_mb": base}


def _child(args: argparse.Namespace) -> None:
    if args.contender == "livetab":
        out = _contender_livetab(args.url, args.requests, args.concurrency, args.max_seconds)
    elif args.contender == "aiohttp":
        out = asyncio.run(_contender_aiohttp(args.url, args.requests, args.concurrency, args.max_seconds))
    elif args.contender == "lmeval":
        logging.disable(logging.WARNING)
        out = _contender_lmeval(args.url, args.requests, args.concurrency, args.max_seconds)
    else:
        out = _memory(args.queued, args.contender.split("-", 1)[1], args.concurrency)
    out["peak_rss_mb"] = _peak_rss_mb()
    sys.stdout.write("RESULT " + json.dumps(out) + "\n")


# ---- the parent: server, rounds, figures ----

def _run_child(python: str, args: list[str], env: dict[str, str] | None = None, timeout: float = 300) -> dict[str, Any]:
    proc = subprocess.run([python, str(Path(__file__).resolve()), *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=ROOT)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            result: dict[str, Any] = json.loads(line[len("RESULT "):])
            return result
    raise RuntimeError(f"contender {args} failed (exit {proc.returncode}): {proc.stderr[-2000:]}")


def _ensure_lmeval(install: bool) -> tuple[str | None, str]:
    python = LMEVAL_VENV / "bin" / "python"
    check = "import lm_eval, lm_eval.models.openai_completions; print(lm_eval.__version__)"
    if python.exists():
        probe = subprocess.run([str(python), "-c", check], capture_output=True, text=True, timeout=120)
        if probe.returncode == 0:
            return str(python), probe.stdout.strip()
    if not install:
        return None, f"no lm-eval environment at {LMEVAL_VENV} (run with --install-lm-eval)"
    try:
        subprocess.run([sys.executable, "-m", "venv", str(LMEVAL_VENV)], check=True, timeout=300)
        subprocess.run([str(python), "-m", "pip", "install", "-q", LMEVAL_REQUIREMENT], check=True, timeout=1800)
        probe = subprocess.run([str(python), "-c", check], capture_output=True, text=True, timeout=120, check=True)
    except (subprocess.SubprocessError, OSError) as e:
        return None, f"could not install {LMEVAL_REQUIREMENT}: {e}"
    return str(python), probe.stdout.strip()


def _start_server(latency_ms: float, lean: bool = False) -> tuple[subprocess.Popen[str], str]:
    """The fixed-latency model server as a process of its own: the aiohttp fault server, or with `lean` the
    bare-protocol one (tests/fakes/lean_server.py: the same answers at a fraction of the CPU)."""
    cmd = ([sys.executable, "-m", "tests.fakes.lean_server"] if lean else
           [sys.executable, str(ROOT / "tests" / "fakes" / "fault_server.py"), "--mode", "latency"])
    proc = subprocess.Popen([*cmd, "--latency-ms", str(latency_ms), "--port", "0"], stdout=subprocess.PIPE, text=True,
                            cwd=ROOT)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("PORT "):
        proc.kill()
        raise RuntimeError(f"fault server did not start: {line!r}")
    return proc, f"http://127.0.0.1:{int(line.split()[1])}/v1"


def _rate(r: dict[str, Any]) -> float:
    return float(r["ok"]) / float(r["seconds"]) if r["seconds"] else 0.0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--contender", choices=["livetab", "aiohttp", "lmeval", "memory-service", "memory-gather"])
    parser.add_argument("--url", default="")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--max-seconds", type=float, default=30.0)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--queued", type=int, default=100_000)
    parser.add_argument("--no-install-lm-eval", action="store_true",
                        help=f"do not pip install {LMEVAL_REQUIREMENT} into {LMEVAL_VENV} when it is missing")
    args = parser.parse_args(sys.argv[1:] if argv is None and __name__ == "__main__" else (argv or []))
    if args.contender:
        _child(args)
        return

    from bench.common import write_result

    lmeval_python, lmeval_note = _ensure_lmeval(install=not args.no_install_lm_eval)
    server, url = _start_server(args.latency_ms)
    common = ["--url", url, "--requests", str(args.requests), "--max-seconds", str(args.max_seconds),
              "--concurrency", str(args.concurrency)]
    runs: dict[str, list[dict[str, Any]]] = {"livetab": [], "aiohttp": [], "lmeval": []}
    lmeval_error = ""
    try:
        for name in ("aiohttp", "livetab"):  # warm the server's connections and the page cache once
            _run_child(sys.executable, [*common[:2], "--requests", "200", "--contender", name])
        order = ["livetab", "aiohttp", "lmeval"]
        for r in range(args.rounds):
            for name in order[r % 3:] + order[: r % 3]:  # rotate who goes first: no contender always follows another
                if name == "lmeval":
                    if lmeval_python is None or lmeval_error:
                        continue
                    try:
                        runs[name].append(_run_child(lmeval_python, [*common, "--contender", name], timeout=600))
                    except (RuntimeError, subprocess.SubprocessError) as e:
                        lmeval_error = str(e)[-600:]
                    continue
                runs[name].append(_run_child(sys.executable, [*common, "--contender", name]))
    finally:
        server.terminate()
        server.wait(timeout=20)

    memory = {mode: _run_child(sys.executable, ["--contender", f"memory-{mode}", "--queued", str(args.queued),
                                                "--concurrency", str(args.concurrency)], timeout=900)
              for mode in ("service", "gather")}
    small = _run_child(sys.executable, ["--contender", "memory-service", "--queued", str(args.queued // 100),
                                        "--concurrency", str(args.concurrency)])

    rates = {name: [_rate(r) for r in rs] for name, rs in runs.items()}
    med = {name: statistics.median(v) if v else 0.0 for name, v in rates.items()}
    ratio = med["livetab"] / med["aiohttp"] if med["aiohttp"] else 0.0
    paired = [a / b for a, b in zip(rates["livetab"], rates["aiohttp"], strict=False) if b]
    figures: dict[str, Any] = {
        "server": f"tests/fakes/fault_server.py, fixed latency {args.latency_ms:g} ms, separate process",
        "concurrency": args.concurrency,
        "requests_per_contender_run": args.requests,
        "max_seconds_per_contender_run": args.max_seconds,
        "rounds": args.rounds,
        "ceiling_req_per_s": round(args.concurrency * 1000.0 / args.latency_ms, 1),
        "livetab_req_per_s": round(med["livetab"], 1),
        "aiohttp_req_per_s": round(med["aiohttp"], 1),
        "lmeval_req_per_s": round(med["lmeval"], 1) if rates["lmeval"] else None,
        "livetab_req_per_s_rounds": [round(x, 1) for x in rates["livetab"]],
        "aiohttp_req_per_s_rounds": [round(x, 1) for x in rates["aiohttp"]],
        "lmeval_req_per_s_rounds": [round(x, 1) for x in rates["lmeval"]],
        "livetab_vs_aiohttp_paired_ratios": [round(x, 4) for x in paired],
        "livetab_vs_lmeval_ratio": round(med["livetab"] / med["lmeval"], 4) if med["lmeval"] else None,
        "livetab_failed_requests": sum(int(r["failed"]) for r in runs["livetab"]),
        "aiohttp_failed_requests": sum(int(r["failed"]) for r in runs["aiohttp"]),
        "lmeval_failed_requests": sum(int(r["failed"]) for r in runs["lmeval"]) if runs["lmeval"] else None,
        "livetab_cpu_ms_per_request": round(statistics.median(
            1000 * r["cpu_s"] / max(1, r["ok"]) for r in runs["livetab"]), 3) if runs["livetab"] else None,
        "aiohttp_cpu_ms_per_request": round(statistics.median(
            1000 * r["cpu_s"] / max(1, r["ok"]) for r in runs["aiohttp"]), 3) if runs["aiohttp"] else None,
        "lmeval_cpu_ms_per_request": round(statistics.median(
            1000 * r["cpu_s"] / max(1, r["ok"]) for r in runs["lmeval"]), 3) if runs["lmeval"] else None,
        "livetab_latency_p50_ms": runs["livetab"][-1]["latency_p50_ms"] if runs["livetab"] else None,
        "livetab_latency_p99_ms": runs["livetab"][-1]["latency_p99_ms"] if runs["livetab"] else None,
        "lmeval_environment": lmeval_note if lmeval_python else None,
        "lmeval_unavailable": None if lmeval_python and not lmeval_error else (lmeval_error or lmeval_note),
        "queued_requests": args.queued,
        "memory_backend": "in-process instant backend (measures the service path's queueing, not HTTP)",
        "peak_rss_mb_service_100k_queued": round(memory["service"]["peak_rss_mb"], 1),
        "rss_mb_service_before_run": round(memory["service"]["rss_before_mb"], 1),
        "peak_rss_mb_service_1k_queued": round(small["peak_rss_mb"], 1),
        "peak_rss_mb_gather_all_100k": round(memory["gather"]["peak_rss_mb"], 1),
        "service_100k_seconds": round(memory["service"]["seconds"], 2),
        "cpu_count": os.cpu_count(),
        "load_average_1m_at_end": round(os.getloadavg()[0], 2),
    }
    write_result("inference", ratio, 0.95,
                 "plain asyncio + aiohttp loop at the same concurrency (ratio, goal >= 0.95) and lm-evaluation-"
                 "harness 0.4.13 local-chat-completions (livetab_vs_lmeval_ratio, goal > 1), same server, same run",
                 figures)


if __name__ == "__main__":
    main()
