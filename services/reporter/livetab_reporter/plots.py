"""The report's figures, written as SVG (`livetab_reporter.svg`: text stays text, the same bytes for the same
figures, a few milliseconds for all of them).

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

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from livetab.metrics import wilson_interval

from livetab_reporter.facts import slice_order
from livetab_reporter.svg import Bar, Series, grouped_bars, hbars, lines

__all__ = ["WANTED", "Plot", "TokenAccuracy", "complexity_bins", "make_plots", "model_colours"]

# Slices the issue asks to see drawn, in this order; every other slice of leaderboard.json follows them.
WANTED = ("skill", "format", "freshness", "domain")
COLOURS = ("#3b6ea8", "#d9822b", "#4f9a5a", "#b04a5a", "#7d62a8", "#8c6d46", "#c46fb0", "#6f6f6f")
ACCURACY_LABEL = "accuracy (95% Wilson interval)"


@dataclass
class Plot:
    name: str
    title: str
    caption: str
    svg: str = ""
    note: str = ""  # why the figure was skipped (then svg is empty)

    @property
    def drawn(self) -> bool:
        return bool(self.svg)


def model_colours(doc: dict[str, Any]) -> dict[str, str]:
    """model -> its colour, the same in every figure: by the model's place in leaderboard.json (its rank)."""
    return {m["model"]: COLOURS[i % len(COLOURS)] for i, m in enumerate(doc["models"])}


def _bar(p: dict[str, Any]) -> Bar:
    """A leaderboard figure ({n, accuracy, ci_low, ci_high}) as a bar with its interval (none when n is 0)."""
    acc = float(p["accuracy"])
    return Bar(acc, min(float(p["ci_low"]), acc), max(float(p["ci_high"]), acc), int(p.get("n", 1)))


def _ranking(doc: dict[str, Any], colours: dict[str, str]) -> Plot:
    plot = Plot("ranking", "Accuracy per model", "Overall QA accuracy; bars are Wilson 95% intervals.")
    models = [m for m in doc["models"] if m["n"]]
    if not models:
        plot.note = "no judged question-answering answers yet"
        return plot
    plot.svg = hbars([f"{m['model']} (n={m['n']})" for m in models], [_bar(m) for m in models],
                     [colours.get(m["model"], COLOURS[0]) for m in models], title=plot.title, xlabel=ACCURACY_LABEL)
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
    empty = {"accuracy": 0.0, "ci_low": 0.0, "ci_high": 0.0, "n": 0}
    series = [Series(model, colours.get(model, COLOURS[i % len(COLOURS)]),
                     [_bar(data[model].get(v, empty)) for v in values]) for i, model in enumerate(data)]
    totals = [sum(data[m].get(v, {}).get("n", 0) for m in data) for v in values]
    rotate = len(values) > 6
    if rotate:  # one line each, slanted
        labels = [[f"{v} (n={t})"] for v, t in zip(values, totals, strict=True)]
    else:  # a long value ("fresh (after 2024-11-01)") breaks before its bracket, not over its neighbour
        labels = [[*str(v).replace(" (", "\n(").split("\n"), f"n={t}"] for v, t in zip(values, totals, strict=True)]
    width = max(640.0, 75.0 * len(values) * max(1.0, len(series) / 2) + 200)
    plot.svg = grouped_bars(labels, series, title=plot.title, xlabel=key, ylabel=ACCURACY_LABEL, rotate=rotate,
                            width=width)
    return plot


class TokenAccuracy:
    """Each model's QA answers as (prompt tokens, correct), taken from the answer records as they go by (`add`):
    what the complexity figure needs of every answer, ~0.1 KB each, not the records. Answers without a token
    count are left out."""

    def __init__(self) -> None:
        self.pairs: dict[str, list[tuple[int, bool]]] = {}

    @classmethod
    def of(cls, answers: Iterable[dict[str, Any]]) -> TokenAccuracy:
        tally = cls()
        for a in answers:
            tally.add(a)
        return tally

    def add(self, a: dict[str, Any]) -> None:
        if a["prompt_tokens"] > 0 and a["family"] != "insight":
            self.pairs.setdefault(a["model"], []).append((a["prompt_tokens"], a["verdict"] == "correct"))

    def bins(self, bins: int = 5) -> dict[str, list[dict[str, Any]]]:
        """model -> bins of its answers by prompt tokens (about equal counts per bin): each
        {lo, hi, n, correct, accuracy, ci_low, ci_high}."""
        out: dict[str, list[dict[str, Any]]] = {}
        for model in sorted(self.pairs):
            mine = sorted(self.pairs[model])
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


def complexity_bins(answers: Iterable[dict[str, Any]], bins: int = 5) -> dict[str, list[dict[str, Any]]]:
    """model -> bins of its QA answers by prompt tokens (about equal counts per bin): each
    {lo, hi, n, correct, accuracy, ci_low, ci_high}. Answers without a token count are left out."""
    return TokenAccuracy.of(answers).bins(bins)


def _complexity(tokens: TokenAccuracy, colours: dict[str, str]) -> Plot:
    plot = Plot("complexity", "Accuracy vs table complexity",
                "QA accuracy against the prompt tokens of the rendered table and question (bins of about equal "
                "size, marked at their median); error bars are Wilson 95% intervals.")
    data = tokens.bins()
    if not data or all(len(rows) < 2 for rows in data.values()):
        plot.note = "too few answers with prompt-token counts to bin (fewer than 6 per model)"
        return plot
    rank = {m: i for i, m in enumerate(colours)}  # the legend in the other figures' order
    series = [Series(model, colours.get(model, COLOURS[i % len(COLOURS)]), [_bar(r) for r in rows],
                     xs=[(r["lo"] + r["hi"]) / 2 for r in rows])
              for i, (model, rows) in enumerate(sorted(data.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0])))]
    plot.svg = lines(series, title=plot.title, xlabel="prompt tokens (table rendering + question)", ylabel=ACCURACY_LABEL)
    return plot


def make_plots(doc: dict[str, Any], answers: Iterable[dict[str, Any]] = (), *,
               tokens: TokenAccuracy | None = None) -> list[Plot]:
    """Every figure of the report, drawn or skipped with a note, in reading order. The complexity figure reads
    the answer records (`answers`) or, when given instead, what they were reduced to (`tokens`)."""
    keys = sorted({k for m in doc["models"] for k in m.get("slices", {})})
    ordered = [k for k in WANTED] + [k for k in keys if k not in WANTED]
    colours = model_colours(doc)
    return [_ranking(doc, colours), _by_slice(doc, "family", colours), *[_by_slice(doc, k, colours) for k in ordered[:2]],
            _complexity(tokens if tokens is not None else TokenAccuracy.of(answers), colours),
            *[_by_slice(doc, k, colours) for k in ordered[2:]]]
