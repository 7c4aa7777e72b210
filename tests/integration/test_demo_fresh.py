"""The demo as `make run` configures it (deploy/demo.yaml): fresh FreshTab tables in a second language beside
the 2012–14 WTQ pages, so the report's language slice and freshness views have real data, and a report.html
with two real models that a person can read.

The first test swaps the demo's two models for the scripted oracle under the same names and declared
knowledge cutoffs (fast, and every answer right, so the slices are about data, not luck); the second runs the
demo's real models on a few questions and looks at the page in headless Chromium."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from livetab.paths import repo_root
from livetab.settings import Settings, load_settings
from livetab_cli.embedded import run_embedded

from tests.support.browser import look_at

DEMO = repo_root() / "deploy" / "demo.yaml"


def _demo(tmp: Path, **run: Any) -> tuple[dict[str, Any], Settings]:
    cfg = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
    cfg["out_dir"] = str(tmp / "out")
    cfg["store"] = {"url": f"sqlite:///{tmp / 'demo.db'}"}
    for source in cfg["sources"]:
        source["location"] = str(repo_root() / source["location"])
    cfg["run"].update(run)
    path = tmp / "demo.yaml"
    path.write_text(yaml.safe_dump(cfg), encoding="utf-8")
    return cfg, load_settings(path, env={})


def test_demo_has_fresh_tables_in_two_languages_on_both_sides_of_a_cutoff(tmp_path: Path) -> None:
    cfg, settings = _demo(tmp_path)
    cutoffs = {m["name"]: m["knowledge_cutoff"] for m in cfg["models"]}
    assert len(cutoffs) == 2 and all(cutoffs.values())  # both demo models declare one
    oracle = settings.model_copy(update={"models": [
        m.model_copy(update={"backend": "scripted", "params": {"policy": "oracle"}, "prompt_mode": "chat",
                             "shots": 0}) for m in settings.models]})
    run_embedded(oracle)
    doc = json.loads((tmp_path / "out" / "leaderboard.json").read_text(encoding="utf-8"))
    assert {m["model"] for m in doc["models"]} == set(cutoffs)
    for m in doc["models"]:
        assert m["accuracy"] == 1.0  # the oracle: every slice below is about the data
        languages = m["slices"]["language"]
        assert {"en", "de"} <= set(languages) and all(v["n"] > 0 for v in languages.values())
        assert m["knowledge_cutoff"] == cutoffs[m["model"]]
        assert m["freshness"]["after_cutoff"]["n"] > 0
    gemma = next(m for m in doc["models"] if m["model"] == "gemma3-270m")
    view = gemma["contamination"]  # real source dates on both sides of Gemma's declared cutoff
    assert view["split_by"] == "knowledge_cutoff" and view["split_date"] == cutoffs["gemma3-270m"]
    assert view["fresh"]["n"] > 0 and view["older"]["n"] > 0


@pytest.mark.model
def test_demo_report_with_two_real_models_looks_right(tmp_path: Path) -> None:
    cfg, settings = _demo(tmp_path, limit=4)
    run_embedded(settings)
    out = tmp_path / "out"
    doc = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    names = [m["name"] for m in cfg["models"]]
    assert sorted(m["model"] for m in doc["models"]) == sorted(names)
    assert all(m["n"] == 4 and m["mean_completion_tokens"] > 0 for m in doc["models"])
    found, dom = look_at(out / "report.html", repo_root() / "out" / "test-report" / "demo-report.png")
    assert {"Accuracy per model", "Accuracy by format"} <= {label for label, *_ in found["figs"]}
    assert all(w > 200 and h > 100 and shown > 200 and texts >= 8 for _, w, h, shown, texts in found["figs"]), found["figs"]
    assert {"Ranking", "Figures", "Breakdowns"} <= set(found["h2"])
    assert all(name in dom for name in names)
