"""The inference HTTP client re-checks every address just before it connects (livetab.netguard), so DNS
rebinding, redirects and oversized answers do not get through.

No test here may open a connection to a non-loopback address: the `connects` fixture patches
`socket.socket.connect` so that any attempt to one fails the test, and records every attempt. The listener is
an HTTP server on 127.0.0.1 that counts what reaches it; when the client refuses, it must see nothing.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from aiohttp import web
from livetab.models.base import ChatMessage, GenerateRequest, ModelError, SamplingParams
from livetab.models.openai_compat import OpenAIBackend
from livetab.models.registry import backend_from_spec
from livetab.models.resilience import Resilience, RetryPolicy
from livetab.netguard import NetPolicy, NetRefused

LOOPBACK = NetPolicy.of(allow=["127.0.0.0/8"])
STRICT = NetPolicy.of()
ANSWER = {"choices": [{"index": 0, "message": {"content": "42"}}], "usage": {"prompt_tokens": 3, "completion_tokens": 1}}


@pytest.fixture
def connects(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every address a socket tried to connect to; an attempt at a non-loopback one fails the test at once."""
    seen: list[str] = []
    real = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else str(address)
        seen.append(host)
        if self.family in (socket.AF_INET, socket.AF_INET6) and not ipaddress.ip_address(host.split("%")[0]).is_loopback:
            pytest.fail(f"a test tried to connect to the non-loopback address {host}")
        return real(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
    yield seen


Route = Callable[[web.Request], Awaitable[web.StreamResponse]]


async def _serve(route: Route, hits: list[str]) -> tuple[web.AppRunner, int]:
    async def counted(request: web.Request) -> web.StreamResponse:
        hits.append(request.path)
        return await route(request)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", counted)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, port


async def _ok(_: web.Request) -> web.StreamResponse:
    return web.json_response(ANSWER)


def _request() -> GenerateRequest:
    return GenerateRequest([ChatMessage("user", "how many rows?")], SamplingParams(max_tokens=4, seed=1))


def _backend(url: str, net: NetPolicy | None, **kw: Any) -> OpenAIBackend:
    guard = Resilience(url, retry=RetryPolicy(max_attempts=1, base_delay_s=0.01, max_delay_s=0.01))
    return OpenAIBackend(url, "m", timeout_s=5.0, resilience=guard, net=net, **kw)


async def _call(url_of: Callable[[int], str], net: NetPolicy | None, route: Route = _ok,
                **kw: Any) -> tuple[list[str], str]:
    """(paths the listener saw, the answer text or the error message)."""
    hits: list[str] = []
    runner, port = await _serve(route, hits)
    b = _backend(url_of(port), net, **kw)
    try:
        out = await b.generate(_request())
        return hits, out[0].text
    except ModelError as e:
        return hits, f"error: {e}"
    finally:
        await b.close()
        await runner.cleanup()


def test_allowed_loopback_reaches_the_listener(connects: list[str]) -> None:
    """The control: with 127.0.0.0/8 allowed the same call gets through, so the refusals below are the guard's."""
    hits, text = asyncio.run(_call(lambda p: f"http://127.0.0.1:{p}/v1", LOOPBACK))
    assert text == "42" and hits == ["/v1/chat/completions"] and "127.0.0.1" in connects


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_loopback_refused_at_connect_and_the_listener_sees_nothing(connects: list[str], host: str) -> None:
    hits, text = asyncio.run(_call(lambda p: f"http://{host}:{p}/v1", STRICT))
    assert text.startswith("error: refused to connect") and "loopback" in text
    assert hits == [] and connects == []


@pytest.mark.parametrize("url", ["http://2130706433:{p}/v1", "http://0x7f000001:{p}/v1", "http://0177.0.0.1:{p}/v1",
                                 "http://127.1:{p}/v1"])
def test_numeric_spellings_never_connect(connects: list[str], url: str) -> None:
    hits, text = asyncio.run(_call(lambda p: url.format(p=p), LOOPBACK))
    assert text.startswith("error:") and hits == [] and connects == []


def test_dns_rebinding_refused_at_connect(connects: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The name resolves to a public address when the api checks it, and to loopback when the client connects."""
    answers = iter(["93.184.216.34"] + ["127.0.0.1"] * 10)
    real = socket.getaddrinfo

    def rebinding(host: Any, port: Any, *args: Any, **kw: Any) -> Any:
        if host == "models.rebind.test":
            return real(next(answers), port, *args, **kw)
        return real(host, port, *args, **kw)

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    assert STRICT.check_endpoint("http://models.rebind.test:8000/v1") == ["93.184.216.34"]  # the door: public
    hits, text = asyncio.run(_call(lambda p: f"http://models.rebind.test:{p}/v1", STRICT))
    assert "refused to connect" in text and "127.0.0.1" in text
    assert hits == [] and connects == []


def test_redirects_are_not_followed(connects: list[str]) -> None:
    async def redirect(_: web.Request) -> web.StreamResponse:
        raise web.HTTPTemporaryRedirect("http://169.254.169.254/latest/meta-data/")

    hits, text = asyncio.run(_call(lambda p: f"http://127.0.0.1:{p}/v1", LOOPBACK, redirect))
    assert "HTTP 307" in text and len(hits) == 1 and connects == ["127.0.0.1"]


@pytest.mark.parametrize("chunked", [False, True])
def test_response_size_capped(connects: list[str], chunked: bool) -> None:
    big = json.dumps({**ANSWER, "pad": "x" * 200_000}).encode()

    async def huge(request: web.Request) -> web.StreamResponse:
        if not chunked:
            return web.Response(body=big, content_type="application/json")
        resp = web.StreamResponse()
        resp.enable_chunked_encoding()
        await resp.prepare(request)
        for i in range(0, len(big), 8192):
            await resp.write(big[i:i + 8192])
        await resp.write_eof()
        return resp

    hits, text = asyncio.run(_call(lambda p: f"http://127.0.0.1:{p}/v1", LOOPBACK, huge, max_response_bytes=65536))
    assert "65536-byte cap" in text and len(hits) == 1
    hits, text = asyncio.run(_call(lambda p: f"http://127.0.0.1:{p}/v1", LOOPBACK, huge))
    assert text == "42"  # under the default cap the same answer is read


def test_grpc_endpoint_checked_when_built(connects: list[str]) -> None:
    with pytest.raises(ValueError, match="loopback"):
        backend_from_spec({"name": "g", "backend": "grpc", "base_url": "grpc://127.0.0.1:50051"}, net=STRICT)
    with pytest.raises(ValueError, match="private"):
        backend_from_spec({"name": "g", "backend": "grpc", "base_url": "10.2.3.4:50051"}, net=LOOPBACK)
    assert connects == []


def test_netrefused_is_a_value_error() -> None:
    assert issubclass(NetRefused, ValueError)


def test_admin_configured_endpoints_are_trusted_exactly(connects: list[str]) -> None:
    """An endpoint in settings.models is the admin's: trusted as written (host and port), nothing next to it."""
    async def both() -> tuple[list[str], str, str]:
        hits: list[str] = []
        runner, port = await _serve(_ok, hits)
        net = NetPolicy.of(trusted=[f"http://127.0.0.1:{port}/v1"])
        texts = []
        for url in (f"http://127.0.0.1:{port}/v1", f"http://localhost:{port}/v1"):
            b = _backend(url, net)
            try:
                texts.append((await b.generate(_request()))[0].text)
            except ModelError as e:
                texts.append(f"error: {e}")
            finally:
                await b.close()
        await runner.cleanup()
        return hits, texts[0], texts[1]

    hits, trusted, other = asyncio.run(both())
    assert trusted == "42" and "refused to connect" in other and hits == ["/v1/chat/completions"]


def test_the_served_inference_handler_guards_submitted_endpoints() -> None:
    from livetab.runtime import Build
    from livetab.settings import Settings
    from livetab_inference.service import SERVICE

    settings = Settings.model_validate({"models": [{"name": "own", "backend": "openai", "model": "x",
                                                    "base_url": "http://127.0.0.1:8000/v1"}],
                                        "guard": {"cluster_cidrs": ["203.0.113.0/24"]}})
    settings.guard.max_response_bytes = 4096
    (handler,) = SERVICE.build(Build(settings))
    net = handler.net
    assert net is not None and net.check_endpoint("http://127.0.0.1:8000/v1") == []
    assert _backend("http://127.0.0.1:8000/v1", net).max_response_bytes == 4096
    for url in ("http://127.0.0.1:8001/v1", "http://203.0.113.9/v1", "http://169.254.169.254/"):
        with pytest.raises(NetRefused):
            net.check_endpoint(url)
