"""report.html: the page people read — ranking, figures, every breakdown of leaderboard.json with its
interval, insight scores, the per-sample answers with verdicts and the judge's reason, failures and the
judges' calibration.

Two variants of the same page: the *public* one (`private=False`) and the operator's *private* one. While a
release is live (see `livetab.publication.is_public`), the public page leaves out the question texts, the gold
answers, the models' responses and the judge's reasons (which can quote the answer): each sample is shown by
its ids, labels, verdict, tokens and latency only. The private page has everything. Once the release is
retired, both show everything.

Slices are rendered generically: every key of a model's `slices` (and any other per-model mapping of
{value: {n, accuracy, ci_low, ci_high, ...}}) becomes a table, so new breakdowns appear without code here."""

from __future__ import annotations

import html
import json
from typing import Any

from livetab_reporter.answers import SECRET
from livetab_reporter.facts import slice_order
from livetab_reporter.insight_section import insight_html
from livetab_reporter.plots import Plot

__all__ = ["page_html"]

e = html.escape
FIRST = ("n", "correct", "accuracy", "ci_low", "ci_high")
KNOWN_MODEL_KEYS = {"model", "run_id", "planned", "n", "correct", "accuracy", "ci_low", "ci_high", "pass_at_1",
                    "samples_per_question", "errors", "families", "slices", "insight"}
KNOWN_DOC_KEYS = {"release", "judge", "models", "calibration", "public"}
SAMPLE_LIMIT = 400  # per-sample rows on the page (the results export has every one)

STYLE = """body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;padding:1.5rem 2rem;
max-width:72rem;color:#1d1d1d;line-height:1.45}h1{margin-bottom:.2rem}h2{margin-top:2.2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.8rem 0;font-size:.92rem}td,th{border:1px solid #d4d4d4;padding:.25rem .55rem;
text-align:left;vertical-align:top}th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
.correct{color:#060}.incorrect,.error{color:#a00}.uncertain{color:#a60}.banner{padding:.6rem 1rem;border-radius:4px;
margin:1rem 0}.live{background:#fff4d6;border:1px solid #e0b64a}.private{background:#fde2e2;border:1px solid #c0392b}
.retired{background:#e3f1e3;border:1px solid #5a9a5a}figure{margin:1.2rem 0}figure svg{max-width:100%;height:auto;
border:1px solid #eee}figcaption{font-size:.9rem;color:#444}nav a{margin-right:.9rem}.bar{display:inline-block;
height:.7rem;background:#3b6ea8;opacity:.7;vertical-align:middle}.muted{color:#666}
.scroll{overflow-x:auto}#answers{font-size:.82rem}#answers td.wide{min-width:16rem;white-space:pre-wrap}"""


def _num(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.3f}"
    return e(str(v))


def _ci(f: dict[str, Any]) -> str:
    return f"[{f['ci_low']:.3f}, {f['ci_high']:.3f}]" if "ci_low" in f and "ci_high" in f else ""


def _cell(f: dict[str, Any] | None) -> str:
    """One model's figures for one slice value: accuracy with a bar, its interval and n, then any other field."""
    if not f:
        return "<td class='muted'>—</td>"
    acc = f.get("accuracy")
    head = ""
    if isinstance(acc, float | int):
        head = (f"<span class='bar' style='width:{4 * acc:.2f}rem'></span> <b>{acc:.3f}</b> {_ci(f)} "
                f"<span class='muted'>{f.get('correct', '')}/{f.get('n', '')}</span>")
    extra = [f"{k.replace('_', ' ')} {_num(v)}" for k, v in sorted(f.items())
             if k not in FIRST and not isinstance(v, dict | list) and v is not None]
    more = f"<br><span class='muted'>{e('; '.join(extra))}</span>" if extra else ""
    return f"<td>{head}{more}</td>"


