"""`livetab generate`, `infer` and `judge` one stage at a time over one store, with the real local model:
each finds what the previous one stored, a repeat redoes nothing, and a changed judge's verdicts replace
the old judge's in the leaderboard instead of adding to them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from livetab.store import open_store, schema
from livetab_cli.main import main

from tests.support.sample import sample_pages

pytestmark = [pytest.mark.model]


def _config(tmp_path: Path, **extra: Any) -> Path:
    pages = sample_pages(tmp_path / "pages", ["203-733", "203-647"])
    cfg = {"out_dir": str(tmp_path / "out"), "store": {"url": f"sqlite:///{tmp_path / 's.db'}"},
           "sources": [{"kind": "local_html", "location": str(pages)}],
           "qagen": {"families": ["direct", "fact"], "per_table": 2},
           "run": {"release": "st", "max_tokens": 12, "max_rows": 15}, **extra}
    path = tmp_path / f"c{len(extra)}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def said(capfd: pytest.CaptureFixture[str]) -> tuple[str, str]:
    """What the command printed to stdout and stderr, lines re-joined (the console wraps at its width)."""
    got = capfd.readouterr()
    return " ".join(got.out.split()), " ".join(got.err.split())


def test_stages_compose_and_resume(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    cfg = _config(tmp_path)
    # nothing generated yet: infer and judge say what to run first
    assert main(["infer", "--config", str(cfg)]) == 1
    assert "run `livetab generate` first" in said(capfd)[1]
    assert main(["judge", "--config", str(cfg)]) == 1
    assert "run `livetab infer` first" in said(capfd)[1]

    assert main(["generate", "--config", str(cfg)]) == 0
    out = tmp_path / "out"
    questions = (out / "private" / "release" / "questions.jsonl").read_text().splitlines()  # release "st" is live
    assert not (out / "release" / "questions.jsonl").exists()
    n = len(questions)
    assert n >= 4 and f"questions {n} (+{n})" in said(capfd)[0]
    store = open_store(f"sqlite:///{tmp_path / 's.db'}")
    assert store.count(schema.results) == 0 and store.count(schema.judgments) == 0  # generate answers nothing

    assert main(["infer", "--config", str(cfg)]) == 0
    text = said(capfd)[0]
    assert f"answers from the model {n}," in text and f"{n}/{n} answered, 0 errors" in text
    answers = [json.loads(line) for line in (out / "private" / "answers.jsonl").read_text().splitlines()]
    assert len(answers) == n and all(a["response"].strip() for a in answers)
    assert {a["question_id"] for a in answers} == {json.loads(q)["id"] for q in questions}
    assert store.count(schema.judgments) == 0  # infer judges nothing

    assert main(["infer", "--config", str(cfg)]) == 0  # a repeat: every answer from the cache
    assert f"answers from the model 0, from the cache {n}" in said(capfd)[0]

    assert main(["judge", "--config", str(cfg)]) == 0
    assert f"judged {n} of {n} stored answers (0 already judged by it)" in said(capfd)[0]
    board = json.loads((out / "leaderboard.json").read_text())["models"][0]
    assert board["n"] == n
    rule_correct = board["correct"]
    assert store.count(schema.judgments) == n
    assert main(["judge", "--config", str(cfg)]) == 0
    assert f"judged 0 of {n} stored answers ({n} already judged by it)" in said(capfd)[0]
    assert main(["judge", "--config", str(cfg), "--again"]) == 0
    assert f"re-judged {n} stored answers" in said(capfd)[0]
    assert store.count(schema.judgments) == n

    # A different judge (a cascade with two LLM judges behind the rule judge) judges every answer anew;
    # the leaderboard counts its verdicts only, never both judges' together.
    judges = {"judge": {"llm_judges": [{"name": "smollm2-135m"}, {"name": "smollm2-135m"}],
                        "llm_temperatures": [0.0, 0.7], "llm_max_tokens": 8}}
    cascade = _config(tmp_path, **judges)
    assert main(["judge", "--config", str(cascade)]) == 0
    text = said(capfd)[0]
    assert "judge cascade:" in text and f"judged {n} of {n} stored answers" in text
    assert store.count(schema.judgments) == 2 * n
    board = json.loads((out / "leaderboard.json").read_text())["models"][0]
    assert board["n"] == n
    # ...and the rule judge's config reports the rule judge's verdicts again
    assert main(["report", "--config", str(cfg)]) == 0
    board = json.loads((out / "leaderboard.json").read_text())["models"][0]
    assert board["n"] == n and board["correct"] == rule_correct
    store.close()
