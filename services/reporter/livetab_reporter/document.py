"""leaderboard.json: the versioned results document, built from `leaderboard.leaderboard`.

Its shape is `leaderboard.schema.json` (JSON Schema 2020-12, package data beside this module); the
`schema_version` names that file's version. Keys are only ever added within a major version. Besides the
scores it records where they come from: the livetab version (package metadata), the git commit of the
checkout when there is one, the configuration (the judge, the contamination split and each run's knobs), a
hash of the release's manifest (its question ids and gold answers) and the time span of the judgments it
counts. Nothing in it depends on when it is written: the same store gives the same document.
"""

from __future__ import annotations

import functools
import hashlib
import json
import subprocess
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from livetab.store import schema
from livetab.v1 import question_pb2

from livetab_reporter.insight_section import insight_entry
from livetab_reporter.leaderboard import leaderboard
from livetab_reporter.stats import rank_significance

__all__ = ["SCHEMA_VERSION", "git_commit", "leaderboard_doc", "livetab_version", "load_schema",
           "release_manifest_hash", "rounded"]

SCHEMA_VERSION = "1.0.0"
_P_KEYS = {"p_value", "p_exact", "p_chi2"}


def load_schema() -> dict[str, Any]:
    return dict(json.loads(resources.files("livetab_reporter").joinpath("leaderboard.schema.json").read_text()))


@functools.cache  # what is installed does not change under a running process
def livetab_version() -> str:
    try:
        return metadata.version("livetab")
    except metadata.PackageNotFoundError:
        return "unknown"


@functools.cache  # the commit of the code this process loaded: asked once (a subprocess, ~5 ms)
def git_commit() -> str | None:
    """The commit of the checkout this code runs from, or None (an installed copy, no git)."""
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent, capture_output=True,
                             text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    sha = out.stdout.strip()
    return sha if out.returncode == 0 and len(sha) == 40 else None


def release_manifest_hash(store: Any, release: str) -> tuple[str | None, int]:
    """(sha256 over the release's verified questions — id and gold, one line each in id order — and how many
    questions it covers); (None, 0) when the release has none. Any change to a question's gold changes it.
    A frozen release's questions are its frozen members (`export.release_questions`); read through a
    `ReadOnce` that knows the release frozen, the hash is computed once (`memo`: an evaluation's report process
    computes it while the requests are in flight)."""
    memo = getattr(store, "memo", None)
    if callable(memo):
        return memo("release_manifest_hash", release, lambda: _manifest_hash(store, release))  # type: ignore[no-any-return]
    return _manifest_hash(store, release)


def _manifest_hash(store: Any, release: str) -> tuple[str | None, int]:
    from livetab_reporter.export import release_questions

    lines = []
    for row in release_questions(store, release):
        if row["status"] != "verified":
            continue
        g = question_pb2.Question.FromString(row["payload"]).gold
        gold = {"kind": g.kind, "text": g.text, "items": list(g.items), "number": g.number, "boolean": g.boolean,
                "option": g.option, "unit": g.unit}
        if g.claims:  # only when set, so releases without claims keep their hash
            gold["claims"] = list(g.claims)
        lines.append(row["id"] + "\t" + json.dumps(gold, sort_keys=True, ensure_ascii=False))
    if not lines:
        return None, 0
    digest = hashlib.sha256("\n".join(sorted(lines)).encode("utf-8")).hexdigest()
    return f"sha256:{digest}", len(lines)


def rounded(obj: Any, key: str = "") -> Any:
    """Floats to 4 decimals (p-values to 4 significant digits, so a small one stays readable)."""
    if isinstance(obj, float):
        return float(f"{obj:.4g}") if key in _P_KEYS else round(obj, 4)
    if isinstance(obj, dict):
        return {k: rounded(v, k) for k, v in obj.items()}
    if isinstance(obj, list):
        return [rounded(v, key) for v in obj]
    return obj


