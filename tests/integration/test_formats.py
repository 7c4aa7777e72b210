"""The table-format comparison: one run asks the same questions with the table in CSV, Markdown, HTML,
JSON and HTML+JSON, and the leaderboard reports accuracy and mean prompt tokens for each format.

Everything is real: two sample Wikipedia pages scraped, questions generated and verified by qagen, the
local SmolLM2-135M through llama-cpp-python answering, the rule judge and the reporter, all in the
embedded runner. Prompt tokens are the model's own count of each prompt.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from livetab.settings import load_settings
from livetab_cli.embedded import run_embedded

from tests.support.sample import sample_pages

pytestmark = [pytest.mark.model]
PAGES = ["203-575", "203-124"]  # two small tables (8 and 12 rows), so five renderings of each stay fast
FORMATS = ["csv", "markdown", "html", "json", "html+json"]
QUESTIONS = 3


def _config(tmp: Path) -> Path:
    pages = sample_pages(tmp / "pages", PAGES)
    cfg = {
        "out_dir": str(tmp / "out"),
        "store": {"url": f"sqlite:///{tmp / 'formats.db'}"},
        "sources": [{"kind": "local_html", "location": str(pages), "language": "en"}],
        "models": [{"name": "smollm2-135m", "backend": "llama_local", "n_ctx": 4096, "n_threads": 2}],
        "qagen": {"families": ["direct", "reasoning"], "per_table": 2},
        "run": {"team": "formats", "release": "formats", "formats": FORMATS, "limit": QUESTIONS,
                "max_tokens": 8, "temperature": 0.0, "seed": 11},
    }
    path = tmp / "formats.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def test_one_run_reports_accuracy_and_prompt_tokens_per_format(tmp_path: Path) -> None:
    summary = run_embedded(load_settings(_config(tmp_path)))
    assert summary.after["questions"] >= QUESTIONS, "the sample pages should give at least three questions"
    assert summary.model_answers == QUESTIONS * len(FORMATS)  # every question asked once in every format

    doc = json.loads((Path(summary.out_dir) / "leaderboard.json").read_text(encoding="utf-8"))
    assert len(doc["models"]) == 1
    model = doc["models"][0]
    assert model["n"] == QUESTIONS * len(FORMATS)
    by_format = model["slices"]["format"]
    assert sorted(by_format) == sorted(FORMATS)
    for fmt in FORMATS:
        row = by_format[fmt]
        assert row["n"] == QUESTIONS, (fmt, row)
        assert 0 <= row["correct"] <= row["n"]
        assert row["accuracy"] == pytest.approx(row["correct"] / row["n"], abs=1e-4)
        assert row["mean_prompt_tokens"] > 0, (fmt, row)
    tokens = {fmt: by_format[fmt]["mean_prompt_tokens"] for fmt in FORMATS}
    # Markup costs tokens: HTML is dearer than Markdown (TeleTables: Markdown ~42% cheaper), and HTML+JSON
    # holds both HTML and JSON renderings of the same table.
    assert tokens["html"] > tokens["markdown"], tokens
    assert tokens["html+json"] > max(tokens["html"], tokens["json"]), tokens

    lines = [f"{'format':<10} {'n':>3} {'correct':>7} {'accuracy':>8} {'mean prompt tokens':>18}"]
    for fmt in FORMATS:
        row = by_format[fmt]
        lines.append(f"{fmt:<10} {row['n']:>3} {row['correct']:>7} {row['accuracy']:>8.3f} "
                     f"{row['mean_prompt_tokens']:>18.1f}")
    saving = 1 - tokens["markdown"] / tokens["html"]
    lines.append(f"Markdown prompts are {saving:.0%} shorter than HTML prompts")
    print("\n" + "\n".join(lines))
