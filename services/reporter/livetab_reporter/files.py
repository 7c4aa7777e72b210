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
import itertools
import json
import os
import re
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from livetab.calibration import COMPUTED, NOT_COMPUTED, calibration_markdown, headline, load_calibration
from livetab.ids import judge_name
from livetab.publication import is_public
from livetab.settings import Settings
from livetab.store import schema

from livetab_reporter.answers import iter_answer_records, public_view
from livetab_reporter.document import leaderboard_doc
from livetab_reporter.facts import slice_order
from livetab_reporter.insight_section import insight_markdown
from livetab_reporter.page import SAMPLE_LIMIT, page_html
from livetab_reporter.plots import TokenAccuracy, make_plots

__all__ = ["PRIVATE_DIR", "RELEASES_DIR", "RUNS_DIR", "PageAnswers", "calibration_html", "calibration_md",
           "calibration_summary", "leaderboard_doc", "out_root", "read_page_answers", "release_public", "release_runs",
           "report_dir", "write_leaderboard", "write_release_files", "write_reports", "write_run_files"]

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
                  figures: bool = True, doc: dict[str, Any] | None = None,
                  answers: PageAnswers | None = None) -> dict[str, Any]:
    """leaderboard.json, leaderboard.md, report.html and its figures (plots/*.svg, drawn
    inline on the page too) for these runs, from
    `judge`'s verdicts, and the operator's private/report.html.

    `public` says the release is retired (`livetab.publication.is_public`): only then does the public page show
    question texts, gold answers, responses and the judge's reasons. The private page always does; it lives
    in `private/`, which is never to be published while the release is live. `split_date` is the
    contamination view's split (see `stats.aggregate`). calibration.json is read from `calibration_dir`
    (default `out_dir`). Without `figures` nothing is drawn (a run's own page: its release's page has them). `doc`:
    the leaderboard of these runs when the caller has it (`leaderboard_doc`); `answers`: what the pages show of
    the answers when the caller took it from a pass of its own over them (`PageAnswers`), else it is read here."""
    out_dir.mkdir(parents=True, exist_ok=True)
    doc = leaderboard_doc(store, run_ids, judge=judge, split_date=split_date) if doc is None else doc
    failures = [f for f in store.select(schema.failures) if not release or f["release"] in (release, "")]
    failures.sort(key=lambda f: (f["stage"], f["entity"]))
    calibration = load_calibration(calibration_dir or out_dir)
    doc["calibration"] = calibration_summary(calibration)
    doc["public"] = public
    _write_text(out_dir / "leaderboard.json", json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    _write_text(out_dir / "leaderboard.md", _markdown(doc, failures) + calibration_md(calibration))
    if answers is None:
        answers = read_page_answers(store, doc, run_ids, judge=judge, figures=figures)
    shown, total = answers.shown(), answers.total
    plots = make_plots(doc, tokens=answers.tokens) if figures else []
    plot_dir = out_dir / "plots"
    if plots:
        plot_dir.mkdir(exist_ok=True)
    for p in plots:
        for ext in ("png", "svg"):  # a PNG from an earlier version too: the figures are SVG only now
            (plot_dir / f"{p.name}.{ext}").unlink(missing_ok=True)
        if p.drawn:
            (plot_dir / f"{p.name}.svg").write_text(p.svg, encoding="utf-8")
    cal = calibration_html(calibration)
    _write_text(out_dir / "report.html", page_html(doc, shown if public else public_view(shown), plots, failures, cal,
                                                   public_release=public, private=False, answers_total=total))
    private = out_dir / PRIVATE_DIR
    private.mkdir(exist_ok=True)
    _write_text(private / "report.html", page_html(doc, shown, plots, failures, cal, public_release=public, private=True,
                                                   svg_dir="../plots", answers_total=total))
    return doc


class PageAnswers:
    """What a report's pages show of its answers, taken as they go by (`add`, each run's in its records' order,
    `iter_answer_records`), never all held: the first `SAMPLE_LIMIT` in the order the pages show them (`shown`: the
    runs by their model's rank on the leaderboard `doc`, then by id), how many each run has, and (with `figures`)
    each model's prompt tokens and verdicts for the complexity figure (`tokens`)."""

    def __init__(self, doc: dict[str, Any], *, figures: bool) -> None:
        rank = {m["model"]: i for i, m in enumerate(doc["models"])}  # a name's last entry, as the pages always ranked
        self._place = {m["run_id"]: rank[m["model"]] for m in doc["models"] if m.get("run_id")}
        self._last = len(rank)
        self.first: dict[str, list[dict[str, Any]]] = {}  # run -> its first records that the pages may show
        self._cap: dict[str, int] = {}  # run -> how many of its first records may still be shown (`_trim`)
        self.counts: Counter[str] = Counter()
        self.tokens = TokenAccuracy() if figures else None
        self._kept = 0

    def add(self, a: dict[str, Any]) -> None:
        run = a["run_id"]
        self.counts[run] += 1
        if self.tokens is not None:
            self.tokens.add(a)
        kept = self.first.setdefault(run, [])
        if len(kept) < self._cap.get(run, SAMPLE_LIMIT):
            kept.append(a)
            self._kept += 1
            if self._kept > 2 * SAMPLE_LIMIT:
                self._trim()

    def _order(self) -> list[str]:
        return sorted(self.first, key=lambda r: (self._place.get(r, self._last), r))

    def _trim(self) -> None:
        """Drop what the runs ranked before a run already outnumber: a run's first records only grow, so those it
        drops would never be shown."""
        room = SAMPLE_LIMIT
        for run in self._order():
            del self.first[run][room:]
            self._cap[run] = room
            room -= len(self.first[run])
        self._kept = sum(len(v) for v in self.first.values())

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def shown(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for run in self._order():
            out += self.first[run][:SAMPLE_LIMIT - len(out)]
        return out


def read_page_answers(store: Any, doc: dict[str, Any], run_ids: list[str], *, judge: str,
                      figures: bool) -> PageAnswers:
    """`PageAnswers` of these runs read from the store: every answer with `figures` (the complexity figure reads
    them all), else each run's first `SAMPLE_LIMIT` and its count."""
    answers = PageAnswers(doc, figures=figures)
    if figures:
        for a in iter_answer_records(store, sorted(run_ids), judge=judge):
            answers.add(a)
        return answers
    for run_id in run_ids:
        for a in itertools.islice(iter_answer_records(store, [run_id], judge=judge), SAMPLE_LIMIT):
            answers.add(a)
        answers.counts[run_id] = store.count(schema.judgments, run_id=run_id, judge=judge)
    return answers


# --- what the reporter service writes ----------------------------------------------------------------------

def write_leaderboard(store: Any, settings: Settings, run_ids: list[str], out_dir: Path, release: str, *,
                      auto: dict[str, Any] | None = None, public: bool | None = None, figures: bool = True,
                      doc: dict[str, Any] | None = None, answers: PageAnswers | None = None) -> dict[str, Any]:
    """`write_reports` with what the settings say: the configured judge's verdicts, the contamination split,
    whether the release is public (`public`, default `release_public`), and calibration.json from `out_dir`'s root (the model-free figures
    computed when `livetab calibrate` has not run; `auto`: those figures, when the caller computed them already)."""
    from livetab_reporter.calibration import ensure_calibration

    root = out_root(settings)
    ensure_calibration(settings, root, auto=auto)
    return write_reports(store, run_ids, out_dir, release, judge=judge_name(settings.judge),
                         public=release_public(store, settings, release) if public is None else public,
                         split_date=settings.reporter.contamination_split, calibration_dir=root, figures=figures,
                         doc=doc, answers=answers)


def read_once(store: Any) -> Any:
    """`store` read through a `ReadOnce` (livetab.store.read_once) for one set of files: the leaderboard, the
    answer records and the export each read the same questions, tables and runs, and a live release's public and
    private exports read them twice. Nothing here writes to the store. The judgments and results are not kept
    (`unkept`): each pass over them (the leaderboard's facts, the pages' answers, each export) streams them from
    the store, so what a write holds is a chunk of them, not the run (a 100,000-answer run's are ~0.3 GB as rows);
    the reporter asks the judgments' digests (`ReadOnce.streamed`). A `ReadOnce` handed in is used as it is (an
    evaluation's report process keeps everything: its runs are read again at once)."""
    from livetab.store.read_once import ReadOnce

    return store if isinstance(store, ReadOnce) else ReadOnce(store, unkept=(schema.judgments, schema.results),
                                                              digested=(schema.judgments,))


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
    doc = leaderboard_doc(store, run_ids, judge=judge_name(settings.judge),
                          split_date=settings.reporter.contamination_split)
    # the pages' answers are taken from the export's pass over them: the release's answers are read twice in all
    # (the leaderboard's facts, then the export), never held
    answers = PageAnswers(doc, figures=True)
    export_release_files(store, settings, folder / "release", release=release, run_ids=run_ids, public=public,
                         calibration=load_calibration(out_root(settings)), observe=answers.add)
    return write_leaderboard(store, settings, run_ids, folder, release, auto=auto, public=public, doc=doc,
                             answers=answers)


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

