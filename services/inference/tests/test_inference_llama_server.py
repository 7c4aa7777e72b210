"""The real local model behind llama-cpp-python's OpenAI-compatible server, through the OpenAI backend.

N=4 seeded samples per question (temperature 0.6, top-p 0.9, a seed per sample) for two real
WikiTableQuestions questions; asking again returns identical text.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from inference_data import wtq_table
from livetab.models.base import GenerateRequest, SamplingParams
from livetab.models.openai_compat import OpenAIBackend
from livetab.models.registry import backend_from_spec
from livetab.questions import Gold, Question
from livetab_inference.calls import CallOutcome, call_model
from livetab_inference.prompts import build_messages

pytestmark = pytest.mark.model


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from livetab.models.llama_local import default_gguf_path

    port = free_port()
    log_path = Path(tmp_path_factory.mktemp("llama-server")) / "server.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(default_gguf_path()), "--host", "127.0.0.1",
             "--port", str(port), "--n_ctx", "2048", "--n_threads", str(min(2, os.cpu_count() or 1)),
             "--model_alias", "smollm2-135m"],
            stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {proc.returncode}:\n{log_path.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2) as r:
                    if r.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server did not start in 180 s:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def items() -> list[tuple[str, GenerateRequest]]:
    out = []
    for index in (2, 5):
        table, record = wtq_table(index)
        question = Question(id=str(record["id"]), table_id=table.id, family="direct", text=str(record["question"]),
                            gold=Gold(kind="text", text=str(record["answers"])))
        prompt = build_messages(question, table, fmt="markdown", setting="with_table", max_rows=8)
        sampling = SamplingParams(temperature=0.6, top_p=0.9, max_tokens=12, seed=1234, n=4)
        out.append((question.id, GenerateRequest(prompt.messages, sampling)))
    return out


def test_four_seeded_samples_per_question_repeat_exactly(llama_server: str) -> None:
    backend = backend_from_spec({"name": "smollm2-server", "backend": "openai", "base_url": llama_server,
                                 "model": "smollm2-135m", "params": {"timeout_s": "600", "concurrency": "1"}})
    assert isinstance(backend, OpenAIBackend)

    async def twice() -> tuple[dict[str, CallOutcome], dict[str, CallOutcome]]:
        try:  # the service's own call (livetab_inference.calls), one request at a time
            first = {key: await call_model(backend, req, model="smollm2-server", timeout_s=600) for key, req in items()}
            second = {key: await call_model(backend, req, model="smollm2-server", timeout_s=600) for key, req in items()}
        finally:
            await backend.close()
        return first, second

    first, second = asyncio.run(twice())
    assert [r.error for r in [*first.values(), *second.values()]] == [""] * 4
    texts = {key: [c.text for c in r.completions] for key, r in first.items()}
    again = {key: [c.text for c in r.completions] for key, r in second.items()}
    assert all(len(t) == 4 for t in texts.values()) and len(texts) == 2
    assert all(text.strip() for t in texts.values() for text in t)
    assert texts == again  # a seed per sample: the same four texts again
    assert all(c.completion_tokens > 0 and c.prompt_tokens > 0 for r in first.values() for c in r.completions)
