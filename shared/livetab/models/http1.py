"""The HTTP/1.1 client of the OpenAI-compatible backend, on asyncio streams.

What a model endpoint needs and no more: one pool of keep-alive connections per backend (at most `limit` open
at once, an idle one kept `keepalive_s`), a request body with its length, an answer framed by Content-Length,
by chunks or by the connection's end, a cap on the answer's size (the rest is not read), a total time limit per
request, TLS with the default verified context (built on the first https connection, once per process), and
every address a host resolves to checked against the `NetPolicy` just before connecting, IP literals included,
so a name that resolves elsewhere later (DNS rebinding) is refused. No redirect is followed, no proxy used, no
compression asked for, no cookie kept.

Why not aiohttp, which this replaced (2026-12-03): importing it took ~0.13 s of every `livetab eval` (two TLS
contexts built from the CA bundle at import, even for an `http://` endpoint), ~3.5 % of an evaluation of 2,000
questions at 64 in flight; `python -m bench eval` measures it.

Failures are typed so the backend can tell them apart: `Disconnected` (the connection closed before any byte
of an answer: a kept-alive connection the server had already closed, worth sending again at once),
`ConnectFailed` (nothing accepted the connection), `NotHTTP` (what came back is not HTTP/1.x: a gRPC server,
say), `TooLarge` (over the cap) and `BrokenAnswer` (an answer cut short or malformed after its status line).
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import time
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from livetab.netguard import NetPolicy

__all__ = ["BrokenAnswer", "ConnectFailed", "Disconnected", "HTTPClient", "HTTPError", "NotHTTP", "Response",
           "TooLarge", "check_headers"]

MAX_HEAD_BYTES = 65536  # status line and headers together


class HTTPError(Exception):
    """No usable HTTP answer."""


class ConnectFailed(HTTPError):
    """The connection could not be opened (refused, unreachable, the name does not resolve)."""


class Disconnected(HTTPError):
    """The server closed the connection before sending any byte of an answer."""


class NotHTTP(HTTPError):
    """The server answered, but not in HTTP/1.x."""


class TooLarge(HTTPError):
    """The answer is over the size cap."""


class BrokenAnswer(HTTPError):
    """The answer started as HTTP and then broke off or stopped making sense."""


@dataclass(slots=True)
class Response:
    status: int
    headers: dict[str, str]  # names in lower case; repeated headers joined with ", "
    body: bytes


@dataclass(slots=True, eq=False)
class _Conn:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    idle_since: float = 0.0


_TLS: ssl.SSLContext | None = None


def _tls_context() -> ssl.SSLContext:
    global _TLS
    if _TLS is None:
        ctx = ssl.create_default_context()
        ctx.set_alpn_protocols(["http/1.1"])
        _TLS = ctx
    return _TLS


def check_headers(headers: Mapping[str, str]) -> None:
    """`ValueError` naming the first header that would break the request: a line break or NUL byte (another
    header smuggled in), or a character outside Latin-1, which HTTP/1.1 headers cannot carry."""
    for k, v in headers.items():
        if any(c in k + v for c in "\r\n\x00"):
            raise ValueError(f"the HTTP header {k!r} holds a line break or a NUL byte")
        try:
            (k + v).encode("latin-1")
        except UnicodeEncodeError:
            raise ValueError(f"the HTTP header {k!r} holds characters HTTP/1.1 headers cannot carry") from None


class HTTPClient:
    """Requests to one origin (`base_url`'s scheme, host and port) over a pool of kept-alive connections; used on
    the event loop it was first used on."""

    def __init__(self, base_url: str, *, limit: int, keepalive_s: float, connect_timeout_s: float,
                 headers: Mapping[str, str], net: NetPolicy | None, max_body: int) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https"):
            raise ValueError(f"base_url must start with http:// or https://, got {base_url!r}")
        self.tls = parts.scheme == "https"
        self.host = (parts.hostname or "").rstrip(".")
        if not self.host:
            raise ValueError(f"base_url {base_url!r} has no host")
        default = 443 if self.tls else 80
        self.port = parts.port or default  # a bad port is urlsplit's ValueError
        name = f"[{self.host}]" if ":" in self.host else self.host
        authority = name if self.port == default else f"{name}:{self.port}"
        fixed = {"Host": authority, "User-Agent": "livetab", "Accept": "*/*", **headers}
        check_headers(fixed)
        self._head = "".join(f"{k}: {v}\r\n" for k, v in fixed.items())
        self.keepalive_s = keepalive_s
        self.connect_timeout_s = connect_timeout_s
        self.net = net
        self.max_body = max_body
        self._slots = asyncio.Semaphore(limit)
        self._idle: list[_Conn] = []
        self._open: set[_Conn] = set()
        self.closed = False

    async def request(self, method: str, target: str, body: bytes = b"", *, timeout_s: float) -> Response:
        """One request; the whole of it (waiting for a connection, connecting, sending, reading) within
        `timeout_s`, else `TimeoutError`. A connection is reused only after an answer read to its end."""
        async with asyncio.timeout(timeout_s), self._slots:
            conn = self._take_idle() or await self._connect()
            try:
                length = f"Content-Length: {len(body)}\r\n" if body or method == "POST" else ""
                if not target.isascii():  # a path with other characters goes percent-encoded, as browsers send it
                    target = quote(target, safe="/?#[]@!$&'()*+,;=:%~")
                conn.writer.write(f"{method} {target} HTTP/1.1\r\n{self._head}{length}\r\n".encode("latin-1") + body)
                resp, reusable = await self._read(conn.reader, method)
            except BaseException as e:
                self._discard(conn)
                if isinstance(e, (ConnectionError, OSError)) and not isinstance(e, TimeoutError):
                    raise Disconnected(f"the connection failed before an answer: {type(e).__name__}: {e}") from None
                raise
            if reusable and not self.closed:
                conn.idle_since = time.monotonic()
                self._idle.append(conn)
            else:
                self._discard(conn)
            return resp

    async def close(self) -> None:
        self.closed = True
        for conn in list(self._open):
            self._discard(conn)
        self._idle.clear()
        await asyncio.sleep(0)  # let the transports finish closing on this loop

    def _take_idle(self) -> _Conn | None:
        now = time.monotonic()
        while self._idle:
            conn = self._idle.pop()  # the most recently used: the likeliest to be still open
            if now - conn.idle_since <= self.keepalive_s and not conn.reader.at_eof() and not conn.writer.is_closing():
                return conn
            self._discard(conn)
        return None

    def _discard(self, conn: _Conn) -> None:
        self._open.discard(conn)
        conn.writer.close()

    async def _connect(self) -> _Conn:
        loop = asyncio.get_running_loop()
        host, port = self.host, self.port
        net = None if self.net is None or self.net.is_trusted(host, port) else self.net
        if net is not None:
            net.check_spelling(host)
        try:
            infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as e:
            raise ConnectFailed(f"cannot resolve {host[:80]!r}: {e}") from None
        addresses = list(dict.fromkeys((family, addr[:2] if family == socket.AF_INET else addr)
                                       for family, _, _, _, addr in infos))
        if net is not None:
            net.check_resolved(host, [str(addr[0]) for _, addr in addresses])
        last: BaseException | None = None
        for family, addr in addresses:
            sock = socket.socket(family, socket.SOCK_STREAM)
            try:
                sock.setblocking(False)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                async with asyncio.timeout(self.connect_timeout_s):
                    await loop.sock_connect(sock, addr)
                    reader, writer = await asyncio.open_connection(
                        sock=sock, limit=MAX_HEAD_BYTES, ssl=_tls_context() if self.tls else None,
                        server_hostname=host if self.tls else None)
            except OSError as e:  # TimeoutError is one: the connect timeout, tried on the next address too
                sock.close()
                last = e
                continue
            except BaseException:
                sock.close()
                raise
            conn = _Conn(reader, writer)
            self._open.add(conn)
            return conn
        if isinstance(last, TimeoutError):
            raise TimeoutError(f"no connection to {host}:{port} within {self.connect_timeout_s:g}s")
        raise ConnectFailed(f"cannot connect to {host}:{port}: {last}")

    async def _read(self, reader: asyncio.StreamReader, method: str) -> tuple[Response, bool]:
        """The answer and whether its connection may carry another request."""
        while True:
            version, status, headers = await self._read_head(reader)
            if not 100 <= status < 200 or status == 101:
                break  # an interim answer (100 Continue, 103 Early Hints) is followed by the real one
        te = headers.get("transfer-encoding", "").lower()
        reusable = (("keep-alive" in headers.get("connection", "").lower()) if version == "HTTP/1.0"
                    else "close" not in headers.get("connection", "").lower())
        if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            return Response(status, headers, b""), reusable
        try:
            if "chunked" in te:
                body = await self._read_chunked(reader)
            elif "content-length" in headers:
                try:
                    n = int(headers["content-length"].split(",")[0])
                except ValueError:
                    raise BrokenAnswer(f"bad Content-Length {headers['content-length'][:40]!r}") from None
                if n > self.max_body:
                    raise TooLarge(f"response of {n} bytes is over the {self.max_body}-byte cap")
                body = await reader.readexactly(n)
            else:  # framed by the connection's end
                body = await self._read_to_end(reader)
                reusable = False
        except asyncio.IncompleteReadError as e:
            raise BrokenAnswer(f"the answer broke off after {len(e.partial)} bytes of its body") from None
        except asyncio.LimitOverrunError:
            raise BrokenAnswer(f"a chunk-size or trailer line over {MAX_HEAD_BYTES} bytes") from None
        return Response(status, headers, body), reusable

    async def _read_head(self, reader: asyncio.StreamReader) -> tuple[str, int, dict[str, str]]:
        try:
            raw = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as e:
            if not e.partial:
                raise Disconnected("the server closed the connection without answering") from None
            if not e.partial.startswith(b"HTTP/1."):
                raise NotHTTP("its answer is not an HTTP/1.1 response") from None
            raise BrokenAnswer("the answer broke off in its headers") from None
        except asyncio.LimitOverrunError:
            raise NotHTTP(f"no end of headers within {MAX_HEAD_BYTES} bytes") from None
        if not raw.startswith(b"HTTP/1."):
            raise NotHTTP("its answer is not an HTTP/1.1 response")
        lines = raw[:-4].decode("latin-1").split("\r\n")
        version, _, rest = lines[0].partition(" ")
        try:
            status = int(rest[:3])
        except ValueError:
            raise NotHTTP(f"bad status line {lines[0][:60]!r}") from None
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if not sep:
                raise BrokenAnswer(f"bad header line {line[:60]!r}")
            key, value = name.strip().lower(), value.strip()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        return version, status, headers

    async def _read_chunked(self, reader: asyncio.StreamReader) -> bytes:
        chunks: list[bytes] = []
        seen = 0
        while True:
            line = await reader.readuntil(b"\r\n")
            try:
                size = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise BrokenAnswer(f"bad chunk size {line[:20]!r}") from None
            if size == 0:
                while await reader.readuntil(b"\r\n") != b"\r\n":  # trailers, if any
                    pass
                return b"".join(chunks)
            seen += size
            if seen > self.max_body:
                raise TooLarge(f"response over the {self.max_body}-byte cap")
            chunks.append((await reader.readexactly(size + 2))[:-2])

    async def _read_to_end(self, reader: asyncio.StreamReader) -> bytes:
        chunks: list[bytes] = []
        seen = 0
        while chunk := await reader.read(65536):
            seen += len(chunk)
            if seen > self.max_body:
                raise TooLarge(f"response over the {self.max_body}-byte cap")
            chunks.append(chunk)
        return b"".join(chunks)
