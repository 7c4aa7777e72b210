"""Leaderboard files: leaderboard.json, leaderboard.md, report.html (see `page`) with its figures (see `plots`),
and the operator's private report; where they go (`report_dir`) and what the reporter service writes for a run
and for a release (`write_run_files`, `write_release_files`).

Where, under the configured `out_dir` (relative to the working directory unless absolute):

- the configured release's files (`run.release`, e.g. the demo's) at the top: `out_dir/leaderboard.json`,
  `leaderboard.md`, `report.html`, `plots/`, `release/`, `private/`;
- any other release's under `out_dir/releases/<release>/`, laid out the same way;
- one run's under its release's folder, in `runs/<run id>/` (leaderboard.json, .md, report.html,
  private/report.html; the figures are drawn on the release's page);
- calibration.json (`livetab calibrate`, or the model-free figures the reporter computes) once, in `out_dir`.
"""

from __future__ import annotations

import html
import json
import os
import re
import threading
from pathlib import Path
from typing import Any

from livetab.calibration import COMPUTED, NOT_COMPUTED, calibration_markdown, headline, load_calibration
from livetab.ids import judge_name
from livetab.publication import is_public
from livetab.settings import Settings
from livetab.store import schema

from livetab_reporter.answers import answer_records, public_view
from livetab_reporter.document import leaderboard_doc
from livetab_reporter.facts import slice_order
from livetab_reporter.insight_section import insight_markdown
from livetab_reporter.page import SAMPLE_LIMIT, page_html
from livetab_reporter.plots import make_plots

__all__ = ["PRIVATE_DIR", "RELEASES_DIR", "RUNS_DIR", "calibration_html", "calibration_md", "calibration_summary",
           "leaderboard_doc", "out_root", "release_public", "release_runs", "report_dir", "write_leaderboard",
           "write_release_files", "write_reports", "write_run_files"]

PRIVATE_DIR = "private"  # under out_dir: the operator's files with a live release's questions and answers
RELEASES_DIR = "releases"  # under out_dir: one folder per release other than the configured one
RUNS_DIR = "runs"  # under a release's folder: one folder per run
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def out_root(settings: Settings) -> Path:
    """The configured output folder (`out_dir`), relative to the working directory unless absolute."""
    out = Path(settings.out_dir)
    return out if out.is_absolute() else Path.cwd() / out


def _part(kind: str, name: str) -> str:
    if not _NAME.match(name) or ".." in name:
        raise ValueError(f"{kind} {name!r} cannot name a folder (letters, digits, '.', '_', '-'; no '..')")
    return name


def report_dir(settings: Settings, release: str = "", run_id: str | None = None) -> Path:
    """Where the reporter writes a release's files (`run_id` None) or one run's (see the module docstring)."""
    root = out_root(settings)
    if release and release != settings.run.release:
        root = root / RELEASES_DIR / _part("release", release)
    return root / RUNS_DIR / _part("run", run_id) if run_id is not None else root


def release_runs(store: Any, release: str) -> list[str]:
    """Every run planned on `release`, in id order."""
    return sorted(r["id"] for r in store.select(schema.runs, release=release))


def release_public(store: Any, settings: Settings, release: str) -> bool:
    """The release may be published in full: retired in the store's lifecycle (`releases.status`), or by the
    configuration (`livetab.publication.is_public`)."""
    if is_public(release, settings):
        return True
    from livetab.releases import RETIRED, get_release

    record = get_release(store, release) if release else None
    return record is not None and record.status == RETIRED


