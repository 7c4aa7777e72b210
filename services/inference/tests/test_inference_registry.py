"""Model specs to backends: every kind, options checked, endpoints share one guard."""

from __future__ import annotations

import pytest
from livetab.models.openai_compat import OpenAIBackend
from livetab.models.registry import EndpointGuards, backend_from_spec, spec_to_dict
from livetab.v1 import common_pb2


def test_openai_from_a_proto_spec_with_options_and_extra_body() -> None:
    spec = common_pb2.ModelSpec(name="team-a", backend="openai", base_url="http://127.0.0.1:8000/v1/",
                                model="qwen3", api_key_ref="TEAM_A_KEY",
                                params={"concurrency": "32", "timeout_s": "30", "n_mode": "loop",
                                        "requests_per_minute": "600", "body.top_k": "20",
                                        "body.chat_template_kwargs": '{"enable_thinking": false}'})
    b = backend_from_spec(spec, env={"TEAM_A_KEY": "secret-value"})
    assert isinstance(b, OpenAIBackend)
    assert (b.name, b.model, b.base_url, b.concurrency, b.timeout_s, b.n_mode) == (
        "team-a", "qwen3", "http://127.0.0.1:8000/v1", 32, 30.0, "loop")
    assert b.extra_body == {"top_k": 20, "chat_template_kwargs": {"enable_thinking": False}}
    assert b.resilience.max_concurrency == 32 and b.resilience.limiter is not None and b.resilience.limiter.active
    assert "secret-value" not in repr(b)


def test_backends_of_one_endpoint_share_a_guard() -> None:
    guards = EndpointGuards()
    a = backend_from_spec({"name": "a", "backend": "openai", "base_url": "http://h:1/v1", "model": "x"}, guards=guards)
    b = backend_from_spec({"name": "b", "backend": "openai", "base_url": "http://h:1/v1", "model": "y"}, guards=guards)
    c = backend_from_spec({"name": "c", "backend": "openai", "base_url": "http://h:2/v1", "model": "x"}, guards=guards)
    assert isinstance(a, OpenAIBackend) and isinstance(b, OpenAIBackend) and isinstance(c, OpenAIBackend)
    assert a.resilience is b.resilience and a.resilience is not c.resilience and len(guards) == 2


@pytest.mark.parametrize(("spec", "message"), [
    ({"name": "x", "backend": "vllm"}, "backend must be one of"),
    ({"name": "x", "backend": "openai", "base_url": "http://h/v1", "params": {"concurency": "4"}}, "concurency"),
    ({"name": "x", "backend": "openai", "base_url": "h:1", "model": "m"}, "http://"),
    ({"name": "x", "backend": "openai", "base_url": "http://h/v1", "params": {"timeout_s": "soon"}}, "soon"),
    ({"name": "x", "backend": "openai", "base_url": "http://h/v1", "params": {"extra_body": "[1]"}}, "JSON object"),
    ({"name": "x", "backend": "openai", "base_url": "http://h/v1", "api_key_ref": "UNSET_KEY_REF"}, "UNSET_KEY_REF"),
    ({"name": "x", "backend": "grpc", "base_url": "nohostport"}, "host:port"),
    ({"name": "x", "backend": "llama_local", "params": {"temperature": "1"}}, "temperature"),
])
def test_bad_specs_name_the_problem(spec: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        backend_from_spec(spec, env={})


def test_dict_top_level_options_count_as_params() -> None:
    d = spec_to_dict({"name": "m", "backend": "llama_local", "n_ctx": 2048, "pool": "remote", "base_url": ""})
    assert d["params"] == {"n_ctx": 2048} and d["pool"] == "remote"


def test_llama_local_is_built_lazily_from_the_lead_module() -> None:
    from livetab.models.llama_local import LlamaLocalBackend

    b = backend_from_spec({"name": "smol", "backend": "llama_local", "params": {"n_ctx": "1024", "n_threads": "1"}})
    assert isinstance(b, LlamaLocalBackend) and b.name == "smol"