def _slice_table(key: str, per_model: dict[str, dict[str, Any]]) -> str:
    """One breakdown, models side by side: a row per value; each cell the model's accuracy, Wilson interval,
    correct/n and every other field the leaderboard gives for that value."""
    models = [m for m, values in per_model.items() if any(isinstance(f, dict) for f in values.values())]
    values = sorted({v for m in models for v, f in per_model[m].items() if isinstance(f, dict)}, key=slice_order)
    if not values:
        return ""
    head = f"<tr><th>{e(key)}</th>" + "".join(f"<th>{e(m)}</th>" for m in models) + "</tr>"
    body = "".join(f"<tr><td>{e(str(v))}</td>" + "".join(_cell(per_model[m].get(v)) for m in models) + "</tr>"
                   for v in values)
    return f"<h3>By {e(key)}</h3><table class='slice' data-slice='{e(key)}'>{head}{body}</table>"


def _generic(value: Any, depth: int = 0) -> str:
    """Any other statistic of leaderboard.json, as nested tables (or JSON past a few levels)."""
    if isinstance(value, dict) and value and depth < 3:
        return "<table>" + "".join(f"<tr><th>{e(str(k))}</th><td>{_generic(v, depth + 1)}</td></tr>"
                                   for k, v in value.items()) + "</table>"
    if isinstance(value, list) and value and all(isinstance(x, dict) for x in value) and depth < 3:
        cols = list(dict.fromkeys(k for x in value for k in x))
        return ("<table><tr>" + "".join(f"<th>{e(str(c))}</th>" for c in cols) + "</tr>"
                + "".join("<tr>" + "".join(f"<td>{_generic(x.get(c, ''), depth + 1)}</td>" for c in cols) + "</tr>"
                          for x in value) + "</table>")
    if isinstance(value, dict | list):
        return f"<code>{e(json.dumps(value, ensure_ascii=False))}</code>"
    return _num(value)


def _ranking(doc: dict[str, Any]) -> str:
    rows = []
    for i, m in enumerate(doc["models"], 1):
        k = m.get("samples_per_question", 1)
        rows.append(f"<tr><td class='num'>{i}</td><td>{e(m['model'])}</td><td class='num'>{m['n']}</td>"
                    f"<td class='num'>{m['correct']}</td><td class='num'><span class='bar' style='width:"
                    f"{6 * m['accuracy']:.2f}rem'></span> {m['accuracy']:.3f}</td><td>{_ci(m)}</td>"
                    f"<td class='num'>{_num(m.get('pass_at_1', ''))}</td><td class='num'>{_num(m.get(f'cons_at_{k}', ''))}"
                    f" (k={k})</td><td class='num'>{m.get('errors', 0)}</td></tr>")
    return ("<table id='ranking'><tr><th>rank</th><th>model</th><th>n</th><th>correct</th><th>accuracy</th>"
            "<th>95% CI (Wilson)</th><th>pass@1</th><th>cons@k</th><th>failed calls</th></tr>" + "".join(rows)
            + "</table>")


def _breakdowns(doc: dict[str, Any]) -> str:
    models = doc["models"]
    keys = sorted({k for m in models for k, v in m.get("slices", {}).items() if isinstance(v, dict)})
    tables = [_slice_table("family", {m["model"]: m.get("families", {}) for m in models})]
    tables += [_slice_table(k, {m["model"]: m.get("slices", {}).get(k, {}) for m in models}) for k in keys]
    parts = [t for t in tables if t]
    for m in models:
        other = {k: v for k, v in m.items() if k not in KNOWN_MODEL_KEYS and not k.startswith("cons_at_")}
        if other:
            parts.append(f"<h3>Other statistics — {e(m['model'])}</h3>{_generic(other)}")
    return "".join(parts)


def _inline(svg: str) -> str:
    """A figure's SVG document as an element of the page (without its XML prolog, if any)."""
    return svg[svg.index("<svg"):].strip()


def _figures(plots: list[Plot], svg_dir: str) -> str:
    if not plots:
        return "<p class='muted'>No figures on this page: they are drawn on the release's report, beside the other runs.</p>"
    out = []
    for p in plots:
        if not p.drawn:
            continue
        out.append(f"<figure id='fig-{e(p.name)}'>{_inline(p.svg)}"
                   f"<figcaption><b>{e(p.title)}.</b> {e(p.caption)} <a href='{e(svg_dir)}/{e(p.name)}.svg'>SVG</a>"
                   "</figcaption></figure>")
    skipped = [p for p in plots if not p.drawn]
    if skipped:
        out.append("<p class='muted'>Not drawn: " + "; ".join(f"{e(p.title)} — {e(p.note)}" for p in skipped)
                   + ".</p>")
    return "".join(out)


