"""The gRPC backend against the example ModelService server (a real grpc.aio server on loopback)."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from collections.abc import Awaitable, Callable
from types import ModuleType
from typing import Any

import pytest
from livetab.models.base import ChatMessage, Completion, GenerateRequest, ModelBackend, ModelError, SamplingParams
from livetab.models.grpc_backend import GrpcBackend
from livetab.models.registry import backend_from_spec
from livetab.models.resilience import Resilience, RetryPolicy
from livetab.paths import repo_root


def example_server() -> ModuleType:
    name = "livetab_model_server_example"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, repo_root() / "deploy" / "model_server_example.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


class ScriptedBackend:
    """Echoes the sampling it was given; fails as scripted. Returns `limit` completions at most."""

    name = "scripted"

    def __init__(self, *, limit: int = 100, fail_times: int = 0, retryable: bool = True) -> None:
        self.limit = limit
        self.fail_times = fail_times
        self.retryable = retryable
        self.calls = 0

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        self.calls += 1
        if self.calls <= self.fail_times:
            raise ModelError("scripted failure", retryable=self.retryable)
        s = request.sampling
        user = request.messages[-1].content
        return [Completion(text=f"<think>hm</think>{user} seed={s.seed} i={i} t={s.temperature}",
                           prompt_tokens=len(str(user).split()), completion_tokens=3)
                for i in range(min(s.n, self.limit))]


def with_server(backend: ModelBackend, test: Callable[[str], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        server, port, _health = await example_server().start_server(backend)
        try:
            return await test(f"127.0.0.1:{port}")
        finally:
            await server.stop(grace=None)

    return asyncio.run(main())


def req(text: str = "how many rows", n: int = 1, seed: int = 3) -> GenerateRequest:
    return GenerateRequest([ChatMessage("system", "s"), ChatMessage("user", text)],
                           SamplingParams(temperature=0.6, top_p=0.9, max_tokens=8, seed=seed, n=n))


def client(target: str, attempts: int = 3, timeout_s: float = 5.0) -> GrpcBackend:
    guard = Resilience(target, retry=RetryPolicy(max_attempts=attempts, base_delay_s=0.01))
    return GrpcBackend(target, "team-model", timeout_s=timeout_s, resilience=guard)


def test_generate_and_health() -> None:
    async def test(target: str) -> tuple[list[Completion], str]:
        b = client(target)
        try:
            return await b.generate(req(n=2)), await b.health()
        finally:
            await b.close()

    out, health = with_server(ScriptedBackend(), test)
    assert [c.text for c in out] == ["<think>hm</think>how many rows seed=3 i=0 t=0.6",
                                     "<think>hm</think>how many rows seed=3 i=1 t=0.6"]
    assert out[0].prompt_tokens == 3 and out[0].completion_tokens == 3 and out[0].latency_ms > 0
    assert health == "SERVING"


def test_missing_samples_are_requested_with_their_own_seed() -> None:
    scripted = ScriptedBackend(limit=1)

    async def test(target: str) -> list[Completion]:
        b = client(target)
        try:
            return await b.generate(req(n=3, seed=20))
        finally:
            await b.close()

    out = with_server(scripted, test)
    assert [c.text.split()[-3] for c in out] == ["seed=20", "seed=21", "seed=22"]
    assert scripted.calls == 3


def test_unavailable_is_retried_until_it_succeeds() -> None:
    scripted = ScriptedBackend(fail_times=2, retryable=True)

    async def test(target: str) -> list[Completion]:
        b = client(target, attempts=3)
        try:
            return await b.generate(req())
        finally:
            await b.close()

    assert with_server(scripted, test)[0].text.endswith("seed=3 i=0 t=0.6")
    assert scripted.calls == 3


def test_invalid_argument_fails_at_once_with_the_servers_message() -> None:
    scripted = ScriptedBackend(fail_times=5, retryable=False)

    async def test(target: str) -> None:
        b = client(target, attempts=3)
        try:
            await b.generate(req())
        finally:
            await b.close()

    with pytest.raises(ModelError, match=r"gRPC INVALID_ARGUMENT .*scripted failure") as info:
        with_server(scripted, test)
    assert not info.value.retryable and scripted.calls == 1


def test_an_unreachable_server_is_a_retryable_error() -> None:
    async def test() -> None:
        b = GrpcBackend("127.0.0.1:9", "m", timeout_s=1.0,
                        resilience=Resilience("x", retry=RetryPolicy(max_attempts=1)))
        try:
            await b.generate(req())
        finally:
            await b.close()

    with pytest.raises(ModelError, match="gRPC UNAVAILABLE") as info:
        asyncio.run(test())
    assert info.value.retryable


def test_image_parts_cannot_go_over_grpc() -> None:
    b = GrpcBackend("127.0.0.1:9", "m")
    image = GenerateRequest([ChatMessage("user", [{"type": "image_url", "image_url": {"url": "data:,"}}])])
    with pytest.raises(ModelError, match="text only"):
        asyncio.run(b.generate(image))


def test_registry_builds_a_grpc_backend_that_works() -> None:
    async def test(target: str) -> list[Completion]:
        b = backend_from_spec({"name": "team-x", "backend": "grpc", "base_url": f"grpc://{target}",
                               "model": "agent", "params": {"timeout_s": "5", "max_attempts": "2"}})
        assert isinstance(b, GrpcBackend) and b.name == "team-x" and b.resilience.retry.max_attempts == 2
        try:
            return await b.generate(req())
        finally:
            await b.close()

    assert with_server(ScriptedBackend(), test)[0].text.endswith("i=0 t=0.6")


@pytest.mark.model
def test_grpc_backend_against_the_real_local_model() -> None:
    from livetab.models.llama_local import LlamaLocalBackend

    local = LlamaLocalBackend(n_ctx=1024)

    async def test(target: str) -> tuple[list[Completion], list[Completion]]:
        b = client(target, attempts=1, timeout_s=600.0)  # a CPU shared by many jobs can be very slow
        try:
            ask = GenerateRequest([ChatMessage("system", "Answer briefly."),
                                   ChatMessage("user", "What is the capital of France?")],
                                  SamplingParams(temperature=0.6, top_p=0.9, max_tokens=12, seed=5, n=2))
            return await b.generate(ask), await b.generate(ask)
        finally:
            await b.close()

    first, again = with_server(local, test)
    assert len(first) == 2 and all(c.text.strip() for c in first)
    assert [c.text for c in first] == [c.text for c in again]  # seeded samples reproduce through gRPC
    assert all(c.completion_tokens > 0 for c in first)
