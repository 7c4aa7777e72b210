"""OpenAI-compatible `/chat/completions` over aiohttp: vLLM, SGLang, TGI, llama.cpp server, Ollama, hosted APIs.
A request with `prompt` set (the completion prompt mode, for base models) goes to `/completions` instead, with
`prompt` and `stop` in the body, and its answers are read from each choice's `text`.

One `aiohttp.ClientSession` per backend with a connection pool sized to its concurrency and keep-alive;
a request that lands on a keep-alive connection the server already closed is re-sent once at once.
Everything else that can go wrong (429 + Retry-After, 5xx, timeouts, truncated or invalid JSON) becomes a
`StatusError` that the endpoint's `Resilience` retries with backoff or gives up on with its reason.

`n` samples: the request carries `n`; when the server returns fewer choices (llama.cpp ignores `n`) the
missing samples are requested one by one, sample i with seed `seed + i`, and the backend remembers that
the server ignores `n`. The API key is read from the environment variable `api_key_ref` names; it never
appears in logs, reprs or error messages.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from collections.abc import Awaitable, Mapping
from typing import Any

import aiohttp

from livetab.models.base import ChatMessage, Completion, GenerateRequest
from livetab.models.resilience import Resilience, StatusError, estimate_request_tokens
from livetab.netguard import NetPolicy, NetRefused
from livetab.retry_after import retry_after_seconds

__all__ = ["OpenAIBackend", "parse_retry_after"]

log = logging.getLogger(__name__)

N_MODES = ("auto", "native", "loop")


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a `Retry-After` header (delta-seconds or an HTTP date); None if absent or bad."""
    return retry_after_seconds(value)


