"""livetab.models.http1, the OpenAI backend's HTTP/1.1 client, against a raw asyncio server that writes each
answer byte for byte: the framings (length, chunks, the connection's end), keep-alive and its limits, what is
not HTTP, caps, time limits, the connection bound, and TLS (a self-signed certificate made by openssl)."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from livetab.models import http1
from livetab.models.http1 import BrokenAnswer, ConnectFailed, Disconnected, HTTPClient, NotHTTP, TooLarge

Answer = Callable[[bytes, int], bytes | None]  # (the request's head and body, its number on the connection)


def ok(body: bytes = b'{"ok": true}', extra: str = "") -> bytes:
    return f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n{extra}\r\n".encode() + body


class Server:
    """Answers each request on a connection with `answer(request, n)` (after `delay_s`): bytes to write (then the
    connection stays open unless `close_after`), or None to close it without a word. Counts connections, the most
    open at once and the requests it read."""

    def __init__(self, answer: Answer, *, close_after: bool = False, tls: ssl.SSLContext | None = None,
                 delay_s: float = 0.0) -> None:
        self.answer, self.close_after, self.tls, self.delay_s = answer, close_after, tls, delay_s
        self.connections = 0
        self.requests: list[bytes] = []
        self.open_now = 0
        self.peak_open = 0

    async def __aenter__(self) -> Server:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.tls)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.open_now += 1
        self.peak_open = max(self.peak_open, self.open_now)
        try:
            n = 0
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                request = head + await reader.readexactly(length)
                self.requests.append(request)
                n += 1
                if self.delay_s:
                    await asyncio.sleep(self.delay_s)
                out = self.answer(request, n)
                if out is None:
                    return
                if out:
                    writer.write(out)
                    await writer.drain()
                if self.close_after:
                    return
        finally:
            self.open_now -= 1
            writer.close()


def client(port: int, scheme: str = "http", **kw: object) -> HTTPClient:
    opts: dict[str, object] = {"limit": 8, "keepalive_s": 5.0, "connect_timeout_s": 2.0,
                               "headers": {"Content-Type": "application/json"}, "net": None, "max_body": 1 << 20}
    opts.update(kw)
    return HTTPClient(f"{scheme}://127.0.0.1:{port}/v1", **opts)  # type: ignore[arg-type]


def run(coro: Awaitable[object]) -> object:
    return asyncio.run(coro)  # type: ignore[arg-type]


async def _one(answer: Answer, method: str = "POST", **kw: object) -> http1.Response:
    async with Server(answer) as s:
        c = client(s.port, **kw)
        try:
            return await c.request(method, "/v1/chat/completions", b"{}", timeout_s=5)
        finally:
            await c.close()


def test_the_request_on_the_wire_and_a_length_framed_answer() -> None:
    async def go() -> tuple[http1.Response, bytes]:
        async with Server(lambda r, n: ok(extra="X-Twice: a\r\nX-Twice: b\r\n")) as s:
            c = client(s.port, headers={"Authorization": "Bearer k"})
            resp = await c.request("POST", "/v1/chat/completions", b'{"a": 1}', timeout_s=5)
            await c.close()
            return resp, s.requests[0]

    resp, sent = run(go())  # type: ignore[misc]
    assert resp.status == 200 and resp.body == b'{"ok": true}' and resp.headers["x-twice"] == "a, b"
    head, body = sent.split(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    assert lines[0] == "POST /v1/chat/completions HTTP/1.1" and body == b'{"a": 1}'
    assert "Content-Length: 8" in lines and "Authorization: Bearer k" in lines and any(
        line.startswith("Host: 127.0.0.1:") for line in lines)
    assert not any(line.lower().startswith("accept-encoding") for line in lines)  # nothing compressed is asked for


def test_a_kept_alive_connection_carries_the_next_request() -> None:
    async def go() -> tuple[int, int]:
        async with Server(lambda r, n: ok(str(n).encode())) as s:
            c = client(s.port)
            bodies = [(await c.request("GET", "/v1/models", timeout_s=5)).body for _ in range(3)]
            await c.close()
            assert bodies == [b"1", b"2", b"3"]
            return s.connections, len(s.requests)

    assert run(go()) == (1, 3)


@pytest.mark.parametrize("answer", [
    b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nhi",
    b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi",
    b"HTTP/1.1 200 OK\r\n\r\nhi",  # framed by the connection's end
])
def test_an_answer_that_ends_its_connection_is_not_reused(answer: bytes) -> None:
    async def go() -> tuple[list[bytes], int]:
        framed_by_end = b"Content-Length" not in answer
        async with Server(lambda r, n: answer, close_after=framed_by_end) as s:
            c = client(s.port)
            bodies = [(await c.request("GET", "/v1/models", timeout_s=5)).body for _ in range(2)]
            await c.close()
            return bodies, s.connections

    assert run(go()) == ([b"hi", b"hi"], 2)


def test_chunks_with_an_extension_and_a_trailer() -> None:
    chunked = (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
               b"5;name=x\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n")
    async def go() -> tuple[list[bytes], int]:
        async with Server(lambda r, n: chunked) as s:
            c = client(s.port)
            bodies = [(await c.request("GET", "/v1/models", timeout_s=5)).body for _ in range(2)]
            await c.close()
            return bodies, s.connections

    assert run(go()) == ([b"hello, world"] * 2, 1)


def test_an_interim_answer_is_followed_by_the_real_one() -> None:
    resp = run(_one(lambda r, n: b"HTTP/1.1 100 Continue\r\n\r\n" + ok(b"real")))
    assert resp.status == 200 and resp.body == b"real"  # type: ignore[attr-defined]


@pytest.mark.parametrize("answer", [
    b"\x00\x00\x12\x04\x00\x00\x00\x00\x00\x00\x03\x7f\xff\xff\xff",  # an HTTP/2 SETTINGS frame, then the end
    b"SSH-2.0-OpenSSH_9.2\r\n",
    b"<html>hello</html>\r\n\r\n",
])
def test_what_is_not_http_is_named(answer: bytes) -> None:
    with pytest.raises(NotHTTP, match=r"not an HTTP/1\.1 response"):
        run(_closing(answer))


async def _closing(answer: bytes) -> http1.Response:
    async with Server(lambda r, n: answer, close_after=True) as s:
        c = client(s.port)
        try:
            return await c.request("GET", "/v1/models", timeout_s=5)
        finally:
            await c.close()


def test_a_connection_closed_without_an_answer_is_disconnected() -> None:
    with pytest.raises(Disconnected):
        run(_one(lambda r, n: None))


def test_an_idle_connection_the_server_closed_is_not_used_again() -> None:
    async def go() -> tuple[bytes, int]:
        async with Server(lambda r, n: ok(b"x"), close_after=True) as s:
            c = client(s.port)
            await c.request("GET", "/v1/models", timeout_s=5)  # kept: its answer did not say close
            await asyncio.sleep(0.05)  # the server's close reaches the client
            body = (await c.request("GET", "/v1/models", timeout_s=5)).body
            await c.close()
            return body, s.connections

    assert run(go()) == (b"x", 2)


@pytest.mark.parametrize("answer", [
    b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
    b"HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\nabc",
    b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Le",
])
def test_an_answer_cut_short_or_malformed_is_broken(answer: bytes) -> None:
    with pytest.raises(BrokenAnswer):
        run(_closing(answer))


def test_the_size_cap_stops_reading() -> None:
    with pytest.raises(TooLarge, match="response of 5000 bytes is over the 1000-byte cap"):
        run(_one(lambda r, n: ok(b"x" * 5000), max_body=1000))
    chunks = b"".join(b"100\r\n" + b"y" * 256 + b"\r\n" for _ in range(8)) + b"0\r\n\r\n"
    with pytest.raises(TooLarge, match="response over the 1000-byte cap"):
        run(_one(lambda r, n: b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks, max_body=1000))
    assert run(_one(lambda r, n: ok(b"x" * 1000), max_body=1000)).body == b"x" * 1000  # type: ignore[attr-defined]


def test_no_answer_in_time_is_a_timeout_and_the_connection_is_dropped() -> None:
    async def go() -> int:
        async with Server(lambda r, n: b"" if b"/slow" in r else ok()) as s:  # /slow is never answered
            c = client(s.port)
            with pytest.raises(TimeoutError):
                await c.request("GET", "/v1/slow", timeout_s=0.2)
            assert (await c.request("GET", "/v1/models", timeout_s=5)).status == 200
            await c.close()
            return s.connections

    assert run(go()) == 2


def test_nothing_listening_is_a_connect_failure() -> None:
    async def go() -> None:
        c = client(9)
        try:
            await c.request("GET", "/v1/models", timeout_s=5)
        finally:
            await c.close()

    with pytest.raises(ConnectFailed, match=r"cannot connect to 127\.0\.0\.1:9"):
        run(go())


def test_at_most_limit_connections_at_once() -> None:
    async def go() -> tuple[int, int]:
        async with Server(lambda r, n: ok(), delay_s=0.05) as s:
            c = client(s.port, limit=3)
            results = await asyncio.gather(*(c.request("GET", "/v1/models", timeout_s=5) for _ in range(12)))
            await c.close()
            assert all(r.status == 200 for r in results)
            return s.peak_open, len(s.requests)

    peak, n = run(go())  # type: ignore[misc]
    assert n == 12 and peak == 3


@pytest.mark.parametrize("value", ["a\r\nX-Injected: 1", "a\nb", "a\x00b"])
def test_a_header_value_with_a_line_break_is_refused(value: str) -> None:
    with pytest.raises(ValueError, match="line break or a NUL"):
        HTTPClient("http://127.0.0.1:1/v1", limit=1, keepalive_s=1, connect_timeout_s=1,
                   headers={"Authorization": value}, net=None, max_body=10)


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.fail("openssl is needed to make the test's certificate (Debian: apt-get install openssl)")
    d = tmp_path_factory.mktemp("tls")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(d / "key.pem"), "-out", str(d / "cert.pem")],
                   check=True, capture_output=True)
    return d / "cert.pem", d / "key.pem"


def test_tls_is_verified_with_the_default_context(certificate: tuple[Path, Path],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    cert, key = certificate
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(cert, key)

    async def go() -> http1.Response:
        async with Server(lambda r, n: ok(b"secret"), tls=server_tls) as s:
            c = client(s.port, scheme="https")
            try:
                return await c.request("GET", "/v1/models", timeout_s=5)
            finally:
                await c.close()

    monkeypatch.setattr(http1, "_TLS", None)
    with pytest.raises(ConnectFailed, match="CERTIFICATE_VERIFY_FAILED"):  # not signed by a CA the system trusts
        run(go())
    trusting = ssl.create_default_context(cafile=str(cert))  # the same checks, this certificate trusted
    monkeypatch.setattr(http1, "_TLS", trusting)
    assert run(go()).body == b"secret"  # type: ignore[attr-defined]


def test_a_header_http_cannot_carry_is_refused_and_a_path_is_percent_encoded() -> None:
    with pytest.raises(ValueError, match="cannot carry"):
        HTTPClient("http://127.0.0.1:1/v1", limit=1, keepalive_s=1, connect_timeout_s=1,
                   headers={"Authorization": "Bearer ключ"}, net=None, max_body=10)

    async def go() -> bytes:
        async with Server(lambda r, n: ok()) as s:
            c = client(s.port)
            await c.request("GET", "/v1/modèles", timeout_s=5)
            await c.close()
            return s.requests[0]

    assert run(go()).startswith(b"GET /v1/mod%C3%A8les HTTP/1.1\r\n")  # type: ignore[attr-defined]
