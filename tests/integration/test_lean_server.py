"""The pipeline bench's lean model server answers as the fault server does (the same text for the same request),
through livetab's own OpenAI client over kept-alive connections; what it does not serve is a clear error."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from livetab.models.base import ChatMessage, GenerateRequest, SamplingParams
from livetab.models.openai_compat import OpenAIBackend

from tests.fakes.fault_server import MODEL_ID, Scenario, _answer

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def lean() -> Iterator[int]:
    proc = subprocess.Popen([sys.executable, "-m", "tests.fakes.lean_server", "--latency-ms", "2", "--port", "0"],
                            stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("PORT "), line
        yield int(line.split()[1])
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0  # SIGTERM ends it cleanly


def _raw(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(request)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    return out


def test_livetabs_client_gets_the_fault_servers_answers_on_kept_alive_connections(lean: int) -> None:
    async def ask() -> list[str]:
        backend = OpenAIBackend(f"http://127.0.0.1:{lean}/v1", MODEL_ID, concurrency=4)
        try:
            reqs = [GenerateRequest([ChatMessage("user", "how many rows " * (i + 1))],
                                    SamplingParams(temperature=0.7, top_p=1.0, max_tokens=16, seed=100 + i, n=1))
                    for i in range(40)]
            done = await asyncio.gather(*(backend.generate(r) for r in reqs))
            return [c[0].text for c in done]
        finally:
            await backend.close()

    texts = asyncio.run(ask())
    expected = [_answer({"seed": 100 + i, "messages": [{"role": "user", "content": "how many rows " * (i + 1)}]},
                        Scenario())["choices"][0]["message"]["content"] for i in range(40)]
    assert texts == expected
    assert texts[0] == "seed=100 choice=0 words=3"


def test_models_list_unknown_paths_bad_bodies_and_connection_close(lean: int) -> None:
    models = _raw(lean, b"GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    head, _, body = models.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 ") and json.loads(body)["data"][0]["id"] == MODEL_ID
    missing = _raw(lean, b"GET /nothing HTTP/1.1\r\nConnection: close\r\n\r\n")
    assert missing.startswith(b"HTTP/1.1 404 ")
    bad = _raw(lean, b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 5\r\nConnection: close\r\n\r\n[1,2]")
    assert bad.startswith(b"HTTP/1.1 400 ") and b"not a JSON object" in bad
    two = (b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 11\r\n\r\n{\"seed\": 1}"
           b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 11\r\nConnection: close\r\n\r\n{\"seed\": 2}")
    both = _raw(lean, two)  # two requests in one write: both answered, in order, then the connection closes
    assert both.count(b"HTTP/1.1 200 ") == 2 and both.index(b"seed=1 ") < both.index(b"seed=2 ")
