"""OpenAI-compatible `/chat/completions` over HTTP/1.1 (`livetab.models.http1`): vLLM, SGLang, TGI, llama.cpp server, Ollama, hosted APIs.
A request with `prompt` set (the completion prompt mode, for base models) goes to `/completions` instead, with
`prompt` and `stop` in the body, and its answers are read from each choice's `text`.

One HTTP client per backend (and event loop) with a connection pool sized to its concurrency and keep-alive;
a request that lands on a keep-alive connection the server already closed is re-sent once at once.
Everything else that can go wrong (429 + Retry-After, 5xx, timeouts, truncated or invalid JSON) becomes a
`StatusError` that the endpoint's `Resilience` retries with backoff or gives up on with its reason.

`n` samples: the request carries `n`; when the server returns fewer choices (llama.cpp ignores `n`) the
missing samples are requested one by one, sample i with seed `seed + i`, and the backend remembers that
the server ignores `n`. A server that refuses `n` > 1 outright (HTTP 400 or 422: some hosted APIs and reasoning
models take only one choice) is asked the samples one by one the same way, and once they are answered so, the
backend asks one by one from then on. The API key is read from the environment variable `api_key_ref` names; it never
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
from urllib.parse import urlsplit

from livetab.models.base import ChatMessage, Completion, GenerateRequest
from livetab.models.http1 import (
    ConnectFailed,
    Disconnected,
    HTTPClient,
    HTTPError,
    NotHTTP,
    Response,
    TooLarge,
    check_headers,
)
from livetab.models.resilience import Resilience, StatusError, estimate_request_tokens
from livetab.netguard import NetPolicy, NetRefused
from livetab.retry_after import retry_after_seconds

__all__ = ["OpenAIBackend", "parse_retry_after"]

log = logging.getLogger(__name__)

N_MODES = ("auto", "native", "loop")
MAX_ENCODED = 256  # message lists whose JSON is kept (a poll's prompts); all dropped when full
# where a chat's messages go in a body (`OpenAIBackend.payload`): a string no model name, stop sequence or setting
# can hold, since every configured and submitted value is refused with a NUL byte (`livetab.settings`)
_MESSAGES = "\x00livetab-messages\x00"
_MESSAGES_JSON = json.dumps(_MESSAGES)
# what a request that got no HTTP answer raises (livetab.models.http1, the net policy, the time limit)
_NO_ANSWER = (HTTPError, NetRefused, TimeoutError)


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
        self._path = urlsplit(self.base_url).path  # the request targets: this path and what follows it
        self.model = model
        self.name = name or model
        self.api_key_ref = api_key_ref
        env = os.environ if env is None else env
        self.__key = env.get(api_key_ref, "") if api_key_ref else ""
        if api_key_ref and not self.__key:
            raise ValueError(f"the API key reference {api_key_ref!r} names an environment variable that is not set")
        self.extra_body = dict(extra_body or {})
        self._encoded: dict[int, tuple[list[ChatMessage], str]] = {}  # id(messages) -> (messages, their JSON)
        self.timeout_s = timeout_s
        self.connect_timeout_s = connect_timeout_s
        self.concurrency = concurrency
        self.keepalive_s = keepalive_s
        self.n_mode = n_mode
        self.resilience = resilience or Resilience.for_endpoint(self.base_url, max_concurrency=concurrency)
        self._headers = {"Content-Type": "application/json"}
        if self.__key:
            self._headers["Authorization"] = f"Bearer {self.__key}"
        try:
            check_headers(self._headers)
        except ValueError:  # the message would name only the header; the key itself is never shown
            raise ValueError(f"the API key in {api_key_ref!r} cannot be sent in an HTTP header (a line break, a NUL "
                             "byte or a character outside Latin-1)") from None
        self.net = net  # when set, every address is checked just before connecting (livetab.netguard)
        self.max_response_bytes = max_response_bytes or (net.max_response_bytes if net else 8 * 1024 * 1024)
        self._http: HTTPClient | None = None
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
        if self._http is not None and not self._http.closed:
            await self._http.close()
        self._http = None

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        n = max(1, request.sampling.n)
        seed = request.sampling.seed
        if n == 1:
            return await self._call(request, seed, 1)
        if self.n_mode == "loop":
            return await self._samples(request, range(n))
        try:
            first = await self._call(request, seed, n)
        except StatusError as e:
            if self.n_mode != "auto" or e.status not in (400, 422):
                raise
            log.info("%s refused a request for %d choices (%s); asking for them one by one", self.base_url, n, e)
            out = await self._samples(request, range(n))
            self.n_mode = "loop"  # only once one by one worked where n did not: the refusal was about n
            return out
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

    def payload(self, request: GenerateRequest, seed: int, n: int = 1) -> bytes:
        """The request body: `json.dumps(body, ensure_ascii=False)` of {model, prompt or messages, stop, sampling,
        n, extra_body}. A chat's messages are written once per list of messages (`_messages_json`) and put in
        the place of a placeholder: the samples of a question share their prompt's list, and its table is most
        of the body."""
        s = request.sampling
        body: dict[str, Any] = {"model": self.model}
        if request.prompt:
            body["prompt"] = request.prompt
        else:
            body["messages"] = _MESSAGES
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
            body.update(self.extra_body)  # an extra "messages" replaces the placeholder: nothing to put in then
        text = json.dumps(body, ensure_ascii=False)
        if body.get("messages") is _MESSAGES:
            text = text.replace(_MESSAGES_JSON, self._messages_json(request.messages), 1)
        return text.encode()

    def _messages_json(self, messages: list[ChatMessage]) -> str:
        """`json.dumps` of the messages as the body carries them, kept per list of messages (by identity; the
        entry holds the list, so its id cannot be reused while kept)."""
        hit = self._encoded.get(id(messages))
        if hit is not None and hit[0] is messages:
            return hit[1]
        if len(self._encoded) >= MAX_ENCODED:
            self._encoded.clear()
        text = json.dumps([_message(m) for m in messages], ensure_ascii=False)
        self._encoded[id(messages)] = (messages, text)
        return text

    def _call(self, request: GenerateRequest, seed: int, n: int) -> Awaitable[list[Completion]]:
        # A plain function returning the guarded coroutine: one coroutine frame less on every resume.
        payload = self.payload(request, seed, n)
        guard = self.resilience
        tokens = estimate_request_tokens(request) if guard.counts_tokens else 0
        suffix = "/completions" if request.prompt else "/chat/completions"
        return guard.call(lambda: self._post(payload, suffix), tokens=tokens)

    def _client(self) -> HTTPClient:
        loop = asyncio.get_running_loop()
        if self._http is None or self._http.closed or self._loop is not loop:
            self._http = HTTPClient(self.base_url, limit=self.concurrency, keepalive_s=self.keepalive_s,
                                    connect_timeout_s=self.connect_timeout_s, headers=self._headers, net=self.net,
                                    max_body=self.max_response_bytes)
            self._loop = loop
        return self._http

    async def _request(self, method: str, suffix: str, payload: bytes = b"") -> Response:
        """One request, re-sent once at once when the connection closed before any answer (a kept-alive
        connection the server had closed). Failures without an HTTP answer are raised as they come."""
        client = self._client()
        try:
            return await client.request(method, self._path + suffix, payload, timeout_s=self.timeout_s)
        except Disconnected as e:
            self.stale_retries += 1
            log.debug("%s: connection dropped (%s); re-sending once", self.base_url, e)
        return await client.request(method, self._path + suffix, payload, timeout_s=self.timeout_s)

    def _no_answer(self, e: Exception, url: str) -> StatusError:
        """The `StatusError` of a request that got no HTTP answer (one of `_NO_ANSWER`)."""
        if isinstance(e, NetRefused):
            return StatusError(str(e), retryable=False)
        if isinstance(e, TimeoutError):
            return StatusError(f"timeout after {self.timeout_s:g}s", retryable=True)
        if isinstance(e, TooLarge):
            return StatusError(str(e))
        if isinstance(e, NotHTTP):
            return StatusError(f"{url} does not speak the OpenAI API: {e}", retryable=False)
        if isinstance(e, (Disconnected, ConnectFailed)):
            return StatusError(self._redact(f"connection error: {e}"), retryable=True)
        return StatusError(self._redact(f"client error: {type(e).__name__}: {e}"), retryable=True)

    async def _post(self, payload: bytes, suffix: str) -> list[Completion]:
        url = self.base_url + suffix
        t0 = time.perf_counter()
        try:
            resp = await self._request("POST", suffix, payload)
        except _NO_ANSWER as e:
            raise self._no_answer(e, url) from None
        latency_ms = (time.perf_counter() - t0) * 1000.0
        if resp.status != 200:
            raise self._status_error(resp.status, resp.body, resp.headers.get("retry-after"), url)
        return self._parse(resp.body, latency_ms)

    async def served_models(self) -> list[str]:
        """The model ids `GET {base_url}/models` lists, asked through the client every request uses (each address
        checked by the net policy just before connecting, no redirect followed, the answer capped); `StatusError`
        (status 0: no answer; 200: an answer that is not a model list) when there is none."""
        url = self.base_url + "/models"
        try:
            resp = await self._request("GET", "/models")
        except _NO_ANSWER as e:
            if isinstance(e, (NetRefused, TooLarge, NotHTTP)):  # an address refused, an answer not to be read
                raise self._no_answer(e, url) from None
            if isinstance(e, TimeoutError):
                reason = f"no answer within {self.timeout_s:g}s"
            elif isinstance(e, (Disconnected, ConnectFailed)):
                reason = str(e)
            else:
                reason = f"client error: {type(e).__name__}: {e}"
            raise StatusError(self._redact(f"cannot reach {url}: {reason}"), retryable=True) from None
        status, raw = resp.status, resp.body
        kind = resp.headers.get("content-type", "no content type").split(";")[0]
        if status != 200:
            raise self._status_error(status, raw, None, url)
        try:
            return [str(m["id"]) for m in json.loads(raw)["data"]]
        except (ValueError, KeyError, TypeError):
            raise StatusError(f"{url} does not speak the OpenAI API: GET /models answered {kind}, not a model list "
                              "(is base_url the server's /v1 base?)", status=200, retryable=False) from None

    def _status_error(self, status: int, raw: bytes, retry_after: str | None, url: str) -> StatusError:
        snippet = raw[:300].decode("utf-8", "replace").strip()
        message = self._redact(f"HTTP {status} from {url}: {snippet}")
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


def _message(m: ChatMessage) -> dict[str, Any]:
    if isinstance(m.content, str):
        return {"role": m.role, "content": m.content}
    return {"role": m.role, "content": list(m.content)}
