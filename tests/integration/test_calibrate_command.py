"""`livetab calibrate` end to end on the real data (the model-free figures), and the figures in every
report a release carries: the dataset card (release/README.md), leaderboard.json/.md and report.html.
Without a `livetab calibrate`, the commands that write those files compute the model-free figures
themselves and say "not computed" for the model-based ones."""

from __future__ import annotations

import html
import json
import math
from pathlib import Path

import pytest
import yaml
from livetab.calibration import COMPUTED, NOT_COMPUTED, headline
from livetab_cli.calibrate import AUTO_COMMAND
from livetab_cli.main import main

from tests.support.sample import sample_pages

MODEL_FREE = {"rule_vs_human_wtq", "rule_vs_wtq_exact_match", "insight_baseline_vs_tata"}
MODEL_BASED = {"insight_llm_vs_tata", "validator_vs_tabfact"}


def _config(tmp_path: Path) -> Path:
    pages = sample_pages(tmp_path / "pages", ["203-733"])
    cfg = {"out_dir": str(tmp_path / "out"), "store": {"url": f"sqlite:///{tmp_path / 's.db'}"},
           "sources": [{"kind": "local_html", "location": str(pages)}],
           "qagen": {"families": ["direct"], "per_table": 2}, "run": {"release": "cal"}}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def _kappa(confusion: dict[str, int]) -> float:
    """Cohen's kappa from the decided cells of the published counts, computed here on its own."""
    cells = {tuple(k.split("/")): v for k, v in confusion.items() if not k.startswith("uncertain/")}
    n = sum(cells.values())
    labels = {x for pair in cells for x in pair}
    po = sum(v for (a, b), v in cells.items() if a == b) / n
    pe = sum(sum(v for (a, _), v in cells.items() if a == c) * sum(v for (_, b), v in cells.items() if b == c)
             for c in labels) / (n * n)
    return (po - pe) / (1 - pe)


def _check_figures(doc: dict[str, object]) -> list[dict[str, object]]:
    figures = doc["figures"]
    assert isinstance(figures, list)
    assert {f["key"] for f in figures} == MODEL_FREE | MODEL_BASED
    for f in figures:
        for k in ("compares", "method", "data", "licence", "judge", "computed_at"):
            assert str(f[k]).strip(), (f["key"], k)
        if f["key"] in MODEL_FREE:
            assert f["status"] == COMPUTED and f["n"] > 0
            assert sum(f["confusion"].values()) == f["n"]
            assert math.isclose(f["values"]["kappa"], _kappa(f["confusion"]), abs_tol=1e-12)
        else:
            assert f["status"] == NOT_COMPUTED and f["n"] == 0 and not f["values"]
            assert "--limit-llm" in f["note"]
    by_key = {f["key"]: f for f in figures}
    assert by_key["rule_vs_wtq_exact_match"]["n"] == 600 and by_key["insight_baseline_vs_tata"]["n"] == 806
    return figures


def _shown_in(text: str, figures: list[dict[str, object]]) -> None:
    for f in figures:
        assert str(f["compares"]) in text and headline(f) in text, f["key"]
        if f["status"] == COMPUTED:
            assert f"| {f['n']} |" in text or f"<td>{f['n']}</td>" in text


def test_calibrate_then_release_and_report(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    cfg = _config(tmp_path)
    out = tmp_path / "out"
    assert main(["calibrate", "--config", str(cfg)]) == 0
    printed = capfd.readouterr().out
    doc = json.loads((out / "calibration.json").read_text(encoding="utf-8"))
    assert doc["command"] == "livetab calibrate"
    figures = _check_figures(doc)
    for f in figures:
        assert f"{f['key']}: n={f['n']} {headline(f)}" in printed
    _shown_in((out / "calibration.md").read_text(encoding="utf-8"), figures)

    assert main(["generate", "--config", str(cfg)]) == 0
    card = (out / "release" / "README.md").read_text(encoding="utf-8")
    assert "## Judge calibration" in card and "Recomputed by `livetab calibrate`" in card
    _shown_in(card, figures)

    assert main(["report", "--config", str(cfg)]) == 0
    board = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    assert [f["key"] for f in board["calibration"]["figures"]] == [f["key"] for f in figures]
    assert board["calibration"]["figures"][0]["values"] == figures[0]["values"]
    _shown_in((out / "leaderboard.md").read_text(encoding="utf-8"), figures)
    page = html.unescape((out / "report.html").read_text(encoding="utf-8"))
    assert "<h2>Judge calibration</h2>" in page
    _shown_in(page, figures)


def test_release_without_calibrate_computes_the_model_free_figures(tmp_path: Path) -> None:
    cfg = _config(tmp_path)
    out = tmp_path / "out"
    assert main(["generate", "--config", str(cfg)]) == 0
    doc = json.loads((out / "calibration.json").read_text(encoding="utf-8"))
    assert doc["command"] == AUTO_COMMAND
    figures = _check_figures(doc)
    card = (out / "release" / "README.md").read_text(encoding="utf-8")
    _shown_in(card, figures)
    assert card.count("not computed: needs a model") == len(MODEL_BASED)
    before = (out / "calibration.json").read_bytes()
    assert main(["release", "--config", str(cfg)]) == 0  # recomputed, unchanged: the file and its dates stay
    assert (out / "calibration.json").read_bytes() == before


@pytest.mark.model
@pytest.mark.slow
def test_model_based_figures_with_the_local_model(tmp_path: Path) -> None:
    """--limit-llm 2: the LLM insight judge and the validator (SmolLM2 on the CPU) on 2 items each."""
    cfg = _config(tmp_path)
    assert main(["calibrate", "--config", str(cfg), "--limit-llm", "2"]) == 0
    doc = json.loads((tmp_path / "out" / "calibration.json").read_text(encoding="utf-8"))
    assert doc["command"] == "livetab calibrate --limit-llm 2"
    by_key = {f["key"]: f for f in doc["figures"]}
    assert set(by_key) == MODEL_FREE | MODEL_BASED | {"insight_baseline_vs_tata_llm_subset"}
    for key in (*MODEL_BASED, "insight_baseline_vs_tata_llm_subset"):
        f = by_key[key]
        assert f["status"] == COMPUTED and f["n"] == 2 and sum(f["confusion"].values()) == 2, f
        assert "smollm2-135m" in f["judge"] or key.startswith("insight_baseline")
    tabfact = by_key["validator_vs_tabfact"]
    right = sum(v for k, v in tabfact["confusion"].items() if k.split("/")[0] == k.split("/")[1])
    assert math.isclose(tabfact["values"]["accuracy"], right / 2)
    md = (tmp_path / "out" / "calibration.md").read_text(encoding="utf-8")
    assert md.count("| 2 |") == 3 and "not computed" not in md
