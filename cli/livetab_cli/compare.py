"""`livetab compare RUN_A RUN_B`: the paired difference in accuracy between two evaluations of the same questions.

A run is an output folder of `livetab eval` or `livetab score` (its `samples.jsonl`) or a samples.jsonl file. The
samples are paired by (question, format, setting, sample index); only pairs judged in both runs count. The test is
McNemar's exact test on the discordant pairs (`livetab.metrics.mcnemar_test`: b ~ Binomial(b + c, 1/2) under
no difference, two-sided); the difference B - A = (c - b) / n comes with a 95% Wald interval for paired
proportions, se = sqrt(b + c - (c - b)^2 / n) / n."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

__all__ = ["CompareError", "add_parser", "compare_samples", "read_samples"]

Z95 = 1.959963984540054


class CompareError(ValueError):
    """A run that cannot be compared (one line)."""


def read_samples(run: Path, model: str = "") -> list[dict[str, Any]]:
    """The sample rows of one run: `run` is a folder holding samples.jsonl, or the file. A file with several
    models needs `model`."""
    path = run / "samples.jsonl" if run.is_dir() else run
    if not path.is_file():
        raise CompareError(f"{run}: no samples.jsonl (an output folder of `livetab eval` or `livetab score`)")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    models = sorted({r["model"] for r in rows})
    if model:
        rows = [r for r in rows if r["model"] == model]
        if not rows:
            raise CompareError(f"{path}: no sample of model {model!r} (models: {', '.join(models) or 'none'})")
    elif len(models) > 1:
        raise CompareError(f"{path} holds {len(models)} models ({', '.join(models)}): name one as {run}:MODEL")
    return rows


def _key(r: dict[str, Any]) -> tuple[str, str, str, int]:
    return (r["question_id"], r["format"], r["setting"], int(r["sample_index"]))


def compare_samples(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> dict[str, Any]:
    """The paired comparison of two runs' samples (see the module docstring)."""
    from livetab.metrics import mcnemar_test

    judged_a = {_key(r): r["verdict"] == "correct" for r in a if r["verdict"]}
    judged_b = {_key(r): r["verdict"] == "correct" for r in b if r["verdict"]}
    keys = sorted(judged_a.keys() & judged_b.keys())
    n = len(keys)
    if n == 0:
        raise CompareError("the two runs share no judged sample (same release, formats and settings?)")
    both = sum(judged_a[k] and judged_b[k] for k in keys)
    only_a = sum(judged_a[k] and not judged_b[k] for k in keys)
    only_b = sum(judged_b[k] and not judged_a[k] for k in keys)
    t = mcnemar_test(only_a, only_b)
    diff = (only_b - only_a) / n
    se = math.sqrt(max(only_a + only_b - (only_b - only_a) ** 2 / n, 0.0)) / n
    return {
        "paired": n, "only_in_a": len(judged_a.keys() - judged_b.keys()), "only_in_b": len(judged_b.keys() - judged_a.keys()),
        "accuracy_a": (both + only_a) / n, "accuracy_b": (both + only_b) / n, "both_correct": both,
        "a_correct_b_not": only_a, "b_correct_a_not": only_b, "difference_b_minus_a": diff,
        "ci95": [diff - Z95 * se, diff + Z95 * se], "test": "McNemar exact (two-sided binomial on discordant pairs)",
        "p_value": t.p_exact,
    }


def _run_arg(text: str) -> tuple[Path, str]:
    """RUN or RUN:MODEL (a folder or file that exists is taken whole)."""
    if Path(text).exists() or ":" not in text:
        return Path(text), ""
    path, model = text.rsplit(":", 1)
    return Path(path), model


def cmd_compare(args: argparse.Namespace) -> int:
    try:
        (pa, ma), (pb, mb) = _run_arg(args.run_a), _run_arg(args.run_b)
        doc = compare_samples(read_samples(pa, ma), read_samples(pb, mb))
    except (CompareError, OSError, KeyError, json.JSONDecodeError) as e:
        print(f"livetab compare: {e}", file=sys.stderr)
        return 2
    doc = {"a": args.run_a, "b": args.run_b, **doc}
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    lo, hi = doc["ci95"]
    print(f"A {args.run_a}: accuracy {doc['accuracy_a']:.3f}\nB {args.run_b}: accuracy {doc['accuracy_b']:.3f}\n"
          f"paired samples {doc['paired']} (unpaired: {doc['only_in_a']} only in A, {doc['only_in_b']} only in B); "
          f"A right B wrong {doc['a_correct_b_not']}, B right A wrong {doc['b_correct_a_not']}\n"
          f"B - A = {doc['difference_b_minus_a']:+.3f} [95% CI {lo:+.3f}, {hi:+.3f}]; McNemar exact p = "
          f"{doc['p_value']:.4g}")
    return 0


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        "compare", help="paired difference between two runs (output folders of eval/score) with McNemar's exact test")
    p.add_argument("run_a", metavar="RUN_A", help="output folder (or samples.jsonl) of the first run; FOLDER:MODEL "
                                                  "picks one model of several")
    p.add_argument("run_b", metavar="RUN_B", help="the second run, likewise")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p.set_defaults(func=cmd_compare)
    return p
