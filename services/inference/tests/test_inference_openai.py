"""The OpenAI-compatible backend against the fault-injecting server: every fault retried or recorded."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

import pytest
from livetab.models.base import ChatMessage, Completion, GenerateRequest, ModelError, SamplingParams
from livetab.models.openai_compat import OpenAIBackend, parse_retry_after
from livetab.models.resilience import Resilience, RetryPolicy

from tests.fakes.fault_server import Scenario, ThreadedFaultServer

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def request(text: str = "how many rows are there", *, n: int = 1, seed: int = 7) -> GenerateRequest:
    return GenerateRequest([ChatMessage("system", "be brief"), ChatMessage("user", text)],
                           SamplingParams(temperature=0.6, top_p=0.9, max_tokens=16, seed=seed, n=n))


def backend(url: str, *, attempts: int = 3, timeout_s: float = 5.0, **kw: Any) -> OpenAIBackend:
    guard = Resilience(url, retry=RetryPolicy(max_attempts=attempts, base_delay_s=0.01, max_delay_s=0.05))
    return OpenAIBackend(url, "fake-model", timeout_s=timeout_s, resilience=guard, **kw)


async def generate_once(b: OpenAIBackend, req: GenerateRequest) -> list[Completion]:
    try:
        return await b.generate(req)
    finally:
        await b.close()


def test_answer_tokens_and_latency(fault_server: ThreadedFaultServer) -> None:
    out = run(generate_once(backend(fault_server.set("ok", Scenario())), request()))
    assert [c.text for c in out] == ["seed=7 choice=0 words=5"]
    assert out[0].prompt_tokens == 5 and out[0].completion_tokens == 4 and out[0].latency_ms > 0


def test_n_sent_natively_when_the_server_honours_it(fault_server: ThreadedFaultServer) -> None:
    url = fault_server.set("n-native", Scenario())
    out = run(generate_once(backend(url), request(n=3)))
    assert [c.text.split()[1] for c in out] == ["choice=0", "choice=1", "choice=2"]
    assert fault_server.count("n-native") == 1


def test_n_looped_with_a_seed_per_sample_when_the_server_ignores_it(fault_server: ThreadedFaultServer) -> None:
    url = fault_server.set("n-ignored", Scenario(honour_n=False))
    b = backend(url)

    async def twice() -> tuple[list[Completion], list[Completion]]:
        try:
            return await b.generate(request(n=4, seed=10)), await b.generate(request(n=4, seed=10))
        finally:
            await b.close()

    first, second = run(twice())
    assert [c.text.split()[0] for c in first] == ["seed=10", "seed=11", "seed=12", "seed=13"]
    assert [c.text for c in first] == [c.text for c in second]
    assert b.n_mode == "loop"
    assert fault_server.count("n-ignored") == 4 + 4  # the first call's one choice is kept as sample 0


def test_429_with_retry_after_waits_and_succeeds(fault_server: ThreadedFaultServer) -> None:
    url = fault_server.set("429", Scenario(mode="429", retry_after_s=0.3, fail_first=2))
    t0 = time.perf_counter()
    out = run(generate_once(backend(url, attempts=4), request()))
    elapsed = time.perf_counter() - t0
    assert out[0].text.startswith("seed=7")
    assert fault_server.count("429") == 3
    assert elapsed >= 0.6  # two waits of Retry-After, not the 10 ms backoff


def test_500s_are_retried_then_failed_with_the_reason(fault_server: ThreadedFaultServer) -> None:
    url = fault_server.set("500", Scenario(mode="500"))
    with pytest.raises(ModelError) as info:
        run(generate_once(backend(url, attempts=3), request()))
    assert "HTTP 500" in str(info.value) and "gave up after 3 attempts" in str(info.value)
    assert info.value.retryable
    assert fault_server.count("500") == 3


def test_a_passing_500_is_cured_by_a_retry(fault_server: ThreadedFaultServer) -> None:
    url = fault_server.set("500-once", Scenario(mode="500", fail_first=1))
    assert run(generate_once(backend(url), request()))[0].text.startswith("seed=7")
    assert fault_server.count("500-once") == 2


def test_a_slow_server_times_out(fault_server: ThreadedFaultServer) -> None:
    url = fault_server.set("slow", Scenario(mode="timeout", delay_s=3.0))
    t0 = time.perf_counter()
    with pytest.raises(ModelError, match=r"timeout after 0.3s .*2 attempts"):
        run(generate_once(backend(url, attempts=2, timeout_s=0.3), request()))
    assert time.perf_counter() - t0 < 2.5
    assert fault_server.count("slow") == 2


def test_a_hanging_server_times_out(fault_server: ThreadedFaultServer) -> None:
    url = fault_server.set("hang", Scenario(mode="hang"))
    t0 = time.perf_counter()
    with pytest.raises(ModelError, match=r"timeout after 0\.2s"):
        run(generate_once(backend(url, attempts=1, timeout_s=0.2), request()))
    assert time.perf_counter() - t0 < 2.0


def test_truncated_json_is_retried_then_reported(fault_server: ThreadedFaultServer) -> None:
    url = fault_server.set("truncated", Scenario(mode="truncated"))
    with pytest.raises(ModelError, match="invalid JSON"):
        run(generate_once(backend(url, attempts=2), request()))
    assert fault_server.count("truncated") == 2


def test_a_dropped_keepalive_connection_is_resent_at_once(fault_server: ThreadedFaultServer) -> None:
    url = fault_server.set("drop", Scenario(mode="disconnect", fail_first=1))
    b = backend(url, attempts=1)  # no backoff retries: only the immediate re-send can save it
    out = run(generate_once(b, request()))
    assert out[0].text.startswith("seed=7")
    assert b.stale_retries == 1 and fault_server.count("drop") == 2


def test_a_client_error_is_not_retried(fault_server: ThreadedFaultServer) -> None:
    b = backend(fault_server.url("no-such-scenario"), attempts=4)
    with pytest.raises(ModelError) as info:
        run(generate_once(b, request()))
    assert "HTTP 404" in str(info.value) and "attempts" not in str(info.value)
    assert not info.value.retryable


def test_api_key_from_a_secret_reference_is_never_shown(fault_server: ThreadedFaultServer) -> None:
    secret = "sk-test-0123456789abcdef"
    url = fault_server.set("auth", Scenario(mode="500", echo_auth=True))
    b = backend(url, attempts=1, api_key_ref="LIVETAB_TEST_KEY", env={"LIVETAB_TEST_KEY": secret})
    assert secret not in repr(b) and "LIVETAB_TEST_KEY" in repr(b)
    with pytest.raises(ModelError) as info:
        run(generate_once(b, request()))
    assert "Bearer ***" in str(info.value)  # the server echoed the header: the client redacted it
    assert secret not in str(info.value)


def test_a_missing_secret_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="NOPE_NOT_SET"):
        OpenAIBackend("http://127.0.0.1:1/v1", "m", api_key_ref="NOPE_NOT_SET", env={})


def test_extra_body_parameters_are_sent(fault_server: ThreadedFaultServer) -> None:
    # The fake answers `seed=<seed>`: an extra body field overrides what the backend would send.
    url = fault_server.set("extra", Scenario())
    out = run(generate_once(backend(url, extra_body={"seed": 99, "top_k": 20}), request(seed=1)))
    assert out[0].text.startswith("seed=99")


def test_reasoning_field_is_kept_apart(fault_server: ThreadedFaultServer) -> None:
    url = fault_server.set("reasoner", Scenario(reasoning=True))
    out = run(generate_once(backend(url), request()))
    assert out[0].reasoning == "field reasoning"
    assert out[0].text.startswith("<think>")  # inline blocks are split by the inference service's runner


def test_connection_refused_is_retryable_and_reported() -> None:
    with pytest.raises(ModelError, match="connection error") as info:
        run(generate_once(backend("http://127.0.0.1:9/v1", attempts=2), request()))
    assert info.value.retryable


def test_image_content_parts_are_sent_as_openai_parts(fault_server: ThreadedFaultServer) -> None:
    url = fault_server.set("vision", Scenario())
    parts: list[dict[str, object]] = [{"type": "text", "text": "what is in the table"},
                                      {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]
    req = GenerateRequest([ChatMessage("system", "s"), ChatMessage("user", parts)])
    out = run(generate_once(backend(url), req))
    assert out[0].text.endswith("words=5 images=1")
    assert fault_server.count("vision") == 1


@pytest.mark.parametrize(("header", "expected"), [("2", 2.0), ("0.5", 0.5), ("-3", 0.0), ("soon", None),
                                                  (None, None)])
def test_parse_retry_after(header: str | None, expected: float | None) -> None:
    assert parse_retry_after(header) == expected


def test_parse_retry_after_http_date() -> None:
    from email.utils import formatdate

    value = parse_retry_after(formatdate(time.time() + 30, usegmt=True))
    assert value is not None and 25 <= value <= 31


@pytest.mark.parametrize("key", ["sk-1\r\nX-Injected: yes", "sk-ключ"])
def test_a_key_that_cannot_go_in_a_header_is_refused_when_the_backend_is_made(key: str) -> None:
    with pytest.raises(ValueError, match=r"LIVETAB_TEST_KEY.*cannot be sent") as info:
        OpenAIBackend("http://127.0.0.1:1/v1", "m", api_key_ref="LIVETAB_TEST_KEY", env={"LIVETAB_TEST_KEY": key})
    assert key not in str(info.value)


def _plain_body(backend: OpenAIBackend, request: GenerateRequest, seed: int, n: int) -> bytes:
    """The body as json.dumps writes the whole request at once (what `payload` must equal, byte for byte)."""
    s = request.sampling
    body: dict[str, Any] = {"model": backend.model}
    if request.prompt:
        body["prompt"] = request.prompt
    else:
        body["messages"] = [{"role": m.role, "content": m.content if isinstance(m.content, str) else list(m.content)}
                            for m in request.messages]
    if request.stop:
        body["stop"] = list(request.stop)
    body.update({"temperature": s.temperature, "top_p": s.top_p, "max_tokens": s.max_tokens, "seed": seed})
    if n > 1:
        body["n"] = n
    body.update(backend.extra_body)
    return json.dumps(body, ensure_ascii=False).encode()


@pytest.mark.parametrize("extra", [{}, {"top_k": 5}, {"model": "override"}, {"messages": []}, {"seed": 1}])
def test_the_body_is_the_requests_json_and_a_shared_prompt_is_written_once(extra: dict[str, Any],
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    backend = OpenAIBackend("http://127.0.0.1:1/v1", "m\u00e9\"x", extra_body=extra)
    messages = [ChatMessage("system", "Answer briefly."),
                ChatMessage("user", "| année | \u0645\u062f\u064a\u0646\u0629 |\n|---|---|\n| 2025 | \"x\"\\ |\n\t\x01")]
    requests = [GenerateRequest(messages, SamplingParams(temperature=0.7, top_p=0.9, max_tokens=16, seed=3)),
                GenerateRequest(messages, SamplingParams(max_tokens=8), stop=("\n\n", "Q:")),
                GenerateRequest(messages, SamplingParams(), prompt="Q: 1+1?\nA:", stop=("\n",))]
    import livetab.models.openai_compat as oc

    encoded = []
    real_dumps = oc.json.dumps

    def dumps(obj: Any, **kw: Any) -> str:  # counts the messages lists written
        if isinstance(obj, list):
            encoded.append(len(obj))
        return str(real_dumps(obj, **kw))

    monkeypatch.setattr(oc.json, "dumps", dumps)
    for seed in range(4):
        for n in (1, 3):
            for request in requests:
                assert backend.payload(request, seed, n) == _plain_body(backend, request, seed, n)
    assert json.loads(backend.payload(requests[0], 9))["seed"] == (extra.get("seed", 9))
    # the chat requests share one list of messages: written once (none when an extra "messages" replaces them)
    assert encoded == ([] if "messages" in extra else [2])
