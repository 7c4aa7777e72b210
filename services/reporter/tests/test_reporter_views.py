"""leaderboard.json's views on runs whose verdicts the test chooses: the freshness cut at the declared knowledge
cutoff, the contamination view with its z-test, format robustness, the imperfect-data view, McNemar between
adjacent models, the judge panel's agreement before and after deliberation, unbiased pass@k per stratum,
tokens and latency — and the whole document validated against leaderboard.schema.json."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from livetab.store import schema
from livetab.v1 import inference_pb2, question_pb2
from livetab_reporter.document import SCHEMA_VERSION, load_schema, release_manifest_hash
from livetab_reporter.files import write_reports
from livetab_reporter.leaderboard import leaderboard
from reporter_data import RELEASE, TABLES, Answer, add_questions, answer_and_judge, plan_run
from scipy import stats

LABELS = [("direct", "lookup", "single_cell", "easy", "en"), ("imperfect", "flag", "full_table", "hard", "en"),
          ("reasoning", "arithmetic", "full_table", "medium", "en")]
CUTOFF = "2024-12-31"  # TABLES[0] was created before it, TABLES[1] after


def validate(doc: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator(load_schema(), format_checker=jsonschema.FormatChecker()).validate(doc)


def _date(q: question_pb2.Question) -> str:
    return TABLES[int(q.table_id.removeprefix("tab_")) % len(TABLES)].created_at


def test_views_of_one_model(store: Any, tmp_path: Path) -> None:
    questions = {q.id: q for q in add_questions(store, 16, labels=LABELS)}
    order = list(questions)
    run_id, requests = plan_run(store, cutoff=CUTOFF, formats=["markdown", "csv"])

    def ok(r: inference_pb2.InferenceRequest) -> bool:  # right in markdown; in csv only when i % 3 != 0
        i = order.index(r.question_id)
        return r.format == "markdown" or i % 3 != 0

    def decide(r: inference_pb2.InferenceRequest) -> Answer:
        return Answer("correct" if ok(r) else "incorrect", extracted="x", prompt_tokens=200 + order.index(r.question_id),
                      completion_tokens=10 if r.format == "csv" else 20, latency_ms=40.0)

    answer_and_judge(store, requests, decide)
    doc = write_reports(store, [run_id], tmp_path, judge="rule")
    assert json.loads((tmp_path / "leaderboard.json").read_text()) == doc
    validate(doc)
    [m] = doc["models"]
    assert m["knowledge_cutoff"] == CUTOFF and m["configuration"]["formats"] == ["markdown", "csv"]

    def count(pred: Any) -> tuple[int, int]:
        sel = [r for r in requests if pred(r)]
        return sum(ok(r) for r in sel), len(sel)

    def fresh(r: inference_pb2.InferenceRequest) -> bool:
        return _date(questions[r.question_id]) > CUTOFF

    # freshness: items created after the cutoff beside all items
    fr = m["freshness"]
    assert (fr["after_cutoff"]["correct"], fr["after_cutoff"]["n"]) == count(fresh) and fr["unknown_date"] == 0
    assert (fr["all"]["correct"], fr["all"]["n"]) == count(lambda r: True) == (m["correct"], m["n"])
    # contamination: split at the cutoff, z-test as scipy's chi-square without correction
    co = m["contamination"]
    (x1, n1), (x2, n2) = count(fresh), count(lambda r: not fresh(r))
    assert co["split_by"] == "knowledge_cutoff" and co["split_date"] == CUTOFF
    assert (co["fresh"]["correct"], co["fresh"]["n"], co["older"]["correct"], co["older"]["n"]) == (x1, n1, x2, n2)
    chi2, p, _, _ = stats.chi2_contingency([[x1, n1 - x1], [x2, n2 - x2]], correction=False)
    assert co["p_value"] == pytest.approx(p, rel=1e-3) and abs(co["z"]) == pytest.approx(math.sqrt(chi2), abs=1e-4)
    assert co["significant"] == (p <= 0.05)
    # format robustness: every question is asked in both formats; consistent unless i % 3 == 0
    fo = m["format_robustness"]
    consistent = sum(1 for i in range(16) if i % 3 != 0)
    assert (fo["questions"], fo["consistent"]) == (16, consistent)
    assert fo["consistent_share"] == pytest.approx(consistent / 16, abs=1e-4)
    assert fo["formats"]["markdown"]["accuracy"] == 1.0
    assert fo["accuracy_spread"] == pytest.approx(1 - consistent / 16, abs=1e-4)
    # imperfect-data view: the imperfect family apart from the well-posed ones
    im = m["imperfect"]
    imperfect = count(lambda r: questions[r.question_id].family == "imperfect")
    assert (im["flagged_imperfect"]["correct"], im["flagged_imperfect"]["n"]) == imperfect
    assert (im["well_posed"]["correct"], im["well_posed"]["n"]) == count(
        lambda r: questions[r.question_id].family != "imperfect")
    # tokens and latency per answer, overall and per format
    assert m["mean_prompt_tokens"] == pytest.approx(200 + 7.5) and m["mean_latency_ms"] == 40.0
    assert m["slices"]["format"]["csv"]["mean_completion_tokens"] == 10.0
    assert m["slices"]["format"]["markdown"]["mean_completion_tokens"] == 20.0
    assert m["judge_panel"] is None and doc["rank_significance"] == []
    assert doc["schema_version"] == SCHEMA_VERSION and doc["release_questions"] == 16
    assert doc["first_judged_at"] <= doc["last_judged_at"] and doc["last_judged_at"].endswith("+00:00")
    # nothing depends on when the document is written: the same store gives the same document
    assert write_reports(store, [run_id], tmp_path / "again", judge="rule") == doc

    # the configured split date wins over the cutoff
    doc2 = write_reports(store, [run_id], tmp_path / "b", judge="rule", split_date="2020-01-01")
    assert doc2["models"][0]["contamination"]["split_by"] == "configured"
    assert doc2["models"][0]["contamination"]["fresh"]["n"] == m["n"]  # every item is newer than 2020


def test_pass_at_k_per_stratum_is_the_codex_estimator(store: Any) -> None:
    add_questions(store, 6)
    run_id, requests = plan_run(store, samples=4)
    right = {0: 1, 1: 0, 2: 2, 3: 4, 4: 3, 5: 1}  # right samples of question i (of 4)
    order = sorted({r.question_id for r in requests})
    answer_and_judge(store, requests, lambda r: Answer(
        "correct" if r.sample_index < right[order.index(r.question_id)] else "incorrect", extracted=str(r.sample_index)))
    lb = leaderboard(store, [run_id], judge="rule")
    overall = lb.agg.overall[0]

    def codex(c: int, k: int) -> float:
        return 1 - math.comb(4 - c, k) / math.comb(4, k)

    for k in (1, 2, 4):
        assert overall["pass_at_k"][str(k)] == pytest.approx(sum(codex(c, k) for c in right.values()) / 6)
    qs = {q.id: q for q in (question_pb2.Question.FromString(r["payload"])
                            for r in store.select(schema.questions))}
    for family, entry in lb.agg.strata[0]["family"].items():
        cs = [right[order.index(q)] for q in order if qs[q].family == family]
        assert entry["pass_at_k"]["2"] == pytest.approx(sum(codex(c, 2) for c in cs) / len(cs)), family
        assert entry["items"] == len(cs)


def test_a_failed_sample_without_usage_leaves_no_empty_group_behind(store: Any, tmp_path: Path) -> None:
    add_questions(store, 3)
    run_id, requests = plan_run(store, samples=3)
    # sample 0 of each question failed (no prompt tokens recorded); the others read 300 tokens
    answer_and_judge(store, requests, lambda r: Answer("error") if r.sample_index == 0 else Answer(
        "correct", extracted="x", prompt_tokens=300))
    doc = write_reports(store, [run_id], tmp_path, judge="rule")
    json.dumps(doc, allow_nan=False)  # no NaN from a stratum without whole groups
    validate(doc)
    [m] = doc["models"]
    assert m["slices"]["prompt_tokens"] == {"256-511": m["slices"]["prompt_tokens"]["256-511"]}
    assert (m["slices"]["prompt_tokens"]["256-511"]["n"], m["errors"], m["cons_at_3"]) == (9, 3, 1.0)
    assert m["pass_at_1"] == pytest.approx(2 / 3, abs=1e-4) and m["mean_prompt_tokens"] == 300.0


def test_rank_significance_between_adjacent_models(store: Any, tmp_path: Path) -> None:
    qs = add_questions(store, 40)
    ids = [q.id for q in qs]
    runs = {}
    # strong: right on all but 2; close: right on all but 5 (b = 4, c = 1: tied); weak: right on 10
    wrong = {"strong": {0, 1}, "close": {1, 2, 3, 4, 5}, "weak": set(range(10, 40))}
    for name, miss in wrong.items():
        run_id, requests = plan_run(store, model=name)
        answer_and_judge(store, requests, lambda r, miss=miss: Answer(
            "incorrect" if ids.index(r.question_id) in miss else "correct"))
        runs[name] = run_id
    doc = write_reports(store, list(runs.values()), tmp_path, judge="rule")
    validate(doc)
    assert [m["model"] for m in doc["models"]] == ["strong", "close", "weak"]
    first, second = doc["rank_significance"]
    assert (first["higher_model"], first["lower_model"], first["shared_items"]) == ("strong", "close", 40)
    assert (first["only_higher_right"], first["only_lower_right"]) == (4, 1)
    assert first["p_exact"] == pytest.approx(stats.binomtest(1, 5, 0.5).pvalue, rel=1e-3) and first["tied"]
    b = sum(1 for i in range(40) if i not in wrong["close"] and i in wrong["weak"])
    c = sum(1 for i in range(40) if i in wrong["close"] and i not in wrong["weak"])
    assert (second["only_higher_right"], second["only_lower_right"]) == (b, c)
    assert second["p_exact"] == pytest.approx(stats.binomtest(c, b + c, 0.5).pvalue, rel=1e-3)
    assert not second["tied"]
    pooled = doc["release_pooled"]  # the three runs as one
    assert (pooled["n"], pooled["correct"]) == (120, 38 + 35 + 10)
    assert sum(v["n"] for v in pooled["strata"]["family"].values()) == 120


def test_judge_panel_agreement_before_and_after_deliberation(store: Any, tmp_path: Path) -> None:
    add_questions(store, 4)
    run_id, requests = plan_run(store)
    panels = [
        (("a", "correct", "correct"), ("b", "correct", "correct")),  # agree before and after
        (("a", "correct", "correct"), ("b", "incorrect", "correct")),  # b revised: agree after only
        (("a", "incorrect", "correct"), ("b", "correct", "incorrect")),  # both switched: disagree after too
        (),  # no deliberation (not counted)
    ]
    answer_and_judge(store, requests, lambda r: Answer("correct", deliberation=panels[requests.index(r)]))
    doc = write_reports(store, [run_id], tmp_path, judge="rule")
    validate(doc)
    jp = doc["models"][0]["judge_panel"]
    assert (jp["judgments"], jp["agree_before"], jp["agree_after"], jp["labels_changed"]) == (3, 1, 2, 3)
    assert jp["judges"] == ["a", "b"] and jp["agreement_after"] == pytest.approx(2 / 3, abs=1e-4)


def test_schema_rejects_a_document_missing_or_mistyping_keys(store: Any, tmp_path: Path) -> None:
    add_questions(store, 3)
    run_id, requests = plan_run(store)
    answer_and_judge(store, requests, lambda r: Answer("correct"))
    doc = write_reports(store, [run_id], tmp_path, judge="rule")
    validate(doc)
    for breaks in (lambda d: d.pop("schema_version"), lambda d: d["models"][0].update(accuracy=1.5),
                   lambda d: d["models"][0]["slices"].update(colour={}),
                   lambda d: d.update(release_manifest_hash="md5:abc")):
        bad = copy.deepcopy(doc)
        breaks(bad)
        with pytest.raises(jsonschema.ValidationError):
            validate(bad)


def test_release_manifest_hash_follows_the_gold_answers(store: Any) -> None:
    qs = add_questions(store, 5)
    h1, n = release_manifest_hash(store, RELEASE)
    assert n == 5 and h1 is not None and h1 == release_manifest_hash(store, RELEASE)[0]
    q = qs[2]
    q.gold.text = "changed"
    from livetab.records import question_row
    store.upsert(schema.questions, [question_row(q)])
    assert release_manifest_hash(store, RELEASE)[0] != h1
    assert release_manifest_hash(store, "no-such-release") == (None, 0)


def test_a_stratum_that_empties_is_zeroed_in_the_store(store: Any) -> None:
    from livetab_reporter.handler import ReporterHandler
    from reporter_data import context

    add_questions(store, 2)
    run_id, requests = plan_run(store, samples=2)
    handler, ctx = ReporterHandler(), context(store, refresh_growth=0.0)
    first = [r for r in requests if r.sample_index == 0]  # failed calls: no tokens, bin "unknown"
    handler.handle_batch(answer_and_judge(store, first, lambda r: Answer("error")), ctx)
    rows = {r["slice"]: r for r in store.select(schema.leaderboard, run_id=run_id)}
    assert rows["prompt_tokens=unknown"]["n"] == 2
    rest = [r for r in requests if r.sample_index == 1]  # now each item's prompt is known: 300 tokens
    handler.handle_batch(answer_and_judge(store, rest, lambda r: Answer("correct", prompt_tokens=300)), ctx)
    rows = {r["slice"]: r for r in store.select(schema.leaderboard, run_id=run_id)}
    assert rows["prompt_tokens=unknown"]["n"] == 0 and rows["prompt_tokens=256-511"]["n"] == 4
    assert rows["all"]["n"] == 4 and rows["all"]["correct"] == 2