class OpenAIBackend:
    """A chat model reached through an OpenAI-compatible HTTP endpoint (`base_url` ends in `/v1`)."""

    def __init__(self, base_url: str, model: str, *, name: str = "", api_key_ref: str = "",
                 extra_body: Mapping[str, Any] | None = None, timeout_s: float = 120.0,
                 connect_timeout_s: float = 10.0, concurrency: int = 16, keepalive_s: float = 4.0,
                 n_mode: str = "auto", resilience: Resilience | None = None,
                 env: Mapping[str, str] | None = None, net: NetPolicy | None = None,
                 max_response_bytes: int | None = None) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, got {base_url!r}")
        if n_mode not in N_MODES:
            raise ValueError(f"n_mode must be one of {N_MODES}, got {n_mode!r}")
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.base_url = base_url.rstrip("/")
        self.url = self.base_url + "/chat/completions"
        self.completions_url = self.base_url + "/completions"
        self.model = model
        self.name = name or model
        self.api_key_ref = api_key_ref
        env = os.environ if env is None else env
        self.__key = env.get(api_key_ref, "") if api_key_ref else ""
        if api_key_ref and not self.__key:
            raise ValueError(f"the API key reference {api_key_ref!r} names an environment variable that is not set")
        self.extra_body = dict(extra_body or {})
        self.timeout_s = timeout_s
        self.connect_timeout_s = connect_timeout_s
        self.concurrency = concurrency
        self.keepalive_s = keepalive_s
        self.n_mode = n_mode
        self.resilience = resilience or Resilience.for_endpoint(self.base_url, max_concurrency=concurrency)
        self._headers = {"Content-Type": "application/json"}
        if self.__key:
            self._headers["Authorization"] = f"Bearer {self.__key}"
        self.net = net  # when set, every address is checked just before connecting (livetab.netguard)
        self.max_response_bytes = max_response_bytes or (net.max_response_bytes if net else 8 * 1024 * 1024)
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.stale_retries = 0  # requests re-sent because a kept-alive connection had been closed

    def __repr__(self) -> str:
        key = "***" if self.__key else "none"
        return (f"OpenAIBackend(name={self.name!r}, base_url={self.base_url!r}, model={self.model!r}, "
                f"api_key_ref={self.api_key_ref!r}, api_key={key})")

    async def __aenter__(self) -> OpenAIBackend:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        n = max(1, request.sampling.n)
        seed = request.sampling.seed
        if n == 1:
            return await self._call(request, seed, 1)
        if self.n_mode == "loop":
            return await self._samples(request, range(n))
        first = await self._call(request, seed, n)
        if len(first) >= n or self.n_mode == "native":
            return first[:n]
        if self.n_mode == "auto":
            log.info("%s returned %d of %d choices; requesting the rest one by one from now on",
                     self.base_url, len(first), n)
            self.n_mode = "loop"
        return first + await self._samples(request, range(len(first), n))

    async def _samples(self, request: GenerateRequest, indices: range) -> list[Completion]:
        seed = request.sampling.seed
        groups = await asyncio.gather(*(self._call(request, seed + i, 1) for i in indices))
        out: list[Completion] = []
        for g in groups:
            if not g:
                raise StatusError("the server returned no choices", retryable=False)
            out.append(g[0])
        return out

    def _call(self, request: GenerateRequest, seed: int, n: int) -> Awaitable[list[Completion]]:
        # A plain function returning the guarded coroutine: one coroutine frame less on every resume.
        s = request.sampling
        body: dict[str, Any] = {"model": self.model}
        if request.prompt:
            body["prompt"] = request.prompt
        else:
            body["messages"] = [_message(m) for m in request.messages]
        if request.stop:
            body["stop"] = list(request.stop)
        body.update({
            "temperature": s.temperature,
            "top_p": s.top_p,
            "max_tokens": s.max_tokens,
            "seed": seed,
        })
        if n > 1:
            body["n"] = n
        if self.extra_body:
            body.update(self.extra_body)
        payload = json.dumps(body, ensure_ascii=False).encode()
        guard = self.resilience
        tokens = estimate_request_tokens(request) if guard.counts_tokens else 0
        url = self.completions_url if request.prompt else self.url
        return guard.call(lambda: self._post(payload, url), tokens=tokens)

    def _ensure_session(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._loop is not loop:
            connector = GuardedConnector(self.net, limit=self.concurrency, limit_per_host=self.concurrency,
                                         keepalive_timeout=self.keepalive_s, ttl_dns_cache=300)
            timeout = aiohttp.ClientTimeout(total=self.timeout_s, sock_connect=self.connect_timeout_s)
            self._session = aiohttp.ClientSession(connector=connector, timeout=timeout, headers=self._headers)
            self._loop = loop
        return self._session

    async def _post(self, payload: bytes, url: str) -> list[Completion]:
        session = self._ensure_session()
        t0 = time.perf_counter()
        for attempt in (1, 2):
            try:
                async with session.post(url, data=payload, allow_redirects=False) as resp:
                    status = resp.status
                    raw = await self._read_capped(resp)
                    retry_after = None if status == 200 else resp.headers.get("Retry-After")
                break
            except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError) as e:
                # A connection refused is not a stale keep-alive connection: no immediate resend then.
                if attempt == 1 and not isinstance(e, aiohttp.ClientConnectorError):
                    self.stale_retries += 1
                    log.debug("%s: connection dropped (%s); re-sending once", self.base_url, type(e).__name__)
                    continue
                raise StatusError(self._redact(f"connection error: {type(e).__name__}: {e}"), retryable=True) from None
            except NetRefused as e:
                raise StatusError(str(e), retryable=False) from None
            except TimeoutError:
                raise StatusError(f"timeout after {self.timeout_s:g}s", retryable=True) from None
            except aiohttp.ClientError as e:
                raise StatusError(self._redact(f"client error: {type(e).__name__}: {e}"), retryable=True) from None
        latency_ms = (time.perf_counter() - t0) * 1000.0
        if status != 200:
            raise self._status_error(status, raw, retry_after, url)
        return self._parse(raw, latency_ms)

    async def served_models(self) -> list[str]:
        """The model ids `GET {base_url}/models` lists, asked through the session every request uses (each address
        checked by the net policy just before connecting, no redirect followed, the answer capped); `StatusError`
        (status 0: no answer; 200: an answer that is not a model list) when there is none."""
        session = self._ensure_session()
        url = self.base_url + "/models"
        try:
            async with session.get(url, allow_redirects=False) as resp:
                status = resp.status
                kind = resp.headers.get("Content-Type", "no content type").split(";")[0]
                raw = await self._read_capped(resp)
        except NetRefused as e:
            raise StatusError(str(e), retryable=False) from None
        except TimeoutError:
            raise StatusError(f"cannot reach {url}: no answer within {self.timeout_s:g}s", retryable=True) from None
        except aiohttp.ClientResponseError:  # it answered, but not in HTTP/1.x (a gRPC server, say)
            raise StatusError(f"{url} does not speak the OpenAI API: its answer is not an HTTP/1.1 response",
                              retryable=False) from None
        except aiohttp.ClientError as e:
            raise StatusError(self._redact(f"cannot reach {url}: {type(e).__name__}: {e}"), retryable=True) from None
        if status != 200:
            raise self._status_error(status, raw, None, url)
        try:
            return [str(m["id"]) for m in json.loads(raw)["data"]]
        except (ValueError, KeyError, TypeError):
            raise StatusError(f"{url} does not speak the OpenAI API: GET /models answered {kind}, not a model list "
                              "(is base_url the server's /v1 base?)", status=200, retryable=False) from None

    async def _read_capped(self, resp: aiohttp.ClientResponse) -> bytes:
        """The body, or `StatusError` once it passes `max_response_bytes` (the rest is not read)."""
        declared = resp.content_length
        if declared is not None and declared > self.max_response_bytes:
            raise StatusError(f"response of {declared} bytes is over the {self.max_response_bytes}-byte cap")
        if declared is not None:  # a declared length within the cap: aiohttp reads no further than it
            return await resp.read()
        chunks: list[bytes] = []
        seen = 0
        async for chunk in resp.content.iter_chunked(65536):
            seen += len(chunk)
            if seen > self.max_response_bytes:
                raise StatusError(f"response over the {self.max_response_bytes}-byte cap")
            chunks.append(chunk)
        return b"".join(chunks)

    def _status_error(self, status: int, raw: bytes, retry_after: str | None, url: str = "") -> StatusError:
        snippet = raw[:300].decode("utf-8", "replace").strip()
        message = self._redact(f"HTTP {status} from {url or self.url}: {snippet}")
        retryable = status == 429 or status == 408 or status >= 500
        return StatusError(message, status=status, retryable=retryable,
                           retry_after=parse_retry_after(retry_after) if retryable else None)

    def _parse(self, raw: bytes, latency_ms: float) -> list[Completion]:
        try:
            data = json.loads(raw)
        except ValueError as e:
            raise StatusError(f"invalid JSON in a {len(raw)}-byte response: {e}", status=200, retryable=True) from None
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list) or not choices:
            raise StatusError(self._redact(f"response without choices: {raw[:200].decode('utf-8', 'replace')}"),
                              status=200, retryable=True)
        usage = data.get("usage") or {}
        prompt_tokens = int(usage.get("prompt_tokens") or 0)
        total_completion = int(usage.get("completion_tokens") or 0)
        share, rest = divmod(total_completion, len(choices))
        if len(choices) > 1:
            choices = sorted(choices, key=lambda c: c.get("index", 0) if isinstance(c, dict) else 0)
        out: list[Completion] = []
        for i, choice in enumerate(choices):
            message = (choice.get("message") or {}) if isinstance(choice, dict) else {}
            text = message.get("content") or ""
            if not message and isinstance(choice, dict):  # /completions: the continuation is the choice's text
                text = choice.get("text") or ""
            if isinstance(text, list):  # some servers return content parts
                text = "".join(p.get("text", "") for p in text if isinstance(p, dict))
            reasoning = message.get("reasoning_content") or message.get("reasoning") or ""
            out.append(Completion(text=str(text), reasoning=str(reasoning), prompt_tokens=prompt_tokens,
                                  completion_tokens=share + (rest if i == 0 else 0), latency_ms=latency_ms))
        return out

    def _redact(self, text: str) -> str:
        return text.replace(self.__key, "***") if self.__key else text


class GuardedConnector(aiohttp.TCPConnector):
    """A TCPConnector that checks every address a host resolves to against a `NetPolicy` just before it
    connects, IP literals included (aiohttp resolves those here too), so DNS rebinding is refused."""

    def __init__(self, net: NetPolicy | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._net = net

    async def _resolve_host(self, host: str, port: int, traces: Any = None) -> Any:
        net = None if self._net is None or self._net.is_trusted(host, port) else self._net
        if net is not None:
            net.check_spelling(host)
        hosts = await super()._resolve_host(host, port, traces=traces)
        if net is not None:
            for h in hosts:
                reason = net.why_not(str(h["host"]))
                if reason is not None:
                    raise NetRefused(f"refused to connect to {host[:80]!r}: {reason} (guard.allow)")
        return hosts


def _message(m: ChatMessage) -> dict[str, Any]:
    if isinstance(m.content, str):
        return {"role": m.role, "content": m.content}
    return {"role": m.role, "content": list(m.content)}
