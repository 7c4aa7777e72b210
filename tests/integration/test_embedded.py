"""The embedded cycle with the real local model: files written, answers from SmolLM2, and a second run
over the same inputs re-does nothing."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from livetab.settings import load_settings
from livetab.store import open_store, schema
from livetab.v1 import inference_pb2
from livetab_cli.embedded import run_embedded
from livetab_reporter.document import load_schema

from tests.support.sample import sample_pages

pytestmark = [pytest.mark.model]


def test_embedded_cycle_is_real_and_resumable(tmp_path: Path) -> None:
    pages = sample_pages(tmp_path / "pages", ["203-733", "203-647"])
    cfg = {"out_dir": str(tmp_path / "out"), "store": {"url": f"sqlite:///{tmp_path / 'e.db'}"},
           "sources": [{"kind": "local_html", "location": str(pages)}],
           "qagen": {"families": ["direct", "reasoning", "fact"], "per_table": 3},
           "run": {"release": "t", "max_tokens": 16, "max_rows": 20}}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    settings = load_settings(path, env={})

    first = run_embedded(settings)
    n = first.after["questions"]
    assert n >= 4 and first.new["answers"] == n and first.model_answers == n, (
        n, first.new, first.model_answers, first.cache_hits, first.failures)
    doc = json.loads((tmp_path / "out" / "leaderboard.json").read_text())
    model = doc["models"][0]
    assert model["model"] == "smollm2-135m" and model["n"] == n
    jsonschema.Draft202012Validator(load_schema()).validate(doc)  # the versioned results schema
    assert model["mean_completion_tokens"] > 0 and model["mean_latency_ms"] > 0
    assert {"model", "n", "correct", "accuracy", "ci_low", "ci_high"} <= set(model)
    assert 0 <= model["ci_low"] <= model["accuracy"] <= model["ci_high"] <= 1
    for fam in model["families"].values():
        assert {"n", "correct", "accuracy", "ci_low", "ci_high"} <= set(fam)
    assert sum(f["n"] for f in model["families"].values()) == n
    assert (tmp_path / "out" / "report.html").read_text().count("<tr>") > n
    # release "t" is live: its questions are in the operator's private folder only
    assert not (tmp_path / "out" / "release" / "questions.jsonl").exists()
    lines = (tmp_path / "out" / "private" / "release" / "questions.jsonl").read_text().splitlines()
    assert len(lines) == n
    # no `livetab calibrate` ran: the run computed the model-free calibration figures for the reports
    calibration = json.loads((tmp_path / "out" / "calibration.json").read_text())["figures"]
    assert [f["key"] for f in doc["calibration"]["figures"]] == [f["key"] for f in calibration]
    assert {f["status"] for f in calibration} == {"computed", "not computed"}
    assert "## Judge calibration" in (tmp_path / "out" / "release" / "README.md").read_text()
    # the answers come from the model: non-empty text, not all the same, with real token counts
    store = open_store(settings.store.url)
    results = [inference_pb2.InferenceResult.FromString(r["payload"]) for r in store.select(schema.results)]
    assert all(r.response.strip() and r.prompt_tokens > 20 and r.completion_tokens > 0 for r in results)
    assert len({r.response for r in results}) > 1
    store.close()

    second = run_embedded(settings)
    assert second.model_answers == 0 and second.cache_hits == n
    assert all(v == 0 for v in second.new.values()), second.new
    again = json.loads((tmp_path / "out" / "leaderboard.json").read_text())
    assert again == doc
