"""A small, real gRPC `livetab.v1.ModelService` server that wraps any livetab model backend.

It shows a team how to put its own system behind livetab's gRPC contract, and it is what the gRPC
backend is tested against. It serves `Generate` and the standard `grpc.health.v1` health service.

    python deploy/model_server_example.py --port 50051                      # the local SmolLM2 model
    python deploy/model_server_example.py --spec '{"backend": "openai", "base_url": "http://127.0.0.1:8000/v1", "model": "m"}'
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from livetab.models.base import ChatMessage, GenerateRequest, ModelBackend, ModelError, SamplingParams
from livetab.models.grpc_backend import SERVICE_NAME
from livetab.v1 import model_service_pb2, model_service_pb2_grpc

__all__ = ["BackendServicer", "start_server"]

log = logging.getLogger("livetab.deploy.model_server")


class BackendServicer(model_service_pb2_grpc.ModelServiceServicer):  # type: ignore[misc,unused-ignore]
    """`Generate` answered by a `ModelBackend`; model errors become gRPC status codes."""

    def __init__(self, backend: ModelBackend, *, default_max_tokens: int = 256) -> None:
        self.backend = backend
        self.default_max_tokens = default_max_tokens

    async def Generate(self, request: model_service_pb2.GenerateRequest,
                       context: grpc.aio.ServicerContext) -> model_service_pb2.GenerateResponse:
        s = request.sampling
        sampling = SamplingParams(temperature=s.temperature, top_p=s.top_p or 1.0,
                                  max_tokens=s.max_tokens or self.default_max_tokens, seed=s.seed, n=max(1, s.n))
        if not request.messages:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "a request needs at least one message")
        try:
            completions = await self.backend.generate(
                GenerateRequest([ChatMessage(m.role, m.content) for m in request.messages], sampling))
        except ModelError as e:
            code = grpc.StatusCode.UNAVAILABLE if e.retryable else grpc.StatusCode.INVALID_ARGUMENT
            log.warning("generate failed (%s): %s", code.name, e)
            await context.abort(code, str(e))
        return model_service_pb2.GenerateResponse(completions=[
            model_service_pb2.Completion(text=c.text, reasoning=c.reasoning, prompt_tokens=c.prompt_tokens,
                                         completion_tokens=c.completion_tokens) for c in completions])


async def start_server(backend: ModelBackend, *, host: str = "127.0.0.1",
                       port: int = 0) -> tuple[grpc.aio.Server, int, health.aio.HealthServicer]:
    """Start serving; returns the server, the bound port and the health servicer (already SERVING)."""
    server = grpc.aio.server()
    model_service_pb2_grpc.add_ModelServiceServicer_to_server(  # type: ignore[no-untyped-call,unused-ignore]
        BackendServicer(backend), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    bound = server.add_insecure_port(f"{host}:{port}")
    if bound == 0:
        raise OSError(f"could not bind {host}:{port}")
    await server.start()
    for service in ("", SERVICE_NAME):
        await health_servicer.set(service, health_pb2.HealthCheckResponse.SERVING)
    log.info("ModelService for %s listening on %s:%d", getattr(backend, "name", "?"), host, bound)
    return server, bound, health_servicer


async def _serve(backend: ModelBackend, host: str, port: int) -> None:
    server, bound, health_servicer = await start_server(backend, host=host, port=port)
    print(f"PORT {bound}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    for service in ("", SERVICE_NAME):
        await health_servicer.set(service, health_pb2.HealthCheckResponse.NOT_SERVING)
    await server.stop(grace=5.0)
    close = getattr(backend, "close", None)
    if close is not None:
        await close()


def main(argv: list[str] | None = None) -> None:
    from livetab.models.registry import backend_from_spec

    parser = argparse.ArgumentParser(description="Serve a livetab model backend as a gRPC ModelService.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=50051)
    parser.add_argument("--spec", default='{"backend": "llama_local", "name": "smollm2-135m"}',
                        help="the wrapped backend as a JSON model spec")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    try:
        spec = json.loads(args.spec)
        backend = backend_from_spec(spec)
    except (ValueError, ModelError) as e:
        parser.error(f"--spec: {e}")
    asyncio.run(_serve(backend, args.host, args.port))


if __name__ == "__main__":
    main()
