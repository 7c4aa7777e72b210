"""`livetab score` on predictions made by another program, and `livetab list`.

A small release is built and answered by the real embedded pipeline with the scripted oracle and
anti-oracle (their answers judged by `livetab run`'s judge path). A separate program's file is then
written from those stored answers — the oracle's text for some questions, the anti-oracle's for others —
plus an unknown id, a duplicate, a malformed line and one question left out. `livetab score` must give
each answer exactly the verdict the embedded run's judge gave the same text, count the left-out question
wrong, and list every unknown, duplicate, missing and malformed item."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from livetab.ids import judge_name
from livetab.questions import FAMILIES
from livetab.settings import load_settings
from livetab.store import open_store, schema
from livetab.v1 import inference_pb2
from livetab_cli.embedded import run_embedded
from livetab_cli.main import main
from livetab_cli.score import NO_PREDICTION, score_run_id
from livetab_inference.prompts import FORMATS

from tests.support.oracle import models, sources

RELEASE = "scored"


@pytest.fixture(scope="module")
def answered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("score")
    cfg = {"out_dir": str(tmp / "out"), "store": {"url": f"sqlite:///{tmp / 's.db'}"},
           "sources": sources(tmp, ["203-733"], n_arabic=0, n_math=1)[:2],
           "models": models("rotate"),
           "qagen": {"families": ["direct", "mcq", "fact"], "per_table": 4},
           "run": {"release": RELEASE, "formats": ["markdown"], "settings": ["with_table"], "max_rows": 25}}
    path = tmp / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    settings = load_settings(path, env={})
    summary = run_embedded(settings)
    store = open_store(settings.store.url)
    try:
        runs = {m["model"]: m["run_id"] for m in summary.leaderboard["models"]}
        answers: dict[str, dict[str, tuple[str, str]]] = {}  # model -> question -> (response, verdict)
        name = judge_name(settings.judge)
        for model, run_id in runs.items():
            verdicts = {j["request_id"]: j["verdict"] for j in store.select(schema.judgments, run_id=run_id)
                        if j["judge"] == name}
            for r in store.select(schema.results, run_id=run_id):
                res = inference_pb2.InferenceResult.FromString(r["payload"])
                answers.setdefault(model, {})[res.question_id] = (res.response, verdicts[res.id])
    finally:
        store.close()
    return {"config": path, "tmp": tmp, "answers": answers, "settings": settings}


def test_score_gives_the_verdicts_livetab_judge_gives_and_reports_what_it_could_not_score(
        answered: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    oracle, anti = answered["answers"]["oracle"], answered["answers"]["anti-oracle"]
    qids = sorted(oracle)
    assert len(qids) >= 6, qids
    left_out, duplicated = qids[-1], qids[0]
    expected = {}
    lines = []
    for i, q in enumerate(qids[:-1]):  # the other program: right on even questions, wrong on odd ones
        response, verdict = (oracle if i % 2 == 0 else anti)[q]
        expected[q] = verdict
        lines.append(json.dumps({"question_id": q, "response": response, "model": "elsewhere"}))
    assert set(expected.values()) == {"correct", "incorrect"}
    lines.insert(2, json.dumps({"question_id": "q_not_in_this_release", "response": "42", "model": "elsewhere"}))
    lines.insert(4, "{this is not json")
    lines.insert(5, json.dumps({"question_id": qids[1], "response": "1", "format": "latex", "model": "elsewhere"}))
    lines.append(json.dumps({"question_id": duplicated, "response": anti[duplicated][0], "model": "elsewhere"}))
    predictions = answered["tmp"] / "predictions.jsonl"
    predictions.write_text("\n".join(lines) + "\n", encoding="utf-8")

    rc = main(["score", "--config", str(answered["config"]), "--release", RELEASE, str(predictions)])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "missing 1" in out and "unknown 1" in out and "duplicates 1" in out and "malformed lines 2" in out, out

    settings = answered["settings"]
    run_id = score_run_id(RELEASE, "elsewhere")
    store = open_store(settings.store.url)
    try:
        got = {j["question_id"]: j["verdict"] for j in store.select(schema.judgments, run_id=run_id)
               if j["judge"] == judge_name(settings.judge)}
        results = {r["question_id"]: inference_pb2.InferenceResult.FromString(r["payload"])
                   for r in store.select(schema.results, run_id=run_id)}
    finally:
        store.close()
    assert {q: got[q] for q in expected} == expected  # the first prediction kept, the duplicate not used
    assert got[left_out] == "error" and results[left_out].error == NO_PREDICTION

    out_dir = Path(settings.out_dir)
    report = json.loads((out_dir / "score_report.json").read_text())
    assert report["counts"] == {"scored": len(expected), "malformed": 2, "unknown": 1, "duplicates": 1, "missing": 1}
    assert report["unknown"][0]["question_id"] == "q_not_in_this_release" and report["unknown"][0]["line"] == 3
    assert [m["line"] for m in report["malformed"]] == [5, 6] and "latex" in report["malformed"][1]["error"]
    assert report["duplicates"][0]["question_id"] == duplicated and report["duplicates"][0]["first_line"] == 1
    assert report["missing"] == [{"question_id": left_out, "model": "elsewhere", "format": "markdown",
                                  "setting": "with_table"}]
    doc = json.loads((out_dir / "leaderboard.json").read_text())
    [entry] = [m for m in doc["models"] if m["model"] == "elsewhere"]
    right = sum(v == "correct" for v in expected.values())
    # the missing answer counts as wrong: it is in n, as an error
    assert (entry["n"], entry["correct"], entry["errors"]) == (len(qids), right, 1)


def test_score_refuses_a_missing_file_and_an_unknown_release(answered: dict[str, Any],
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    cfg = str(answered["config"])
    assert main(["score", "--config", cfg, "--release", RELEASE, str(answered["tmp"] / "nope.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "no predictions file" in err and err.count("\n") == 1, err
    empty = answered["tmp"] / "one.jsonl"
    empty.write_text('{"question_id": "q_x", "response": "1"}\n')
    assert main(["score", "--config", cfg, "--release", "no-such-release", str(empty)]) == 2
    err = capsys.readouterr().err
    assert "no-such-release" in err and err.count("\n") == 1, err
    assert main(["score", "--config", cfg, "--release", RELEASE, "--format", "latex", str(empty)]) == 2
    assert "latex" in capsys.readouterr().err


def test_list_each_kind(answered: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    cfg = str(answered["config"])
    store = open_store(answered["settings"].store.url)
    try:
        n_questions, n_tables = store.count(schema.questions, release=RELEASE), store.count(schema.tables,
                                                                                          release=RELEASE)
    finally:
        store.close()
    want = {"families": [f for f in FAMILIES], "formats": list(FORMATS),
            "releases": [f"{RELEASE}\t{n_questions}\t{n_tables}"],
            "models": ["oracle\tscripted\toracle", "anti-oracle\tscripted\tanti-oracle"]}
    for kind, lines in want.items():
        assert main(["list", kind, "--config", cfg]) == 0
        assert capsys.readouterr().out.splitlines() == lines, kind


def test_score_again_replaces_and_a_file_without_predictions_is_all_missing(
        answered: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    cfg, settings = str(answered["config"]), answered["settings"]
    oracle = answered["answers"]["oracle"]
    qids = sorted(oracle)
    path = answered["tmp"] / "again.jsonl"
    path.write_text("".join(json.dumps({"question_id": q, "response": oracle[q][0]}) + "\n" for q in qids))
    run_id = score_run_id(RELEASE, "twice")
    for _ in range(2):  # all right, then all missing: the second scoring replaces every answer and verdict
        assert main(["score", "--config", cfg, "--release", RELEASE, "--model", "twice", str(path)]) == 0
        store = open_store(settings.store.url)
        try:
            verdicts = [j["verdict"] for j in store.select(schema.judgments, run_id=run_id)]
        finally:
            store.close()
        assert len(verdicts) == len(qids)
        if path.read_text().strip():
            assert set(verdicts) == {"correct"}, verdicts
            path.write_text("\n")
    assert set(verdicts) == {"error"}
    out = capsys.readouterr().out
    assert f"scored 0 prediction(s); missing {len(qids)}" in out, out
    doc = json.loads((Path(settings.out_dir) / "leaderboard.json").read_text())
    [entry] = doc["models"]
    assert (entry["model"], entry["n"], entry["correct"], entry["errors"]) == ("twice", len(qids), 0, len(qids))