def _write_text(path: Path, text: str) -> None:
    """Written whole or not at all: a reader (or a second reporter replica) never sees half a file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")  # the writer thread too
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


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
            for name, f in sorted(values.items(), key=lambda kv: slice_order(kv[0])):
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
                  public: bool = False, split_date: str = "", calibration_dir: Path | None = None,
                  figures: bool = True) -> dict[str, Any]:
    """leaderboard.json, leaderboard.md, report.html and its figures (plots/*.svg, drawn
    inline on the page too) for these runs, from
    `judge`'s verdicts, and the operator's private/report.html.

    `public` says the release is retired (`livetab.publication.is_public`): only then does the public page show
    question texts, gold answers, responses and the judge's reasons. The private page always does; it lives
    in `private/`, which is never to be published while the release is live. `split_date` is the
    contamination view's split (see `stats.aggregate`). calibration.json is read from `calibration_dir`
    (default `out_dir`). Without `figures` nothing is drawn (a run's own page: its release's page has them)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    doc = leaderboard_doc(store, run_ids, judge=judge, split_date=split_date)
    failures = [f for f in store.select(schema.failures) if not release or f["release"] in (release, "")]
    failures.sort(key=lambda f: (f["stage"], f["entity"]))
    calibration = load_calibration(calibration_dir or out_dir)
    doc["calibration"] = calibration_summary(calibration)
    doc["public"] = public
    _write_text(out_dir / "leaderboard.json", json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    _write_text(out_dir / "leaderboard.md", _markdown(doc, failures) + calibration_md(calibration))
    rank = {m["model"]: i for i, m in enumerate(doc["models"])}
    answers = sorted(answer_records(store, run_ids, judge=judge), key=lambda a: rank.get(a["model"], len(rank)))
    plots = make_plots(doc, answers) if figures else []
    plot_dir = out_dir / "plots"
    if plots:
        plot_dir.mkdir(exist_ok=True)
    for p in plots:
        for ext in ("png", "svg"):  # a PNG from an earlier version too: the figures are SVG only now
            (plot_dir / f"{p.name}.{ext}").unlink(missing_ok=True)
        if p.drawn:
            (plot_dir / f"{p.name}.svg").write_text(p.svg, encoding="utf-8")
    cal = calibration_html(calibration)
    # the public page of a live release redacts the answers it shows, not a copy of every one (a 100,000-answer run's
    # would be ~0.1 GB more while its files are written)
    shown = answers if public else public_view(answers[:SAMPLE_LIMIT])
    _write_text(out_dir / "report.html", page_html(doc, shown, plots, failures, cal, public_release=public, private=False,
                                                   answers_total=len(answers)))
    private = out_dir / PRIVATE_DIR
    private.mkdir(exist_ok=True)
    _write_text(private / "report.html",
                page_html(doc, answers, plots, failures, cal, public_release=public, private=True, svg_dir="../plots"))
    return doc


# --- what the reporter service writes ----------------------------------------------------------------------

def write_leaderboard(store: Any, settings: Settings, run_ids: list[str], out_dir: Path, release: str, *,
                      auto: dict[str, Any] | None = None, public: bool | None = None,
                      figures: bool = True) -> dict[str, Any]:
    """`write_reports` with what the settings say: the configured judge's verdicts, the contamination split,
    whether the release is public (`public`, default `release_public`), and calibration.json from `out_dir`'s root (the model-free figures
    computed when `livetab calibrate` has not run; `auto`: those figures, when the caller computed them already)."""
    from livetab_reporter.calibration import ensure_calibration

    root = out_root(settings)
    ensure_calibration(settings, root, auto=auto)
    return write_reports(store, run_ids, out_dir, release, judge=judge_name(settings.judge),
                         public=release_public(store, settings, release) if public is None else public,
                         split_date=settings.reporter.contamination_split, calibration_dir=root, figures=figures)


def read_once(store: Any) -> Any:
    """`store` read through a `ReadOnce` (livetab.store.read_once) for one set of files: the leaderboard, the
    answer records and the export each read the same judgments, results, questions and tables, and a live
    release's public and private exports read them all twice. Nothing here writes to the store, and the files
    of one call then come from one reading of it."""
    from livetab.store.read_once import ReadOnce

    return store if isinstance(store, ReadOnce) else ReadOnce(store)


def write_run_files(store: Any, settings: Settings, run_id: str, *, auto: dict[str, Any] | None = None) -> Path:
    """One run's leaderboard.json, .md and report.html (and private/report.html) in its folder. Its figures are
    drawn on its release's page, where the models are compared: drawing them again for every run would cost
    more than the rest of the report."""
    store = read_once(store)
    run = store.get(schema.runs, run_id)
    release = run["release"] if run is not None else ""
    folder = report_dir(settings, release, run_id)
    write_leaderboard(store, settings, [run_id], folder, release, auto=auto, figures=False)
    return folder


def write_release_files(store: Any, settings: Settings, release: str, *, auto: dict[str, Any] | None = None,
                        public: bool | None = None) -> dict[str, Any]:
    """A release's leaderboard files over every run on it, and its export (`release/`; the full files in
    `private/release/` while it is live, see `export.export_release_files`). Returns leaderboard.json's content."""
    from livetab_reporter.export import export_release_files

    store = read_once(store)
    store.prefetch_release(release)  # a frozen release's rows by key: its manifest hash is computed once
    folder = report_dir(settings, release)
    run_ids = release_runs(store, release)
    doc = write_leaderboard(store, settings, run_ids, folder, release, auto=auto, public=public)
    export_release_files(store, settings, folder / "release", release=release, run_ids=run_ids, public=public,
                         calibration=load_calibration(out_root(settings)))
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

