"""The fault server's fixed-latency answer at a fraction of its CPU, for measurements that share the cores with
what they measure (`python -m bench pipeline`).

In a deployment the model server runs on other machines; on one machine its CPU is taken from the pipeline
being measured. The aiohttp fault server (tests/fakes/fault_server.py) spends ~0.2 ms of CPU per request on
routing, its per-scenario counters and a hash of every prompt; this one is a bare asyncio protocol: HTTP/1.1
with keep-alive and Content-Length bodies, `POST …/chat/completions` answered after `latency_ms` with the fault
server's own answer (`fault_server._answer`: the same text for the same request), `GET …/models` with its model
list, anything else 404. No faults, no chunked bodies, no pipelining beyond answering in order.

    python -m tests.fakes.lean_server --latency-ms 5 --port 0     # from the repository root; prints `PORT <n>`
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
from typing import Any

from tests.fakes.fault_server import MODEL_ID, Scenario, _answer

__all__ = ["LeanProtocol", "response", "serve"]

MODELS = json.dumps({"object": "list", "data": [{"id": MODEL_ID, "object": "model", "owned_by": "fake"}]}).encode()
MAX_HEAD = 64 * 1024
_SCENARIO = Scenario()  # the fault server's "ok" answer: n honoured, no reasoning


def response(status: int, body: bytes, close: bool = False) -> bytes:
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 413: "Payload Too Large"}.get(status, "Error")
    return (f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            f"Connection: {'close' if close else 'keep-alive'}\r\n\r\n").encode() + body


class LeanProtocol(asyncio.Protocol):
    """One client connection: requests parsed as they arrive, each answered in order."""

    def __init__(self, latency_s: float) -> None:
        self.latency_s = latency_s
        self.buf = b""
        self.transport: asyncio.Transport | None = None
        self.loop = asyncio.get_running_loop()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None

    def data_received(self, data: bytes) -> None:
        self.buf += data
        while self.transport is not None:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                if len(self.buf) > MAX_HEAD:
                    self._send(response(413, b'{"error": {"message": "header too large"}}', True), 0, True)
                return
            lines = self.buf[:end].split(b"\r\n")
            length, close = 0, False
            for line in lines[1:]:
                name, _, value = line.partition(b":")
                name = name.strip().lower()
                if name == b"content-length":
                    length = int(value)
                elif name == b"connection" and value.strip().lower() == b"close":
                    close = True
            if len(self.buf) < end + 4 + length:
                return
            body = self.buf[end + 4:end + 4 + length]
            self.buf = self.buf[end + 4 + length:]
            method, _, rest = lines[0].partition(b" ")
            path = rest.partition(b" ")[0].partition(b"?")[0]
            self._answer(method, path, body, close)

    def _answer(self, method: bytes, path: bytes, body: bytes, close: bool) -> None:
        if method == b"GET" and path.endswith(b"/v1/models"):
            self._send(response(200, MODELS, close), 0, close)
        elif method == b"POST" and path.endswith(b"/v1/chat/completions"):
            try:
                request: Any = json.loads(body)
                payload = json.dumps(_answer(request, _SCENARIO)).encode()
            except (ValueError, AttributeError, TypeError):
                self._send(response(400, b'{"error": {"message": "request body is not a JSON object"}}', close), 0,
                           close)
                return
            self._send(response(200, payload, close), self.latency_s, close)
        else:
            self._send(response(404, b'{"error": {"message": "not found"}}', close), 0, close)

    def _send(self, data: bytes, after_s: float, close: bool) -> None:
        # a client asks once at a time on a connection (no pipelining), so answers leave in order
        if after_s > 0:
            self.loop.call_later(after_s, self._write, data, close)
        else:
            self._write(data, close)

    def _write(self, data: bytes, close: bool) -> None:
        if self.transport is not None:
            self.transport.write(data)
            if close:
                self.transport.close()


async def serve(host: str, port: int, latency_ms: float) -> None:
    """Listen until SIGTERM or SIGINT; prints `PORT <n>` once it listens."""
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: LeanProtocol(latency_ms / 1000.0), host, port, backlog=1024)
    print(f"PORT {server.sockets[0].getsockname()[1]}", flush=True)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with server:
        await stop.wait()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    args = parser.parse_args(argv)
    asyncio.run(serve(args.host, args.port, args.latency_ms))


if __name__ == "__main__":
    main()
