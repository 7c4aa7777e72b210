"""Leaderboard files: leaderboard.json, leaderboard.md and a self-contained report.html."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from livetab.calibration import COMPUTED, NOT_COMPUTED, calibration_markdown, headline, load_calibration
from livetab.store import schema

from livetab_reporter.document import leaderboard_doc
from livetab_reporter.insight_section import insight_html, insight_markdown

__all__ = ["calibration_html", "calibration_md", "calibration_summary", "leaderboard_doc", "write_reports"]

def _markdown(doc: dict[str, Any], failures: list[dict[str, Any]]) -> str:
    lines = [f"# livetab leaderboard — release {doc['release']}", "",
             "| rank | model | n | correct | accuracy | 95% CI (Wilson) |", "|---:|---|---:|---:|---:|---|"]
    for i, m in enumerate(doc["models"], 1):
        lines.append(f"| {i} | {m['model']} | {m['n']} | {m['correct']} | {m['accuracy']:.3f} | "
                     f"[{m['ci_low']:.3f}, {m['ci_high']:.3f}] |")
    for m in doc["models"]:
        k = m["samples_per_question"]
        lines += ["", f"## {m['model']}", "", f"pass@1 {m['pass_at_1']:.3f}, cons@{k} {m[f'cons_at_{k}']:.3f} "
                  f"({k} sample(s) per question); {m['errors']} answer(s) missing because the model call failed."]
        for key, values in [("family", m["families"]), *sorted(m["slices"].items())]:
            lines += ["", f"| {key} | n | correct | accuracy | 95% CI | mean prompt tokens |",
                      "|---|---:|---:|---:|---|---:|"]
            for name, f in sorted(values.items()):
                if "n" not in f:
                    continue
                tok = f.get("mean_prompt_tokens", "")
                lines.append(f"| {name} | {f['n']} | {f['correct']} | {f['accuracy']:.3f} | "
                             f"[{f['ci_low']:.3f}, {f['ci_high']:.3f}] | {tok} |")
    lines += insight_markdown(doc)
    if failures:
        lines += ["", "## Recorded failures", "", "| stage | what | reason |", "|---|---|---|"]
        for f in failures[:200]:
            lines.append(f"| {f['stage']} | {f['entity']} | {f['reason'].replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def _html(doc: dict[str, Any], samples: list[dict[str, str]], failures: list[dict[str, Any]]) -> str:
    e = html.escape
    rows = "".join(
        f"<tr><td>{i}</td><td>{e(m['model'])}</td><td>{m['n']}</td><td>{m['correct']}</td>"
        f"<td>{m['accuracy']:.3f}</td><td>[{m['ci_low']:.3f}, {m['ci_high']:.3f}]</td></tr>"
        for i, m in enumerate(doc["models"], 1))
    fam = "".join(
        f"<tr><td>{e(m['model'])}</td><td>{e(k)}</td><td>{v['n']}</td><td>{v['accuracy']:.3f}</td>"
        f"<td>[{v['ci_low']:.3f}, {v['ci_high']:.3f}]</td></tr>"
        for m in doc["models"] for k, v in sorted(m["families"].items()))
    ex = "".join(
        f"<tr><td>{e(s['family'])}</td><td>{e(s['question'])}</td><td>{e(s['gold'])}</td><td>{e(s['response'])}</td>"
        f"<td class='{e(s['verdict'])}'>{e(s['verdict'])}</td></tr>" for s in samples)
    fails = "".join(f"<tr><td>{e(f['stage'])}</td><td>{e(f['entity'])}</td><td>{e(f['reason'])}</td></tr>"
                    for f in failures[:200])
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>livetab leaderboard — {e(doc['release'])}</title>
<style>body{{font-family:system-ui,sans-serif;margin:2rem;max-width:70rem}}table{{border-collapse:collapse;margin:1rem 0}}
td,th{{border:1px solid #ccc;padding:.3rem .6rem;text-align:left;vertical-align:top}}th{{background:#f3f3f3}}
.correct{{color:#060}}.incorrect,.error{{color:#a00}}.uncertain{{color:#a60}}</style></head><body>
<h1>livetab leaderboard — release {e(doc['release'])}</h1>
<table><tr><th>rank</th><th>model</th><th>n</th><th>correct</th><th>accuracy</th><th>95% CI (Wilson)</th></tr>{rows}</table>
<h2>By task family</h2>
<table><tr><th>model</th><th>family</th><th>n</th><th>accuracy</th><th>95% CI</th></tr>{fam}</table>
{insight_html(doc)}<h2>Sample answers</h2>
<table><tr><th>family</th><th>question</th><th>gold</th><th>model answer</th><th>verdict</th></tr>{ex}</table>
<h2>Recorded failures ({len(failures)})</h2>
<table><tr><th>stage</th><th>what</th><th>reason</th></tr>{fails}</table>
</body></html>
"""


