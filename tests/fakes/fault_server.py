"""A fault-injecting OpenAI-compatible chat server (aiohttp), for fault-handling tests and the inference bench.

It is a fake on purpose: it answers `/v1/chat/completions` with a deterministic text and injects the
faults a real endpoint shows now and then, on demand. Each *scenario* has a name and is reached at
`http://127.0.0.1:<port>/<scenario>/v1`; `http://127.0.0.1:<port>/v1` is the scenario "default".

Modes: `ok`; `latency` (answer after `latency_ms`); `429` (with `Retry-After: retry_after_s`); `500`;
`timeout` (answer only after `delay_s`); `truncated` (status 200, JSON cut in half); `hang` (never answer);
`disconnect` (drop the connection without an answer, as a server does to a stale keep-alive connection).
`GET /v1/models` lists one model, `fake-model` (what a client probes before asking).
`fail_first=k` injects the fault into the first k requests of the scenario only, then answers normally.

Counting: `GET /stats` gives the requests received per scenario; `GET /stats/prompts` gives, over all
scenarios, `{"total", "distinct", "counts": {prompt hash: requests}, "peak_active"}` where the prompt hash is
the SHA-256 of the request's `messages` (JSON, sorted keys), so a test can tell which prompts were sent twice,
and `peak_active` is the most requests the server was answering at once.

Run it as a separate process for measurements:
    python tests/fakes/fault_server.py --mode latency --latency-ms 100 --port 0
It prints `PORT <n>` once it listens.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import logging
import signal
import threading
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from aiohttp import web

__all__ = ["MODEL_ID", "MODES", "FaultServer", "Scenario", "ThreadedFaultServer", "prompt_hash"]

log = logging.getLogger(__name__)

MODEL_ID = "fake-model"  # what GET /v1/models lists (chat requests are answered whatever model they name)
MODES = ("ok", "latency", "429", "500", "timeout", "truncated", "hang", "disconnect")


@dataclass(frozen=True)
class Scenario:
    mode: str = "ok"
    latency_ms: float = 0.0
    retry_after_s: float = 1.0
    delay_s: float = 30.0
    fail_first: int | None = None
    honour_n: bool = True
    max_n: int = 0  # > 0: a request for more choices is refused with HTTP 400, as some hosted APIs do
    reasoning: bool = False
    echo_auth: bool = False  # error bodies repeat the Authorization header (to test that clients redact it)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"unknown mode {self.mode!r}; one of {MODES}")


def prompt_hash(messages: Any) -> str:
    """The key `/stats/prompts` counts a request's `messages` under."""
    return hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _answer(body: dict[str, Any], scenario: Scenario) -> dict[str, Any]:
    seed = body.get("seed", 0)
    n = int(body.get("n") or 1) if scenario.honour_n else 1
    messages = body.get("messages") or []
    last = messages[-1].get("content", "") if messages else ""
    images = 0
    if isinstance(last, list):  # OpenAI content parts: count the words of text parts and the images
        images = sum(1 for p in last if p.get("type") == "image_url" and
                     str(p.get("image_url", {}).get("url", "")).startswith("data:image/png;base64,"))
        last = " ".join(str(p.get("text", "")) for p in last if p.get("type") == "text")
    words = len(str(last).split())
    choices = []
    for i in range(n):
        text = f"seed={seed} choice={i} words={words}" + (f" images={images}" if images else "")
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if scenario.reasoning:
            message["content"] = f"<think>counting {words} words</think>{text}"
            message["reasoning_content"] = "field reasoning"
        choices.append({"index": i, "message": message, "finish_reason": "stop"})
    return {"id": f"cmpl-{seed}", "object": "chat.completion", "model": body.get("model", ""),
            "choices": choices,
            "usage": {"prompt_tokens": words, "completion_tokens": 4 * n, "total_tokens": words + 4 * n}}


