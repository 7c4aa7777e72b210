"""The report's figures, drawn with matplotlib (its object API on the Agg canvas, no pyplot, no display), each as PNG
and SVG.

Every figure shows accuracy with its Wilson 95% interval as an error bar, so a difference smaller than the
intervals reads as one:

- `ranking`: overall QA accuracy per model;
- one figure per slice of leaderboard.json (`skill`, `format`, `freshness`, `domain`, ... whatever keys the
  leaderboard has), bars grouped by slice value, one colour per model;
- `complexity`: accuracy against the prompt tokens of the rendered table (TeleTables' figure), binned so
  each bin holds about the same number of answers.

Each model has one colour in every figure: its rank's in leaderboard.json (`model_colours`).

A figure the data cannot support (no such slice, one value only, no token counts) is skipped with a note
saying why. Figures show counts and labels only, never a question or an answer."""

from __future__ import annotations

import io
import itertools
from dataclasses import dataclass
from typing import Any

import matplotlib
from livetab.metrics import wilson_interval
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from livetab_reporter.facts import slice_order

__all__ = ["WANTED", "Plot", "complexity_bins", "make_plots", "model_colours"]

# Slices the issue asks to see drawn, in this order; every other slice of leaderboard.json follows them.
WANTED = ("skill", "format", "freshness", "domain")
COLOURS = ("#3b6ea8", "#d9822b", "#4f9a5a", "#b04a5a", "#7d62a8", "#8c6d46", "#c46fb0", "#6f6f6f")
matplotlib.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "livetab", "font.size": 10})


@dataclass
class Plot:
    name: str
    title: str
    caption: str
    png: bytes = b""
    svg: str = ""
    note: str = ""  # why the figure was skipped (then png and svg are empty)

    @property
    def drawn(self) -> bool:
        return bool(self.png)


def _figure(figsize: tuple[float, float]) -> tuple[Figure, Any]:
    """A figure and its axes, on matplotlib's object API with the Agg canvas (no pyplot: no figure manager, no
    backend switching, and a tenth of a second less to import)."""
    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def _render(fig: Figure) -> tuple[bytes, str]:
    fig.tight_layout()  # one layout pass for both formats (bbox_inches="tight" would redo it per format)
    png, svg = io.BytesIO(), io.StringIO()
    fig.savefig(png, format="png", dpi=100, metadata={"Software": None})
    fig.savefig(svg, format="svg", metadata={"Date": None, "Creator": None})
    return png.getvalue(), svg.getvalue()


def model_colours(doc: dict[str, Any]) -> dict[str, str]:
    """model -> its colour, the same in every figure: by the model's place in leaderboard.json (its rank)."""
    return {m["model"]: COLOURS[i % len(COLOURS)] for i, m in enumerate(doc["models"])}


def _errors(points: list[dict[str, Any]]) -> tuple[list[float], list[list[float]]]:
    acc = [p["accuracy"] for p in points]
    return acc, [[max(a - p["ci_low"], 0.0) for a, p in zip(acc, points, strict=True)],
                 [max(p["ci_high"] - a, 0.0) for a, p in zip(acc, points, strict=True)]]


def _ranking(doc: dict[str, Any], colours: dict[str, str]) -> Plot:
    plot = Plot("ranking", "Accuracy per model", "Overall QA accuracy; bars are Wilson 95% intervals.")
    models = [m for m in doc["models"] if m["n"]]
    if not models:
        plot.note = "no judged question-answering answers yet"
        return plot
    models = models[::-1]  # best on top
    acc, err = _errors(models)
    fig, ax = _figure((6.4, 0.5 * len(models) + 1.4))
    ax.barh(range(len(models)), acc, color=[colours.get(m["model"], COLOURS[0]) for m in models], alpha=0.75)
    ax.errorbar(acc, range(len(models)), xerr=err, fmt="o", color="black", capsize=4)
    ax.set_yticks(range(len(models)), [f"{m['model']} (n={m['n']})" for m in models])
    ax.set_xlim(0, 1.05)
    ax.set_xlabel("accuracy (95% Wilson interval)")
    ax.set_title(plot.title)
    ax.grid(axis="x", alpha=0.3)
    plot.png, plot.svg = _render(fig)
    return plot


def _fresh_vs_older(m: dict[str, Any]) -> dict[str, Any]:
    """A model's fresh-vs-older split from its `contamination` view ({"fresh": figures, "older": figures,
    "split_date": ...}), when the leaderboard carries one; else {}."""
    view = m.get("contamination")
    if not isinstance(view, dict) or not isinstance(view.get("fresh"), dict) or not isinstance(view.get("older"), dict):
        return {}
    split = view.get("split_date") or "the split date"
    return {f"fresh (after {split})": view["fresh"], f"older (up to {split})": view["older"]}