def _samples(store: Any, run_ids: list[str], judge: str, limit: int = 30) -> list[dict[str, str]]:
    from livetab.records import load_question
    from livetab.v1 import inference_pb2

    out = []
    for run_id in run_ids:
        judged = sorted(store.select(schema.judgments, run_id=run_id, judge=judge), key=lambda r: r["id"])[:limit]
        questions = store.get_many(schema.questions, [j["question_id"] for j in judged])
        results = store.get_many(schema.results, [j["request_id"] for j in judged])
        for j in judged:
            q = load_question(questions.get(j["question_id"]))
            res = results.get(j["request_id"])
            response = inference_pb2.InferenceResult.FromString(res["payload"]).response if res else ""
            out.append({"family": j["family"], "question": q.text if q else "", "gold": q.gold.shown(q.options) if q else "",
                        "response": response, "verdict": j["verdict"]})
    return out


def write_reports(store: Any, run_ids: list[str], out_dir: Path, release: str = "", *, judge: str,
                  split_date: str = "") -> dict[str, Any]:
    """leaderboard.json, leaderboard.md and report.html for these runs, from `judge`'s verdicts
    (`split_date`: the contamination view's split, see `stats.aggregate`)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    doc = leaderboard_doc(store, run_ids, judge=judge, split_date=split_date)
    failures = [f for f in store.select(schema.failures) if not release or f["release"] in (release, "")]
    failures.sort(key=lambda f: (f["stage"], f["entity"]))
    calibration = load_calibration(out_dir)
    doc["calibration"] = calibration_summary(calibration)
    (out_dir / "leaderboard.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (out_dir / "leaderboard.md").write_text(_markdown(doc, failures) + calibration_md(calibration), encoding="utf-8")
    page = _html(doc, _samples(store, run_ids, judge), failures)
    (out_dir / "report.html").write_text(page.replace("</body>", calibration_html(calibration) + "</body>", 1),
                                         encoding="utf-8")
    return doc


# --- judge calibration (`livetab calibrate`: calibration.json beside these files) ----------------------

def calibration_summary(cal: dict[str, Any] | None) -> dict[str, Any]:
    """What leaderboard.json carries: every figure with its method and n, or "not computed"."""
    if cal is None:
        return {"status": NOT_COMPUTED, "note": "no calibration.json beside the leaderboard (run `livetab calibrate`)"}
    return {"generated_at": cal.get("generated_at", ""), "command": cal.get("command", ""),
            "figures": [{k: f.get(k) for k in ("key", "compares", "method", "n", "status", "values", "confusion",
                                                 "data", "licence", "judge", "computed_at", "note")}
                        for f in cal["figures"]]}


def calibration_md(cal: dict[str, Any] | None) -> str:
    return "\n" + "\n".join(calibration_markdown(cal, level=2)) + "\n"


def calibration_html(cal: dict[str, Any] | None) -> str:
    e = html.escape
    if cal is None:
        return "<h2>Judge calibration</h2><p>Not computed: no calibration.json was found (run <code>livetab " \
               "calibrate</code>).</p>\n"
    rows = "".join(
        f"<tr><td>{e(str(f.get('compares', '')))}</td><td>{e(str(f.get('method', '')))}</td>"
        f"<td>{f.get('n') if f.get('status') == COMPUTED else '—'}</td><td>{e(headline(f))}</td>"
        f"<td>{e(str(f.get('data', '')))} ({e(str(f.get('licence', '')))})</td><td>{e(str(f.get('judge', '')))}</td>"
        f"<td>{e(str(f.get('computed_at', ''))[:10])}</td></tr>" for f in cal["figures"])
    notes = "".join(f"<li><code>{e(str(f.get('key', '')))}</code>: {e(str(f.get('note', '')))} Counts (judge/reference): "
                    f"{e(', '.join(f'{k} {v}' for k, v in sorted(f.get('confusion', {}).items())))}</li>"
                    for f in cal["figures"] if f.get("status") == COMPUTED)
    return (f"<h2>Judge calibration</h2><p>Recomputed by <code>{e(str(cal.get('command', '')))}</code> at "
            f"{e(str(cal.get('generated_at', '')))}.</p>\n<table><tr><th>what is compared</th><th>method</th><th>n</th>"
            f"<th>result</th><th>data (licence)</th><th>judge configuration</th><th>date</th></tr>{rows}</table>"
            f"<ul>{notes}</ul>\n")

