"""`livetab score`: judge predictions made elsewhere (another harness, another machine) on a stored release.

The file is JSON lines, one prediction a line: `question_id`, `response`, and optionally `model`, `format`
and `setting` (defaults from the command line; `markdown` and `with_table` otherwise). Each model's
predictions become one run on the release — run id from release + model + "score", request ids as the
planner makes them (`plan_requests`), so a prediction lands where `livetab infer` would have put the same
answer — and are judged by the judge service's own handler over the in-process bus (`Pipeline.judge_stored`),
then reported by the reporter's `write_reports`: the same verdicts and the same leaderboard files.

Nothing is dropped silently; `score_report.json` beside the leaderboard lists:
- `malformed`: lines that are not a JSON object with a non-empty `question_id` and a string `response`, or
  that name a format or setting the inference service does not have;
- `unknown`: question ids not in the release (or a format/setting the planner would not ask, e.g. a
  closed-book variant of a table-state question);
- `duplicates`: a second prediction for the same question, model, format and setting (the first is kept);
- `missing`: planned questions with no prediction. They are stored as answers with the error "no prediction
  submitted", judged `error`, and so count as wrong in the leaderboard (its `errors` column counts them):
  a harness that skips hard questions does not score higher for it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from livetab.ids import content_id
from livetab.records import result_row, run_row
from livetab.releases import frozen_questions
from livetab.runs import build_run
from livetab.settings import Settings
from livetab.store import schema
from livetab.v1 import common_pb2, inference_pb2, run_pb2
from livetab_api.planner import plan_requests
from livetab_inference.prompts import FORMATS, SETTINGS

from livetab_cli.embedded import Pipeline

__all__ = ["NO_PREDICTION", "Prediction", "ScoreError", "ScoreReport", "read_predictions", "score_file",
           "score_run_id"]

NO_PREDICTION = "no prediction submitted"
TEAM = "score"


class ScoreError(Exception):
    """The command cannot score at all (no such file, no such release): one line for the user."""


@dataclass(frozen=True)
class Prediction:
    line: int
    question_id: str
    response: str
    model: str
    format: str
    setting: str


@dataclass
class ScoreReport:
    release: str
    runs: dict[str, str] = field(default_factory=dict)  # model -> run id
    scored: int = 0
    malformed: list[dict[str, Any]] = field(default_factory=list)
    unknown: list[dict[str, Any]] = field(default_factory=list)
    duplicates: list[dict[str, Any]] = field(default_factory=list)
    missing: list[dict[str, Any]] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {"scored": self.scored, "malformed": len(self.malformed), "unknown": len(self.unknown),
                "duplicates": len(self.duplicates), "missing": len(self.missing)}

    def doc(self) -> dict[str, Any]:
        return {"release": self.release, "runs": self.runs, "counts": self.counts(),
                **{k: v for k, v in asdict(self).items() if k in ("malformed", "unknown", "duplicates", "missing")},
                "missing_counts_as": "wrong (stored as an error answer: the leaderboard's errors column)"}


def score_run_id(release: str, model: str, formats: Sequence[str] = ("markdown",),
                 settings: Sequence[str] = ("with_table",)) -> str:
    """The run of one model's scored predictions: release + model + "score" (+ the formats and settings the file
    answered in, so that scoring the same file again replaces every answer of the run, missing ones included,
    and a file in other formats is a run of its own instead of leaving stale answers in this one)."""
    if list(formats) == ["markdown"] and list(settings) == ["with_table"]:
        return content_id("run", release, model, TEAM)
    return content_id("run", release, model, TEAM, list(formats), list(settings))


def read_predictions(path: Path, *, model: str, fmt: str, setting: str) -> tuple[list[Prediction],
                                                                                   list[dict[str, Any]]]:
    """The file's predictions, and its malformed lines as {line, error} (lines count from 1)."""
    if not path.is_file():
        raise ScoreError(f"no predictions file at {path}")
    if fmt not in FORMATS or setting not in SETTINGS:
        raise ScoreError(f"--format {fmt!r} / --setting {setting!r}: formats are {', '.join(FORMATS)}; settings "
                         f"{', '.join(SETTINGS)}")
    preds, bad = [], []
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
        except json.JSONDecodeError as e:
            bad.append({"line": n, "error": f"not JSON: {e.msg}"})
            continue
        if not isinstance(rec, dict):
            bad.append({"line": n, "error": "not a JSON object"})
            continue
        qid, resp = rec.get("question_id"), rec.get("response")
        if not isinstance(qid, str) or not qid:
            bad.append({"line": n, "error": "no question_id"})
            continue
        if not isinstance(resp, str):
            bad.append({"line": n, "error": "no response text"})
            continue
        f, st = str(rec.get("format") or fmt), str(rec.get("setting") or setting)
        if f not in FORMATS or st not in SETTINGS:
            bad.append({"line": n, "error": f"format {f!r} or setting {st!r} is not one of {', '.join(FORMATS)} / "
                                            f"{', '.join(SETTINGS)}"})
            continue
        preds.append(Prediction(n, qid, resp, str(rec.get("model") or model), f, st))
    return preds, bad