def _empty_entry() -> dict[str, Any]:
    """A model with insight answers only: no QA answer."""
    return {"n": 0, "correct": 0, "accuracy": 0.0, "ci_low": 0.0, "ci_high": 1.0, "errors": 0, "items": 0,
            "pass_at_1": 0.0, "cons_at_1": 0.0, "cons_at_k": 0.0, "pass_at_k": {}, "samples_per_question": 1,
            "mean_prompt_tokens": None, "mean_completion_tokens": None, "mean_latency_ms": None}


def leaderboard_doc(store: Any, run_ids: list[str], *, judge: str, split_date: str = "") -> dict[str, Any]:
    """The leaderboard of these runs (all on one release), as leaderboard.json carries it.

    `models`: one entry per run, best accuracy first: {model, run_id, planned, n, correct, accuracy, ci_low,
    ci_high, pass_at_1, cons_at_<k>, samples_per_question, errors, families: {family: figures}, slices:
    {key: {value: figures}}, insight, ...} — the QA fields count question answering only; `insight` holds the
    model's insight scores and diversity (see `insight_section`). Added in schema 1.0.0: per entry
    `pass_at_k`, `cons_at_k`, token and latency means, `freshness`, `contamination`, `format_robustness`,
    `imperfect`, `judge_panel`, `configuration`; at the top `rank_significance`, `release_pooled` (every run
    pooled, with its strata; null for a single run) and the provenance keys."""
    lb = leaderboard(store, run_ids, judge=judge, split_date=split_date)
    agg, facts = lb.agg, lb.agg.facts
    runs = store.get_many(schema.runs, run_ids)
    release = next((runs[r]["release"] for r in run_ids if r in runs), "")
    models = []
    for run_id in run_ids:
        run = runs.get(run_id)
        if run_id in facts.run_ids:
            i = facts.run_ids.index(run_id)
            name, entry, strata, views, config = (facts.models[i], agg.overall[i], dict(agg.strata[i]), agg.views[i],
                                                  facts.configs[i])
        elif run_id in lb.insights:
            name, entry, strata, views, config = lb.insights[run_id][0].model, _empty_entry(), {}, {}, {}
        else:
            continue
        insight = {st.model: insight_entry(st) for st in lb.insights.get(run_id, [])}
        k = entry["samples_per_question"]
        models.append({
            "model": name, "run_id": run_id, "planned": run["planned"] if run else entry["n"],
            **{f: entry[f] for f in ("n", "correct", "accuracy", "ci_low", "ci_high")},
            "pass_at_1": entry["pass_at_1"], f"cons_at_{k}": entry[f"cons_at_{k}"], "samples_per_question": k,
            "errors": entry["errors"], "families": strata.pop("family", {}), "slices": strata,
            "insight": insight.get(name),
            "cons_at_k": entry["cons_at_k"], "pass_at_k": entry["pass_at_k"], "items": entry["items"],
            "mean_prompt_tokens": entry["mean_prompt_tokens"],
            "mean_completion_tokens": entry["mean_completion_tokens"], "mean_latency_ms": entry["mean_latency_ms"],
            "knowledge_cutoff": (config.get("model") or {}).get("knowledge_cutoff") or None,
            **{v: views.get(v) for v in ("freshness", "contamination", "format_robustness", "imperfect",
                                          "judge_panel")},
            "configuration": config,
        })
    models.sort(key=lambda m: (-m["accuracy"], m["model"]))
    order = [facts.run_ids.index(m["run_id"]) for m in models if m["run_id"] in facts.run_ids]
    manifest, n_questions = release_manifest_hash(store, release) if release else (None, 0)
    doc = {
        "schema_version": SCHEMA_VERSION, "livetab_version": livetab_version(), "git_commit": git_commit(),
        "first_judged_at": facts.first_judged_at or None, "last_judged_at": facts.last_judged_at or None,
        "release": release, "judge": judge, "release_manifest_hash": manifest, "release_questions": n_questions,
        "configuration": {"judge": judge, "contamination_split": split_date or None,
                          "runs": {m["run_id"]: m["configuration"] for m in models}},
        "models": models,
        "rank_significance": rank_significance(facts, order),
        "release_pooled": agg.release,
    }
    return dict(rounded(doc))