class FaultServer:
    """The aiohttp application; run it with `start` on the current event loop."""

    def __init__(self, default: Scenario | None = None, scenarios: dict[str, Scenario] | None = None) -> None:
        self.scenarios: dict[str, Scenario] = {"default": default or Scenario()}
        self.scenarios.update(scenarios or {})
        self.counts: Counter[str] = Counter()
        self.prompts: Counter[str] = Counter()  # prompt hash -> requests received, over all scenarios
        self.active = 0  # requests being answered now, and the most at once
        self.peak_active = 0
        self.port = 0
        self._runner: web.AppRunner | None = None
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._default)
        app.router.add_post("/{scenario}/v1/chat/completions", self._named)
        app.router.add_get("/v1/models", self._models)
        app.router.add_get("/{scenario}/v1/models", self._models)
        app.router.add_get("/health", self._health)
        app.router.add_get("/stats", self._stats)
        app.router.add_get("/stats/prompts", self._prompt_stats)
        self.app = app

    def set(self, name: str, scenario: Scenario) -> None:
        self.scenarios[name] = scenario
        self.counts.pop(name, None)

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        # High keep-alive so clients reuse connections; handlers are cancelled when a client goes away.
        self._runner = web.AppRunner(self.app, access_log=None, keepalive_timeout=3600, handler_cancellation=True)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port, backlog=1024)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
        return self.port

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _models(self, request: web.Request) -> web.Response:
        """The OpenAI model list, with the one model this server pretends to be (`MODEL_ID`)."""
        return web.json_response({"object": "list", "data": [{"id": MODEL_ID, "object": "model", "owned_by": "fake"}]})

    async def _health(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def _stats(self, request: web.Request) -> web.Response:
        return web.json_response(dict(self.counts))

    async def _prompt_stats(self, request: web.Request) -> web.Response:
        return web.json_response({"total": sum(self.prompts.values()), "distinct": len(self.prompts),
                                  "counts": dict(self.prompts), "peak_active": self.peak_active})

    async def _default(self, request: web.Request) -> web.StreamResponse:
        return await self._serve("default", request)

    async def _named(self, request: web.Request) -> web.StreamResponse:
        return await self._serve(request.match_info["scenario"], request)

    async def _serve(self, name: str, request: web.Request) -> web.StreamResponse:
        self.active += 1
        self.peak_active = max(self.peak_active, self.active)
        try:
            return await self._answer(name, request)
        finally:
            self.active -= 1

    async def _answer(self, name: str, request: web.Request) -> web.StreamResponse:
        scenario = self.scenarios.get(name)
        if scenario is None:
            return web.json_response({"error": {"message": f"no scenario {name!r}"}}, status=404)
        self.counts[name] += 1
        seen = self.counts[name]
        raw = await request.read()
        try:
            body = json.loads(raw)
        except ValueError:
            return web.json_response({"error": {"message": "request body is not JSON"}}, status=400)
        if isinstance(body, dict):
            self.prompts[prompt_hash(body.get("messages"))] += 1
        if scenario.max_n and isinstance(body, dict) and int(body.get("n") or 1) > scenario.max_n:
            return web.json_response({"error": {"message": f"n must be at most {scenario.max_n}"}}, status=400)
        mode = scenario.mode
        if scenario.fail_first is not None and seen > scenario.fail_first:
            mode = "ok"
        if scenario.latency_ms:
            await asyncio.sleep(scenario.latency_ms / 1000.0)
        if mode == "429":
            return web.json_response({"error": {"message": "rate limited"}}, status=429,
                                     headers={"Retry-After": f"{scenario.retry_after_s:g}"})
        if mode == "500":
            detail = f" (auth: {request.headers.get('Authorization', '')})" if scenario.echo_auth else ""
            return web.json_response({"error": {"message": "internal error" + detail}}, status=500)
        if mode == "hang":
            await asyncio.sleep(3600)
        if mode == "timeout":
            await asyncio.sleep(scenario.delay_s)
        if mode == "disconnect":
            if request.transport is not None:
                request.transport.close()
            raise asyncio.CancelledError  # nothing more to send on a closed connection
        payload = json.dumps(_answer(body, scenario)).encode()
        if mode == "truncated":
            payload = payload[: len(payload) // 2]
        return web.Response(body=payload, content_type="application/json")


class ThreadedFaultServer:
    """A `FaultServer` on its own event loop in a background thread, for synchronous tests."""

    def __init__(self, default: Scenario | None = None, scenarios: dict[str, Scenario] | None = None) -> None:
        self.server = FaultServer(default, scenarios)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="fault-server", daemon=True)

    def __enter__(self) -> ThreadedFaultServer:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.server.start(), self._loop).result(timeout=10)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.server.stop(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    def url(self, scenario: str = "default") -> str:
        prefix = "" if scenario == "default" else f"/{scenario}"
        return f"http://127.0.0.1:{self.server.port}{prefix}/v1"

    def set(self, name: str, scenario: Scenario) -> str:
        """Add or replace a scenario (its request count restarts at 0); returns its base URL."""
        done = threading.Event()

        def apply() -> None:
            self.server.set(name, scenario)
            done.set()

        self._loop.call_soon_threadsafe(apply)
        done.wait(timeout=10)
        return self.url(name)

    def count(self, name: str = "default") -> int:
        return self.server.counts.get(name, 0)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--mode", default="ok", choices=MODES)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--retry-after-s", type=float, default=1.0)
    parser.add_argument("--fail-first", type=int, default=None)
    args = parser.parse_args(argv)
    mode = "ok" if args.mode == "latency" else args.mode
    default = Scenario(mode=mode, latency_ms=args.latency_ms, retry_after_s=args.retry_after_s,
                       fail_first=args.fail_first)

    async def serve() -> None:
        server = FaultServer(default, {m: replace(default, mode=m) for m in MODES})
        port = await server.start(args.host, args.port)
        print(f"PORT {port}", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        await server.stop()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