def _run(release: str, model: str, preds: list[Prediction]) -> run_pb2.Run:
    spec = common_pb2.ModelSpec(name=model, backend="external")
    formats, settings = sorted({p.format for p in preds}), sorted({p.setting for p in preds})
    run = build_run(TEAM, release, spec, formats=formats, settings=settings)
    run.id = score_run_id(release, model, formats, settings)
    return run


def score_predictions(p: Pipeline, release: str, preds: list[Prediction], report: ScoreReport, *,
                      model: str = "external", fmt: str = "markdown", setting: str = "with_table") -> list[str]:
    """Store each model's predictions as one run's answers (and the missing ones as errors), judge them with
    the configured judge, and fill `report`. Returns the run ids. A file without one usable prediction is
    still a run — of `model`, in `fmt` and `setting` — with every question missing, never an empty report."""
    if not p.store.count(schema.questions, release=release):
        raise ScoreError(f"release {release!r} has no questions in the store ({p.settings.store.url})")
    in_release = set(frozen_questions(p.store, release))  # predictions answer a fixed question set
    if not in_release:
        raise ScoreError(f"release {release!r} is a draft: its question set is not frozen yet (`livetab release "
                         f"publish {release}` or `livetab release freeze {release}`)")
    by_model: dict[str, list[Prediction]] = {}
    for pred in preds:
        if pred.question_id not in in_release:
            report.unknown.append({"line": pred.line, "question_id": pred.question_id, "model": pred.model,
                                   "reason": f"not a question of release {release}"})
        else:
            by_model.setdefault(pred.model, []).append(pred)
    if not by_model:
        by_model[model] = []
    for name, mine in by_model.items():
        run = _run(release, name, mine or [Prediction(0, "", "", name, fmt, setting)])
        requests = {(r.question_id, r.format, r.setting): r for r in plan_requests(run, p.store) if r.sample_index == 0}
        first: dict[tuple[str, str, str], int] = {}
        results = []
        for pred in mine:
            key = (pred.question_id, pred.format, pred.setting)
            req = requests.get(key)
            if req is None:
                report.unknown.append({"line": pred.line, "question_id": pred.question_id, "model": name,
                                       "reason": f"not asked in format {pred.format!r}, setting {pred.setting!r} "
                                                 "(not a verified question, or not asked that way)"})
            elif key in first:
                report.duplicates.append({"line": pred.line, "first_line": first[key], "question_id": pred.question_id,
                                          "model": name, "format": pred.format, "setting": pred.setting})
            else:
                first[key] = pred.line
                results.append(_result(req, pred.response, ""))
        for key, req in requests.items():
            if key not in first:
                report.missing.append({"question_id": key[0], "model": name, "format": key[1], "setting": key[2]})
                results.append(_result(req, "", NO_PREDICTION))
        p.store.upsert(schema.runs, [run_row(run, len(requests))])
        p.store.upsert(schema.results, [result_row(r) for r in results])
        report.runs[name] = run.id
        report.scored += len(first)
    run_ids = list(report.runs.values())
    p.judge_stored(run_ids, again=True)  # the file's answers replace earlier ones: judge them all again
    return run_ids


def _result(req: inference_pb2.InferenceRequest, response: str, error: str) -> inference_pb2.InferenceResult:
    return inference_pb2.InferenceResult(id=req.id, run_id=req.run_id, question_id=req.question_id,
                                         model=req.model.name, format=req.format, setting=req.setting,
                                         sample_index=req.sample_index, response=response, error=error,
                                         seed=req.sampling.seed)


def score_file(settings: Settings, path: Path, release: str, *, model: str = "external", fmt: str = "markdown",
               setting: str = "with_table") -> tuple[ScoreReport, dict[str, Any], Path]:
    """Score one predictions file; the report, leaderboard.json's document and the output folder."""
    preds, bad = read_predictions(path, model=model, fmt=fmt, setting=setting)
    settings = settings.model_copy(update={"run": settings.run.model_copy(update={"release": release})})
    report = ScoreReport(release=release, malformed=bad)
    p = Pipeline(settings)
    try:
        run_ids = score_predictions(p, release, preds, report, model=model, fmt=fmt, setting=setting)
        doc, out_dir = p.write_reports(run_ids)
        from livetab.evaluate_samples import sample_rows, write_samples
        from livetab.ids import judge_name

        # the per-sample log, as `livetab eval` writes it (what `livetab compare` pairs)
        write_samples(out_dir, sample_rows(p.store, run_ids, judge_name(settings.judge)))
    finally:
        p.close()
    (out_dir / "score_report.json").write_text(json.dumps(report.doc(), indent=2, ensure_ascii=False) + "\n",
                                               encoding="utf-8")
    return report, doc, out_dir
