"""gRPC `livetab.v1.ModelService` client: for team systems that are not plain chat models.

The service answers `Generate(GenerateRequest) -> GenerateResponse` with `sampling.n` completions; when
it returns fewer, the missing samples are asked for one at a time with seed `seed + i`. Status codes a
retry may cure (UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED, INTERNAL, UNKNOWN) are
retried by the endpoint's `Resilience`; the rest fail at once with the server's message. Health comes
from the standard `grpc.health.v1` service.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Mapping

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from livetab.models.base import ChatMessage, Completion, GenerateRequest, ModelError
from livetab.models.resilience import Resilience, StatusError, estimate_request_tokens
from livetab.v1 import common_pb2, model_service_pb2, model_service_pb2_grpc

__all__ = ["RETRYABLE_CODES", "SERVICE_NAME", "GrpcBackend"]

log = logging.getLogger(__name__)

SERVICE_NAME = "livetab.v1.ModelService"
RETRYABLE_CODES = frozenset({
    grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.ABORTED, grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN,
})


def _text(m: ChatMessage) -> str:
    if isinstance(m.content, str):
        return m.content
    if any(p.get("type") != "text" for p in m.content):
        raise ModelError("the gRPC ModelService carries text only; this message has image parts")
    return "\n".join(str(p.get("text", "")) for p in m.content)


class GrpcBackend:
    """A `ModelService` at `target` (`host:port`), over an insecure or TLS channel."""

    def __init__(self, target: str, model: str = "", *, name: str = "", timeout_s: float = 120.0,
                 api_key_ref: str = "", tls: bool = False, resilience: Resilience | None = None,
                 concurrency: int = 16, env: Mapping[str, str] | None = None) -> None:
        if not target or ":" not in target:
            raise ValueError(f"a gRPC target is host:port, got {target!r}")
        self.target = target.removeprefix("grpc://")
        self.model = model
        self.name = name or model or self.target
        self.timeout_s = timeout_s
        self.tls = tls
        self.api_key_ref = api_key_ref
        env = os.environ if env is None else env
        self.__key = env.get(api_key_ref, "") if api_key_ref else ""
        if api_key_ref and not self.__key:
            raise ValueError(f"the API key reference {api_key_ref!r} names an environment variable that is not set")
        self._metadata = (("authorization", f"Bearer {self.__key}"),) if self.__key else None
        self.resilience = resilience or Resilience.for_endpoint(f"grpc://{self.target}", max_concurrency=concurrency)
        self._channel: grpc.aio.Channel | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:
        return (f"GrpcBackend(name={self.name!r}, target={self.target!r}, model={self.model!r}, "
                f"api_key_ref={self.api_key_ref!r}, api_key={'***' if self.__key else 'none'})")

    def _ensure_channel(self) -> grpc.aio.Channel:
        loop = asyncio.get_running_loop()
        if self._channel is None or self._loop is not loop:
            options = [("grpc.keepalive_time_ms", 30_000), ("grpc.max_receive_message_length", 64 << 20)]
            if self.tls:
                self._channel = grpc.aio.secure_channel(self.target, grpc.ssl_channel_credentials(), options=options)
            else:
                self._channel = grpc.aio.insecure_channel(self.target, options=options)
            self._loop = loop
        return self._channel

    async def close(self) -> None:
        if self._channel is not None:
            await self._channel.close()
            self._channel = None

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        if request.prompt:  # ModelService speaks chat only
            raise ModelError(f"{self.name}: the completion prompt mode is not supported over gRPC; use chat")
        n = max(1, request.sampling.n)
        messages = [model_service_pb2.ChatMessage(role=m.role, content=_text(m)) for m in request.messages]
        first = await self._call(request, messages, request.sampling.seed, n)
        if len(first) >= n:
            return first[:n]
        rest = await asyncio.gather(*(self._call(request, messages, request.sampling.seed + i, 1)
                                      for i in range(len(first), n)))
        out = list(first)
        for group in rest:
            if not group:
                raise StatusError(f"{self.target} returned no completions", retryable=False)
            out.append(group[0])
        return out

    async def _call(self, request: GenerateRequest, messages: list[model_service_pb2.ChatMessage], seed: int,
                    n: int) -> list[Completion]:
        s = request.sampling
        message = model_service_pb2.GenerateRequest(
            model=self.model, messages=messages,
            sampling=common_pb2.Sampling(temperature=s.temperature, top_p=s.top_p, max_tokens=s.max_tokens,
                                         seed=seed, n=n))
        return await self.resilience.call(lambda: self._rpc(message), tokens=estimate_request_tokens(request))

    async def _rpc(self, message: model_service_pb2.GenerateRequest) -> list[Completion]:
        stub = model_service_pb2_grpc.ModelServiceStub(self._ensure_channel())  # type: ignore[no-untyped-call,unused-ignore]
        t0 = time.perf_counter()
        try:
            response = await stub.Generate(message, timeout=self.timeout_s, metadata=self._metadata)
        except grpc.aio.AioRpcError as e:
            code = e.code()
            retry_after = None
            for key, value in e.trailing_metadata() or ():
                if key == "retry-after":
                    try:
                        retry_after = float(value)
                    except (TypeError, ValueError):
                        retry_after = None
            raise StatusError(f"gRPC {code.name} from {self.target}: {e.details()}", code=code.name,
                              retryable=code in RETRYABLE_CODES, retry_after=retry_after) from None
        ms = (time.perf_counter() - t0) * 1000.0
        return [Completion(text=c.text, reasoning=c.reasoning, prompt_tokens=c.prompt_tokens,
                           completion_tokens=c.completion_tokens, latency_ms=ms) for c in response.completions]

    async def health(self, service: str = SERVICE_NAME) -> str:
        """The health status name the server reports for `service` (SERVING, NOT_SERVING, ...)."""
        stub = health_pb2_grpc.HealthStub(self._ensure_channel())
        try:
            reply = await stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=min(5.0, self.timeout_s))
        except grpc.aio.AioRpcError as e:
            return f"UNREACHABLE ({e.code().name})"
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))
