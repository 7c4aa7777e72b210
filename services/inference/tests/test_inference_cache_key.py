"""The answer cache is keyed by everything that can change an answer: model, endpoint, prompt and every
sampling parameter, the seed included. If the seed were left out, samples 2..N of a question would
silently reuse sample 1's answer and pass@k / cons@k would collapse to pass@1."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from livetab.bus import HandlerContext
from livetab.models.base import ChatMessage
from livetab.settings import Settings
from livetab.store import schema
from livetab.v1 import common_pb2, inference_pb2
from livetab_inference.handler import InferenceHandler, cache_key, prompt_json

from services.inference.tests.inference_data import one_question_store
from tests.fakes.fault_server import Scenario, ThreadedFaultServer

MODEL = common_pb2.ModelSpec(name="m", backend="openai", base_url="http://127.0.0.1:1/v1", model="m-1")
MESSAGES = [ChatMessage(role="system", content="Answer briefly."),
            ChatMessage(role="user", content="Which team has the most points?")]
SAMPLING = common_pb2.Sampling(temperature=0.7, top_p=0.9, max_tokens=32, seed=11)


def _variant(**changes: object) -> str:
    model = common_pb2.ModelSpec()
    model.CopyFrom(MODEL)
    sampling = common_pb2.Sampling()
    sampling.CopyFrom(SAMPLING)
    messages = list(MESSAGES)
    for name, value in changes.items():
        if name == "content":
            messages[-1] = ChatMessage(role=messages[-1].role, content=str(value))
        elif name == "role":
            messages[0] = ChatMessage(role=str(value), content=messages[0].content)
        elif name in ("backend", "base_url", "model"):
            setattr(model, name, value)
        else:
            setattr(sampling, name, value)
    return cache_key(model, messages, sampling)


def test_same_call_same_key() -> None:
    assert cache_key(MODEL, MESSAGES, SAMPLING) == _variant()
    assert len(cache_key(MODEL, MESSAGES, SAMPLING)) == 64


def test_every_input_of_an_answer_changes_the_key() -> None:
    base = _variant()
    changed = {
        "seed": _variant(seed=12),
        "temperature": _variant(temperature=0.2),
        "top_p": _variant(top_p=0.5),
        "max_tokens": _variant(max_tokens=64),
        "model": _variant(model="m-2"),
        "base_url": _variant(base_url="http://127.0.0.1:2/v1"),
        "backend": _variant(backend="llama_local"),
        "prompt": _variant(content="Which team has the fewest points?"),
        "role": _variant(role="user"),
    }
    same = [name for name, key in changed.items() if key == base]
    assert not same, f"the cache key ignores {same}"
    assert len(set(changed.values())) == len(changed)


def test_the_key_is_the_documented_recipe() -> None:
    """Keys live in the store across releases: the recipe (sha256 of the sorted JSON of backend, endpoint,
    model id, the prompt's sha256 and the sampling list) is the format of every cached answer, so changing
    it silently makes every cached answer unreachable. Restated here from the handler's docstring."""
    prompt = json.dumps([{"content": m.content, "role": m.role} for m in MESSAGES], ensure_ascii=False)
    blob = json.dumps({"backend": "openai", "base_url": "http://127.0.0.1:1/v1", "model": "m-1",
                       "prompt": hashlib.sha256(prompt.encode()).hexdigest(),
                       "sampling": [0.7, 0.9, 32, 11]})
    assert cache_key(MODEL, MESSAGES, SAMPLING) == hashlib.sha256(blob.encode()).hexdigest()
    arabic = [ChatMessage(role="user", content="ما عدد الأهداف؟")]  # the prompt is hashed as UTF-8, not escaped
    prompt = json.dumps([{"content": "ما عدد الأهداف؟", "role": "user"}], ensure_ascii=False)
    blob = json.dumps({"backend": "openai", "base_url": "http://127.0.0.1:1/v1", "model": "m-1",
                       "prompt": hashlib.sha256(prompt.encode()).hexdigest(), "sampling": [0.7, 0.9, 32, 11]})
    assert cache_key(MODEL, arabic, SAMPLING) == hashlib.sha256(blob.encode()).hexdigest()


def test_the_prompt_is_written_as_json_dumps_writes_it() -> None:
    """The prompt's JSON is written directly for text messages: byte for byte what json.dumps gives."""
    texts = ["", "plain", 'quotes " and \\ backslash', "lines\nand\ttabs\r", "control \x00\x01\x1f\x7f",
             "ما عدد الأهداف؟", "emoji 🙂 and \u2028 separators \u2029", "lone surrogate \ud800", "€ ß 中文"]
    for role in ("system", "user", 'odd"role'):
        for text in texts:
            messages = [ChatMessage(role="system", content="Answer briefly."), ChatMessage(role=role, content=text)]
            want = json.dumps([{"role": m.role, "content": m.content} for m in messages], ensure_ascii=False,
                              sort_keys=True)
            assert prompt_json(messages) == want, (role, text)
    assert prompt_json([]) == "[]"
    parts = [ChatMessage(role="user", content=[{"type": "text", "text": "x"}])]  # not text: through json.dumps
    assert prompt_json(parts) == json.dumps([{"content": [{"text": "x", "type": "text"}], "role": "user"}],
                                            ensure_ascii=False)


def test_temperatures_are_compared_to_six_places() -> None:
    # what a YAML file or an API client writes as 0.7 arrives as a 32-bit float: still the same setting
    assert _variant(temperature=0.7) == _variant(temperature=0.7000000001) == _variant(temperature=0.70000004)
    assert _variant(temperature=0.7) != _variant(temperature=0.8) != _variant(temperature=0.75)
    assert _variant(top_p=0.9) != _variant(top_p=0.95) and _variant(top_p=0.9) == _variant(top_p=0.9000000001)
    assert _variant(top_p=0.1234561) == _variant(top_p=0.1234564) != _variant(top_p=0.1234574)
    assert _variant(temperature=0.1234564) != _variant(temperature=0.1234574)
    assert _variant(temperature=0.1234561) == _variant(temperature=0.1234564)  # the seventh place is noise


def test_the_model_name_stands_in_only_when_no_model_id_is_given() -> None:
    # two configurations with the same model id are the same model, whatever their display names
    a = common_pb2.ModelSpec(name="a", backend="openai", base_url="u", model="x")
    b = common_pb2.ModelSpec(name="b", backend="openai", base_url="u", model="x")
    assert cache_key(a, MESSAGES, SAMPLING) == cache_key(b, MESSAGES, SAMPLING)
    c = common_pb2.ModelSpec(name="a", backend="openai", base_url="u")
    d = common_pb2.ModelSpec(name="b", backend="openai", base_url="u")
    assert cache_key(c, MESSAGES, SAMPLING) != cache_key(d, MESSAGES, SAMPLING)


def test_samples_of_one_question_each_get_their_own_answer(tmp_path: Path) -> None:
    """k samples of one question, as the planner makes them (seed = base seed + sample index), each
    handled in its own batch as a worker may: every sample is asked of the model, none is served the
    answer of another sample from the cache; asking again serves each sample its own cached answer."""
    store, q = one_question_store(tmp_path / "inf.db")
    ctx = HandlerContext(store=store, settings=Settings())
    with ThreadedFaultServer() as server:
        url = server.set("samples", Scenario())
        model = common_pb2.ModelSpec(name="fake", backend="openai", base_url=url, model="fake-model")
        requests = [inference_pb2.InferenceRequest(
            id=f"req-{i}", run_id="run", question_id=q.id, model=model, format="markdown", setting="with_table",
            sample_index=i, sampling=common_pb2.Sampling(temperature=0.8, max_tokens=8, seed=100 + i))
            for i in range(4)]
        handler = InferenceHandler(timeout_s=10)
        answers = [handler.handle_batch([r], ctx)[0].message for r in requests]
        assert [a.response.split()[0] for a in answers] == ["seed=100", "seed=101", "seed=102", "seed=103"]
        assert not any(a.cached for a in answers)
        assert server.count("samples") == 4 and handler.model_answers == 4 and handler.cache_hits == 0

        again = [handler.handle_batch([r], ctx)[0].message for r in reversed(requests)]
        assert [a.response.split()[0] for a in again] == ["seed=103", "seed=102", "seed=101", "seed=100"]
        assert all(a.cached for a in again) and server.count("samples") == 4
    store.close()


def test_a_polls_samples_share_one_built_prompt_and_each_keeps_its_own_answer(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A poll holding a question's samples (and the same question in another format) builds each distinct
    prompt once; every sample is still asked with its own seed, and stores the same prompt hash and cache key
    as when it is handled alone."""
    alone_store, q = one_question_store(tmp_path / "alone.db")
    poll_store, _ = one_question_store(tmp_path / "poll.db")
    with ThreadedFaultServer() as server:
        url = server.set("shared", Scenario())
        model = common_pb2.ModelSpec(name="fake", backend="openai", base_url=url, model="fake-model")
        requests = [inference_pb2.InferenceRequest(
            id=f"req-{fmt}-{i}", run_id="run", question_id=q.id, model=model, format=fmt, setting="with_table",
            sample_index=i, sampling=common_pb2.Sampling(temperature=0.8, max_tokens=8, seed=100 + i))
            for fmt in ("markdown", "html") for i in range(4)]
        alone_ctx = HandlerContext(store=alone_store, settings=Settings())
        alone = [InferenceHandler(timeout_s=10).handle_batch([r], alone_ctx)[0].message for r in requests]

        handler = InferenceHandler(timeout_s=10)
        builds: list[object] = []
        real = handler._prompts.build

        def build(*args: Any, **kw: Any) -> Any:  # counts the prompts built
            builds.append(kw["fmt"])
            return real(*args, **kw)

        monkeypatch.setattr(handler._prompts, "build", build)
        polled = [o.message for o in handler.handle_batch(requests, HandlerContext(store=poll_store,
                                                                                   settings=Settings()))]
        assert sorted(builds) == ["html", "markdown"]  # two prompts for eight requests
        assert server.count("shared") == 16 and not any(a.cached for a in polled)
        assert [a.response.split()[0] for a in polled] == [f"seed={100 + i}" for i in range(4)] * 2
        assert [a.prompt_sha256 for a in polled] == [a.prompt_sha256 for a in alone]
        assert len({a.prompt_sha256 for a in polled}) == 2
        keys = {row["key"] for row in poll_store.select(schema.response_cache)}
        assert len(keys) == 8 and keys == {row["key"] for row in alone_store.select(schema.response_cache)}
    alone_store.close()
    poll_store.close()
