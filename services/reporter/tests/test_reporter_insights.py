"""Insight answers in the leaderboards: QA accuracy (and its n) leaves the insight family out; insight
factuality, error categories, not-judged answers and the diversity of the insight responses are reported
in their own row (live update), object (leaderboard.json) and section (leaderboard.md, report.html)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from livetab.diversity import diversity
from livetab.v1 import inference_pb2
from livetab_reporter.document import load_schema
from livetab_reporter.files import write_reports
from livetab_reporter.handler import ReporterHandler
from reporter_data import JUDGE, Answer, add_questions, answer_and_judge, context, plan_run

MIX = [("direct", "lookup", "single_cell", "easy", "en"), ("insight", "count", "full_table", "medium", "en"),
       ("fact", "compare", "full_table", "medium", "en"), ("insight", "mixed", "full_table", "hard", "en")]

QA = {0: "correct", 2: "incorrect", 4: "correct", 6: "uncertain"}
INSIGHT = {
    1: Answer("incorrect", "Fiji has one total win.\nJapan has no individual wins.\nItaly won.",
              insights=(("factual", "", "claim"), ("not_factual", "incorrect", "claim"), ("undecided", "", "none"))),
    3: Answer("correct", "The United States has the most total wins.", insights=(("factual", "", "llm"),)),
    5: Answer("error"),
    7: Answer("not_judged", "Sweden has one total win."),
}


def _run(store: Any, insight: dict[int, Answer]) -> tuple[str, list[Any]]:
    questions = add_questions(store, 8, labels=MIX)
    index = {q.id: i for i, q in enumerate(questions)}
    run_id, requests = plan_run(store)

    def decide(r: inference_pb2.InferenceRequest) -> Answer:
        i = index[r.question_id]
        return Answer(QA[i], extracted=f"a{i}") if i in QA else insight[i]

    return run_id, answer_and_judge(store, requests, decide)


def test_qa_accuracy_leaves_insights_out_and_insights_get_their_own_row(store: Any) -> None:
    run_id, judgments = _run(store, INSIGHT)
    [out] = ReporterHandler().handle_batch(judgments, context(store))
    update = out.message
    assert update.run_id == run_id and update.judged == update.planned == 8  # every judgment counts as judged, insight ones too
    rows = {r.slice: r for r in update.rows}
    assert (rows["all"].n, rows["all"].correct) == (4, 2)
    assert {k for k in rows if k.startswith("family=")} == {"family=direct", "family=fact"}
    assert (rows["insight"].n, rows["insight"].correct) == (3, 2)  # 2 factual, 1 not; the undecided one in neither
    assert rows["insight"].accuracy == pytest.approx(2 / 3)
    assert rows["insight"].ci_low < 2 / 3 < rows["insight"].ci_high


def test_leaderboard_files_show_insight_scores_and_diversity_apart(store: Any, tmp_path: Path) -> None:
    run_id, _ = _run(store, INSIGHT)
    doc = write_reports(store, [run_id], tmp_path, judge=JUDGE)
    assert json.loads((tmp_path / "leaderboard.json").read_text()) == doc
    jsonschema.validate(doc, load_schema())
    [m] = doc["models"]
    assert (m["n"], m["correct"], m["accuracy"], m["errors"]) == (4, 2, 0.5, 0)  # QA only: the insight error is apart
    assert set(m["families"]) == {"direct", "fact"}
    ins = m["insight"]
    assert {k: ins[k] for k in ("answers", "judged", "not_judged", "errors", "all_factual", "insights", "factual",
                                "not_factual", "undecided")} == {
        "answers": 4, "judged": 2, "not_judged": 1, "errors": 1, "all_factual": 1, "insights": 4, "factual": 2,
        "not_factual": 1, "undecided": 1}
    assert ins["factual_rate"] == pytest.approx(2 / 3, abs=1e-4)
    assert ins["categories"] == {"incorrect": 1, "not_checkable": 0, "misleading": 0, "other": 0}
    assert ins["decided_by"] == {"claim": 2, "llm": 1}
    # diversity over the model's insight responses, judged or not; the failed call has none
    want = diversity([INSIGHT[i].extracted for i in (1, 3, 7)]).as_dict()
    assert ins["diversity"]["n_outputs"] == 3
    assert ins["diversity"] == {k: (int(v) if k == "n_outputs" else pytest.approx(v, abs=1e-4))
                                for k, v in want.items()}
    assert 0 < ins["diversity"]["self_bleu4"] < 1

    md = (tmp_path / "leaderboard.md").read_text()
    section = md[md.index("## Insights"):]
    assert "| m1 | 4 | 2 | 1 | 1 | 4 | 2 | 0.667 |" in section
    assert "| 1 | claim 2, llm 1 | 1 | 0 | 0 | 0 | 1 |" in section  # all factual, how decided, categories
    assert "### Diversity of insight responses" in section and "self-BLEU-4" in section
    page = (tmp_path / "report.html").read_text()
    assert "<section id=\"insights\">" in page and "<td class='insight-share'>0.667</td>" in page
    assert "<td>claim 2, llm 1</td>" in page
    assert f"<td>{ins['diversity']['self_bleu4']}</td>" in page


def test_not_judged_insights_are_never_counted_as_wrong(store: Any, tmp_path: Path) -> None:
    unjudged = {i: Answer("not_judged", a.extracted or f"insight {i}") for i, a in INSIGHT.items()}
    run_id, judgments = _run(store, unjudged)
    [out] = ReporterHandler().handle_batch(judgments, context(store))
    rows = {r.slice: r for r in out.message.rows}
    assert "insight" not in rows and (rows["all"].n, rows["all"].correct) == (4, 2)
    doc = write_reports(store, [run_id], tmp_path, judge=JUDGE)
    ins = doc["models"][0]["insight"]
    assert (ins["answers"], ins["not_judged"], ins["judged"], ins["insights"]) == (4, 4, 0, 0)
    assert ins["diversity"]["n_outputs"] == 4  # diversity needs no judge
    assert "| m1 | 4 | 0 | 4 | 0 | 0 | 0 | not judged |" in (tmp_path / "leaderboard.md").read_text()


def test_without_insight_answers_the_files_have_no_insight_section(store: Any, tmp_path: Path) -> None:
    add_questions(store, 3)
    run_id, requests = plan_run(store)
    answer_and_judge(store, requests, lambda r: Answer("correct"))
    doc = write_reports(store, [run_id], tmp_path, judge=JUDGE)
    assert doc["models"][0]["insight"] is None
    assert "Insights" not in (tmp_path / "leaderboard.md").read_text()
    assert "id=\"insights\"" not in (tmp_path / "report.html").read_text()