def _samples(answers: list[dict[str, Any]], full: bool, total: int) -> str:
    cols = ["model", "question_id", "family", "skill", "format", "setting", "sample"]
    cols += ["question", "gold", "response", "verdict", "reason"] if full else ["verdict"]
    cols += ["prompt_tokens", "completion_tokens", "latency_ms"]
    shown = answers[:SAMPLE_LIMIT]
    head = "".join(f"<th>{e(c.replace('_', ' '))}</th>" for c in cols)
    body = []
    for a in shown:
        cells = []
        for c in cols:
            v = a.get(c, "")
            if c == "question_id":
                v = str(v)[:12]
            cls = (f" class='{e(str(v))}'" if c == "verdict" else " class='wide'" if c in ("question", "response", "reason")
                   else " class='num'" if isinstance(v, int | float) else "")
            cells.append(f"<td{cls}>{_num(v)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    more = (f"<p class='muted'>{len(shown)} of {total} answers shown; the results export has every one.</p>"
            if total > len(shown) else "")
    return f"<div class='scroll'><table id='answers'><tr>{head}</tr>{''.join(body)}</table></div>{more}"


def page_html(doc: dict[str, Any], answers: list[dict[str, Any]], plots: list[Plot], failures: list[dict[str, Any]],
              calibration: str, *, public_release: bool, private: bool, svg_dir: str = "plots",
              answers_total: int | None = None) -> str:
    """The page. `public_release`: the release is retired; `private`: the operator's copy, with everything.
    `answers`: the answers in the order shown, the first `SAMPLE_LIMIT` of which the page shows; `answers_total`,
    when given, is how many there are in all (`answers` may then be only those shown)."""
    full = public_release or private
    total = len(answers) if answers_total is None else answers_total
    if not full and any(a.get(k) for a in answers for k in SECRET):
        raise ValueError("the public page of a live release got unredacted answers (see answers.public_view)")
    release = e(doc["release"])
    if private:
        banner = ("<div class='banner private'><b>Private operator report.</b> It shows the question texts, gold "
                  "answers and model responses of " + ("a retired" if public_release else "a <b>live</b>")
                  + " release; do not publish it while the release is live.</div>")
    elif public_release:
        banner = "<div class='banner retired'>Release retired: questions, gold answers and responses are public.</div>"
    else:
        banner = ("<div class='banner live'><b>Live release.</b> While models are still evaluated on it, its question "
                  "texts, gold answers, the models' responses and the judge's reasons are withheld from public files; "
                  "each answer below is shown by its ids, labels and verdict. They are published when the release is "
                  "retired.</div>")
    other = {k: v for k, v in doc.items() if k not in KNOWN_DOC_KEYS}
    other_html = f"<h2 id='more'>Other statistics</h2>{_generic(other)}" if other else ""
    fails = "".join(f"<tr><td>{e(f['stage'])}</td><td>{e(f['entity'])}</td><td>{e(f['reason'])}</td></tr>"
                    for f in failures[:200])
    failures_html = f"<table><tr><th>stage</th><th>what</th><th>reason</th></tr>{fails}</table>"
    nav = "".join(f"<a href='#{a}'>{t}</a>" for a, t in [("ranking-h", "Ranking"), ("figures", "Figures"),
                                                         ("breakdowns", "Breakdowns"), ("samples", "Answers"),
                                                         ("failures", "Failures")])
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>livetab leaderboard — {release}{' (private)' if private else ''}</title><style>{STYLE}</style></head><body>
<h1>livetab leaderboard — release {release}</h1>
<p class="muted">Judge: <code>{e(doc.get('judge', ''))}</code>. Accuracy counts question-answering families; every
interval is a Wilson 95% interval.</p>{banner}<nav>{nav}</nav>
<h2 id="ranking-h">Ranking</h2>{_ranking(doc)}
<h2 id="figures">Figures</h2>{_figures(plots, svg_dir)}
<h2 id="breakdowns">Breakdowns</h2>{_breakdowns(doc)}
{insight_html(doc)}{other_html}
<h2 id="samples">Answers ({total})</h2>{_samples(answers, full, total)}
<h2 id="failures">Recorded failures ({len(failures)})</h2>{failures_html}
{calibration}</body></html>
"""
