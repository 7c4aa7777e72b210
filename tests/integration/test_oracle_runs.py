"""Oracle and anti-oracle runs through the real embedded pipeline (scrape -> qagen -> planner -> inference
-> judge -> reporter) on real tables: demo Wikipedia pages, GSM8K word problems (math and its imperfect
variants) and Arabic TaTA tables, in four formats and both settings. The oracle must score 100% and the
anti-oracle 0% in every slice of the leaderboard the reporter computed; every verdict is checked too (an
"uncertain" would hide in a 0% as easily as a wrong "incorrect"). Insight answers are judged by the claims
the scripted models write beside their sentences (no LLM judge is configured): every insight of the oracle
factual, every one of the anti-oracle not."""

from __future__ import annotations

import re
from typing import Any

import jsonschema
import pytest
from livetab.models.scripted import PHRASINGS, scripted_answer
from livetab.records import load_question, load_table
from livetab.rubric import judge_answer
from livetab.store import open_store, schema
from livetab.v1 import inference_pb2
from livetab_reporter.document import load_schema

from tests.support.oracle import (
    ALL_FAMILIES,
    FAMILIES,
    FORMATS,
    INSIGHT,
    SETTINGS,
    check_leaderboard,
    judge_insight,
    oracle_cycle,
    sources,
    verdict_cells,
)

PAGES = ["203-733", "203-278", "204-656"]  # a cycling race, a golfer's results, a third demo page


@pytest.fixture(scope="module")
def oracle_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("oracle")
    return oracle_cycle(tmp, "oracle", sources(tmp, PAGES, n_arabic=2, n_math=1), formats=FORMATS, settings=SETTINGS)


def test_oracle_scores_100_and_anti_oracle_0_in_every_slice(oracle_run: dict[str, Any]) -> None:
    doc, summary = oracle_run["doc"], oracle_run["summary"]
    by_model = check_leaderboard(doc, formats=FORMATS, settings=SETTINGS, families=FAMILIES, languages={"en", "ar"})
    jsonschema.Draft202012Validator(load_schema()).validate(doc)  # the versioned results schema, on real output
    for m in by_model.values():  # right (or wrong) in every format: every multi-format item is consistent
        assert m["format_robustness"]["consistent_share"] == 1.0 and m["format_robustness"]["accuracy_spread"] == 0
    [pair] = doc["rank_significance"]
    assert (pair["higher_model"], pair["lower_model"], pair["tied"]) == ("oracle", "anti-oracle", False)
    assert pair["only_higher_right"] == pair["shared_items"] > 0 and pair["p_exact"] < 1e-6
    store = open_store(oracle_run["settings"].store.url)
    try:
        runs = {m["model"]: m["run_id"] for m in by_model.values()}
        for name, want in (("oracle", "correct"), ("anti-oracle", "incorrect")):
            cells = verdict_cells(store, runs[name])
            wrong = {c: v for c, v in cells.items() if set(v) != {want}}
            assert not wrong, (name, wrong)
            # the slices cross: every family in every format with the table, and closed-book; both languages
            for fam in ALL_FAMILIES:
                for fmt in FORMATS:
                    assert any(c[:3] == (fam, fmt, "with_table") for c in cells), (name, fam, fmt)
                if fam != "imperfect":  # an imperfect table's gold cannot be asked without the table
                    assert any(c[0] == fam and c[2] == "closed_book" for c in cells), (name, fam)
            for fam in ALL_FAMILIES - {"math"}:  # the math flow is English only
                assert any(c[0] == fam and c[3] == "ar" for c in cells), (name, fam)
            questions = {load_question(r).id: load_question(r) for r in store.select(schema.questions)}  # type: ignore[union-attr]
            assert any(q.closed_book for q in questions.values()), "closed-book variants were generated"
        # the rotation reached the pipeline: real models' phrasings, not one fixed form
        shapes = {_shape(inference_pb2.InferenceResult.FromString(r["payload"]).response)
                  for r in store.select(schema.results, run_id=runs["oracle"])}
        assert {"letter", "option n", "letter. text", "the answer is", "according to", "yes/no", "true/false",
                "refusal"} <= shapes, shapes
        n = by_model["oracle"]["planned"]
        assert summary.model_answers + summary.cache_hits == 2 * n  # same prompt, same answer: e.g. a math problem's
        # easy/medium/hard tables asked closed-book
        print(f"\noracle runs: {len(questions)} questions, {n} requests per model, "
              f"{oracle_run['seconds']:.1f} s for the whole embedded cycle")
        for name, m in by_model.items():
            print(name, m["accuracy"], {k: {v: r["accuracy"] for v, r in vals.items() if "n" in r}
                                       for k, vals in [("family", m["families"]), *m["slices"].items()]},
                  "insights factual:", f"{m['insight']['factual']}/{m['insight']['insights']}",
                  f"({m['insight']['answers']} answers)")
    finally:
        store.close()


def _shape(response: str) -> str:
    for shape, pattern in (("letter", r"[A-E]"), ("option n", r"(Option|الخيار) \d"), ("letter. text", r"[A-E]\. .+"),
                           ("the answer is", r"(The answer is|الإجابة هي) .+"),
                           ("according to", r"(According to the table|وفقًا للجدول)، ?.+|According to the table, .+"),
                           ("yes/no", r"Yes|No|نعم|لا"), ("true/false", r"True|False|صحيح|خطأ"),
                           ("refusal", r".*(insufficient|contradictory|غير كافية|متناقض).*")):
        if re.fullmatch(pattern, response, re.S):
            return shape
    return "other"


def test_every_phrasing_on_every_generated_question(oracle_run: dict[str, Any]) -> None:
    """Beyond the one phrasing each question got in the run: all of them, right and wrong, on the same questions."""
    store = open_store(oracle_run["settings"].store.url)
    try:
        tables = {r["id"]: load_table(r) for r in store.select(schema.tables)}
        questions = [load_question(r) for r in store.select(schema.questions)]
    finally:
        store.close()
    failures = []
    kinds = set()
    for q in questions:
        assert q is not None
        kinds.add(q.gold.kind)
        for phrasing in PHRASINGS:
            for policy, want in (("oracle", "correct"), ("anti_oracle", "incorrect")):
                answer = scripted_answer(q, tables.get(q.table_id), policy=policy, phrasing=phrasing)
                if q.family == INSIGHT:  # every insight decided by its claim, all factual or none
                    verdict, labels = judge_insight(answer, q, tables[q.table_id])
                    if verdict != want or set(labels) != {"factual" if want == "correct" else "not_factual"}:
                        failures.append((policy, phrasing, q.family, q.text, answer, verdict, labels))
                    continue
                got = judge_answer(answer, q)
                if got.verdict != want:
                    failures.append((policy, phrasing, q.family, q.text, q.gold.text, answer, got.verdict, got.rationale))
    assert {"number", "text", "boolean", "option", "insufficient", "contradictory", "free"} <= kinds, kinds
    assert not failures, failures[:10]
