"""Leaderboard files: leaderboard.json, leaderboard.md, report.html (see `page`) with its figures (see `plots`),
and the operator's private report."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from livetab.calibration import COMPUTED, NOT_COMPUTED, calibration_markdown, headline, load_calibration
from livetab.store import schema

from livetab_reporter.answers import answer_records, public_view
from livetab_reporter.document import leaderboard_doc
from livetab_reporter.insight_section import insight_markdown
from livetab_reporter.page import page_html
from livetab_reporter.plots import make_plots

__all__ = ["PRIVATE_DIR", "calibration_html", "calibration_md", "calibration_summary", "leaderboard_doc", "write_reports"]

PRIVATE_DIR = "private"  # under out_dir: the operator's files with a live release's questions and answers


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


def write_reports(store: Any, run_ids: list[str], out_dir: Path, release: str = "", *, judge: str,
                  public: bool = False, split_date: str = "") -> dict[str, Any]:
    """leaderboard.json, leaderboard.md, report.html and its figures (plots/*.png, *.svg) for these runs, from
    `judge`'s verdicts, and the operator's private/report.html.

    `public` says the release is retired (`livetab.publication.is_public`): only then does the public page show
    question texts, gold answers, responses and the judge's reasons. The private page always does; it lives
    in `private/`, which is never to be published while the release is live. `split_date` is the
    contamination view's split (see `stats.aggregate`)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    doc = leaderboard_doc(store, run_ids, judge=judge, split_date=split_date)
    failures = [f for f in store.select(schema.failures) if not release or f["release"] in (release, "")]
    failures.sort(key=lambda f: (f["stage"], f["entity"]))
    calibration = load_calibration(out_dir)
    doc["calibration"] = calibration_summary(calibration)
    doc["public"] = public
    (out_dir / "leaderboard.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (out_dir / "leaderboard.md").write_text(_markdown(doc, failures) + calibration_md(calibration), encoding="utf-8")
    rank = {m["model"]: i for i, m in enumerate(doc["models"])}
    answers = sorted(answer_records(store, run_ids, judge=judge), key=lambda a: rank.get(a["model"], len(rank)))
    plots = make_plots(doc, answers)
    plot_dir = out_dir / "plots"
    plot_dir.mkdir(exist_ok=True)
    for p in plots:
        for ext in ("png", "svg"):
            (plot_dir / f"{p.name}.{ext}").unlink(missing_ok=True)
        if p.drawn:
            (plot_dir / f"{p.name}.png").write_bytes(p.png)
            (plot_dir / f"{p.name}.svg").write_text(p.svg, encoding="utf-8")
    cal = calibration_html(calibration)
    shown = answers if public else public_view(answers)
    (out_dir / "report.html").write_text(
        page_html(doc, shown, plots, failures, cal, public_release=public, private=False), encoding="utf-8")
    private = out_dir / PRIVATE_DIR
    private.mkdir(exist_ok=True)
    (private / "report.html").write_text(
        page_html(doc, answers, plots, failures, cal, public_release=public, private=True, svg_dir="../plots"),
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