def _slice_values(doc: dict[str, Any], key: str) -> dict[str, dict[str, dict[str, Any]]]:
    """model -> value -> {n, accuracy, ci_low, ci_high} for one slice key ("family" included; "freshness"
    falls back to the models' fresh-vs-older `contamination` view)."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for m in doc["models"]:
        values = m.get("families", {}) if key == "family" else m.get("slices", {}).get(key, {})
        if key == "freshness" and not values:
            values = _fresh_vs_older(m)
        kept = {v: f for v, f in values.items() if isinstance(f, dict) and f.get("n")}
        if kept:
            out[m["model"]] = kept
    return out


def _by_slice(doc: dict[str, Any], key: str, colours: dict[str, str]) -> Plot:
    plot = Plot(f"by_{key}", f"Accuracy by {key}", f"QA accuracy per {key} value and model; error bars are "
                "Wilson 95% intervals; n under each value is the answers counted (all models).")
    data = _slice_values(doc, key)
    values = sorted({v for per in data.values() for v in per}, key=slice_order)
    if not data:
        plot.note = f"the leaderboard has no `{key}` slice for this run"
        return plot
    if len(values) < 2 and key not in ("format",):
        plot.note = f"only one {key} ({', '.join(values)}) in this run: nothing to compare"
        return plot
    models = list(data)
    width = 0.8 / len(models)
    fig, ax = _figure((max(6.4, 0.75 * len(values) * max(1, len(models) / 2) + 2), 3.8))
    for i, model in enumerate(models):
        pts = [data[model].get(v, {"accuracy": 0.0, "ci_low": 0.0, "ci_high": 0.0, "n": 0}) for v in values]
        xs = [j + (i - (len(models) - 1) / 2) * width for j in range(len(values))]
        acc, err = _errors(pts)
        colour = colours.get(model, COLOURS[i % len(COLOURS)])
        ax.bar(xs, acc, width=width * 0.9, color=colour, alpha=0.75, label=model)
        shown = [k for k, p in enumerate(pts) if p["n"]]
        ax.errorbar([xs[k] for k in shown], [acc[k] for k in shown],
                    yerr=[[err[0][k] for k in shown], [err[1][k] for k in shown]], fmt="none", ecolor="black",
                    capsize=3)
    totals = [sum(data[m].get(v, {}).get("n", 0) for m in models) for v in values]
    if len(values) <= 6:  # a long value ("fresh (after 2024-11-01)") breaks before its bracket, not over its neighbour
        ax.set_xticks(range(len(values)), [f"{str(v).replace(' (', chr(10) + '(')}\nn={t}"
                                           for v, t in zip(values, totals, strict=True)])
    else:
        ax.set_xticks(range(len(values)), [f"{v} (n={t})" for v, t in zip(values, totals, strict=True)],
                      rotation=30, ha="right", rotation_mode="anchor")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("accuracy (95% Wilson interval)")
    ax.set_xlabel(key)
    ax.set_title(plot.title)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="model", title_fontsize=8)
    plot.png, plot.svg = _render(fig)
    return plot


def complexity_bins(answers: list[dict[str, Any]], bins: int = 5) -> dict[str, list[dict[str, Any]]]:
    """model -> bins of its QA answers by prompt tokens (about equal counts per bin): each
    {lo, hi, n, correct, accuracy, ci_low, ci_high}. Answers without a token count are left out."""
    out: dict[str, list[dict[str, Any]]] = {}
    models = sorted({a["model"] for a in answers})
    for model in models:
        mine = sorted((a["prompt_tokens"], a["verdict"] == "correct") for a in answers
                      if a["model"] == model and a["prompt_tokens"] > 0 and a["family"] != "insight")
        if not mine:
            continue
        k = max(1, min(bins, len(mine) // 3 or 1))
        edges = [round(i * len(mine) / k) for i in range(k + 1)]
        rows = []
        for a, b in itertools.pairwise(edges):
            chunk = mine[a:b]
            if not chunk:
                continue
            correct = sum(c for _, c in chunk)
            lo, hi = wilson_interval(correct, len(chunk))
            rows.append({"lo": chunk[0][0], "hi": chunk[-1][0], "n": len(chunk), "correct": correct,
                         "accuracy": correct / len(chunk), "ci_low": lo, "ci_high": hi})
        out[model] = rows
    return out


def _complexity(answers: list[dict[str, Any]], colours: dict[str, str]) -> Plot:
    plot = Plot("complexity", "Accuracy vs table complexity",
                "QA accuracy against the prompt tokens of the rendered table and question (bins of about equal "
                "size, marked at their median); error bars are Wilson 95% intervals.")
    data = complexity_bins(answers)
    if not data or all(len(rows) < 2 for rows in data.values()):
        plot.note = "too few answers with prompt-token counts to bin (fewer than 6 per model)"
        return plot
    fig, ax = _figure((6.4, 3.8))
    rank = {m: i for i, m in enumerate(colours)}  # the legend in the other figures' order
    for i, (model, rows) in enumerate(sorted(data.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0]))):
        xs = [(r["lo"] + r["hi"]) / 2 for r in rows]
        acc, err = _errors(rows)
        ax.errorbar(xs, acc, yerr=err, fmt="o-", capsize=3, color=colours.get(model, COLOURS[i % len(COLOURS)]),
                    label=model)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("prompt tokens (table rendering + question)")
    ax.set_ylabel("accuracy (95% Wilson interval)")
    ax.set_title(plot.title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="model", title_fontsize=8)
    plot.png, plot.svg = _render(fig)
    return plot


def make_plots(doc: dict[str, Any], answers: list[dict[str, Any]]) -> list[Plot]:
    """Every figure of the report, drawn or skipped with a note, in reading order."""
    keys = sorted({k for m in doc["models"] for k in m.get("slices", {})})
    ordered = [k for k in WANTED] + [k for k in keys if k not in WANTED]
    colours = model_colours(doc)
    return [_ranking(doc, colours), _by_slice(doc, "family", colours), *[_by_slice(doc, k, colours) for k in ordered[:2]],
            _complexity(answers, colours), *[_by_slice(doc, k, colours) for k in ordered[2:]]]
