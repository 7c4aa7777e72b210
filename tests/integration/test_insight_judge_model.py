"""Insight questions end to end with the real local model as both the answering model and the insight judge:
qagen writes insight prompts over two small real tables (LoTNLG), SmolLM2 answers them, the rule-only
judge leaves them *not judged*, then `livetab judge` with SmolLM2 as the insight judge labels every insight
over its table, and the leaderboard files show insight factuality and diversity apart from QA accuracy.

SmolLM2-135M is a weak judge: what it decides is not checked, only that the path is real (every insight
has a label, the judge's replies were parsed, the counts add up across judge -> store -> files).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from livetab.paths import shared_data
from livetab.store import open_store, schema
from livetab.v1 import judgment_pb2
from livetab_cli.main import main

pytestmark = [pytest.mark.model]

TABLES = {"2-1458666-4.html.csv": "golf.csv", "2-170969-2.html.csv": "parishes.csv"}
ROWS = 5  # small tables keep each prompt near 300 tokens (SmolLM2 reads ~100-300 tokens/s per core)


def _tables(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for line in (shared_data() / "lotnlg" / "lotnlg_test_100tables.jsonl").open():
        r = json.loads(line)
        if r["csv_id"] in TABLES:
            with (folder / TABLES[r["csv_id"]]).open("w", newline="") as f:
                csv.writer(f).writerows(r["table"][:ROWS + 1])
    assert len(list(folder.iterdir())) == len(TABLES)
    return folder


def _config(tmp_path: Path, name: str, **judge: Any) -> Path:
    cfg = {"out_dir": str(tmp_path / "out"), "store": {"url": f"sqlite:///{tmp_path / 's.db'}"},
           "sources": [{"kind": "local_files", "location": str(tmp_path / "tables")}],
           "qagen": {"families": ["insight"], "per_table": 2},
           "models": [{"name": "smollm2-135m", "backend": "llama_local", "n_ctx": 2048}],
           "run": {"release": "ins", "max_tokens": 24, "max_rows": ROWS},
           "judge": {"llm_max_tokens": 32, **judge}}
    path = tmp_path / name
    path.write_text(yaml.safe_dump(cfg))
    return path


def _judgments(tmp_path: Path, judge: str) -> list[judgment_pb2.Judgment]:
    store = open_store(f"sqlite:///{tmp_path / 's.db'}")
    try:
        return [judgment_pb2.Judgment.FromString(r["payload"]) for r in store.select(schema.judgments, judge=judge)]
    finally:
        store.close()


def test_insight_answers_judged_by_the_local_model_reach_the_report(tmp_path: Path) -> None:
    _tables(tmp_path / "tables")
    out = tmp_path / "out"

    # 1. the rule judge alone: insight answers are not judged, and nothing counts as QA
    assert main(["run", "--config", str(_config(tmp_path, "rule.yaml"))]) == 0
    doc = json.loads((out / "leaderboard.json").read_text())
    [m] = doc["models"]
    n = m["insight"]["answers"]
    assert n >= 3 and (m["n"], m["families"]) == (0, {})  # only insight questions: QA accuracy has none
    assert (m["insight"]["not_judged"], m["insight"]["judged"], m["insight"]["insights"]) == (n, 0, 0)
    assert {j.verdict for j in _judgments(tmp_path, "rule")} == {"not_judged"}
    assert m["insight"]["diversity"]["n_outputs"] == n  # diversity needs no judge
    assert "not judged" in (out / "leaderboard.md").read_text()

    # 2. SmolLM2 as the insight judge over the stored answers (no new model answers)
    cfg = _config(tmp_path, "insight.yaml", insight_judge={"name": "smollm2-135m", "backend": "llama_local",
                                                             "n_ctx": 2048},
                  insight_max_rows=ROWS, insight_max_per_answer=3)
    assert main(["judge", "--config", str(cfg)]) == 0
    judge = "rule|insight:smollm2-135m@0.0"
    judged = _judgments(tmp_path, judge)
    assert len(judged) == n and all(j.verdict in ("correct", "incorrect", "uncertain") for j in judged)
    labels = [lab for j in judged for lab in j.insights]
    assert labels and all(lab.label in ("factual", "not_factual", "undecided") for lab in labels)
    assert all(lab.decided_by in ("llm", "none") and not lab.claim_status for lab in labels)  # SmolLM2 writes no claims
    assert sum(lab.decided_by == "llm" for lab in labels) >= 1  # the judge's replies were parsed
    assert all(lab.category in ("incorrect", "not_checkable", "misleading", "other")
               for lab in labels if lab.label == "not_factual")

    doc = json.loads((out / "leaderboard.json").read_text())
    assert doc["judge"] == judge
    [m] = doc["models"]
    ins = m["insight"]
    assert (m["n"], ins["answers"], ins["judged"], ins["not_judged"]) == (0, n, n, 0)
    assert ins["insights"] == len(labels)
    assert ins["factual"] == sum(lab.label == "factual" for lab in labels)
    assert ins["not_factual"] == sum(ins["categories"].values()) == sum(lab.label == "not_factual" for lab in labels)
    assert ins["all_factual"] == sum(j.verdict == "correct" for j in judged)
    div = ins["diversity"]
    assert div["n_outputs"] == n and 0 <= div["self_bleu4"] <= 1 and div["avg_length_tokens"] > 0
    page = (out / "report.html").read_text()
    assert '<section id="insights">' in page and f"<td>{div['self_bleu4']}</td>" in page
    md = (out / "leaderboard.md").read_text()
    assert f"| {m['model']} | {n} | {n} | 0 | 0 | {len(labels)} | {ins['factual']} |" in md
