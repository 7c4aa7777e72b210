"""Checks every gold answer twice over: an independent recomputation, and table dependence.

1. `recompute(spec, table)` evaluates a spec with plain Python loops over the table's raw rows — its own
   cell cleaning, no pandas, no rendered derivation — so a wrong derivation or a pandas surprise
   (NaN handling, dtype coercion, label vs position) shows up as a disagreement.
2. `dependence(...)` re-executes the pandas derivation on copies of the table with one cell changed:
   every evidence cell the spec declares must be able to change the answer (so the answer cannot
   come from world knowledge), and cells in columns the derivation does not touch must not.
"""

from __future__ import annotations

import math
import random
from typing import Any

import pandas as pd
from livetab.numbers import format_number, parse_number
from livetab.rubric.locale import get_locale
from livetab.tables import Table

from livetab_qagen.derive import Spec, constants, execute, probe, reads, render, values_equal
from livetab_qagen.frame import Frame, parse_date

__all__ = ["DependenceResult", "dependence", "recompute", "recompute_agrees", "tolerance"]

FRESH = "Zq perturbed"
_FAR_DATES = ("January 1, 1901", "December 31, 2199")


def _grid(table: Table) -> list[list[str]]:
    width = table.n_cols
    return [[" ".join(str(r[c]).split()) if c < len(r) else "" for c in range(width)] for r in table.rows]


def _conv(text: str, as_: str, lang: str) -> Any:
    if as_ == "num":
        return parse_number(text, lang)
    if as_ == "date":
        return parse_date(text, lang)
    return text


def _holds(row: list[str], k: Spec, lang: str) -> bool:
    left = _conv(row[k["col"]], k["as"], lang)
    if left is None:
        return False
    right = k["val"]
    return bool({
        "==": lambda: left == right, ">": lambda: left > right, "<": lambda: left < right,
        ">=": lambda: left >= right, "<=": lambda: left <= right,
    }[k["cmp"]]())


def _round(spec: Spec, value: float) -> float:
    return round(value, spec["round"]) if "round" in spec else value


def _valued(grid: list[list[str]], c: int, as_: str, lang: str) -> list[tuple[float, list[str]]]:
    out = []
    for row in grid:
        v = _conv(row[c], as_, lang)
        if v is not None:
            out.append((float(v), row))
    return out


def recompute(spec: Spec, table: Table) -> Any:
    """The spec's answer by plain Python over `table`'s rows (raises LookupError when nothing matches)."""
    return _eval(spec, _grid(table), table.language or "en")


def _eval(spec: Spec, grid: list[list[str]], lang: str) -> Any:
    op = spec["op"]
    if op == "cell":
        hits = [row for row in grid if row[spec["key"]] == spec["kv"]]
        if not hits:
            raise LookupError(f"no row with key {spec['kv']!r}")
        text = hits[0][spec["col"]]
        if spec.get("as", "text") == "text":
            return text
        value = _conv(text, spec["as"], lang)
        return math.nan if value is None else float(value)
    if op == "count":
        return float(sum(1 for row in grid if all(_holds(row, k, lang) for k in spec["where"])))
    if op == "agg":
        values = [v for v, _ in _valued(grid, spec["col"], spec["as"], lang)]
        if not values:
            return math.nan
        fn = spec["fn"]
        total = sum(values) if fn == "sum" else sum(values) / len(values) if fn == "mean" else max(values) if fn == "max" else min(values)
        return _round(spec, total)
    if op in ("arg", "nth"):
        pairs = _valued(grid, spec["col"], spec["as"], lang)
        desc = spec["fn"] == "max" if op == "arg" else spec["desc"]
        ordered = sorted(pairs, key=lambda p: p[0], reverse=desc)
        return ordered[spec.get("n", 1) - 1][1][spec["key"]]
    if op == "nunique":
        return float(len({row[spec["col"]] for row in grid if row[spec["col"]]}))
    if op == "select":
        return sorted(row[spec["key"]] for row in grid if all(_holds(row, k, lang) for k in spec["where"]))
    if op in ("sub", "div", "pct"):
        a, b = float(_eval(spec["a"], grid, lang)), float(_eval(spec["b"], grid, lang))
        value = a - b if op == "sub" else a / b if op == "div" else (b - a) / a * 100
        return _round(spec, value)
    if op == "which":
        pairs = [(v, row) for v, row in _valued(grid, spec["col"], spec["as"], lang) if row[spec["key"]] in spec["kvs"]]
        best = (max if spec["fn"] == "max" else min)(pairs, key=lambda p: p[0])
        return best[1][spec["key"]]
    if op == "eq":
        return bool(_eval(spec["a"], grid, lang) == (float(spec["b"]) if isinstance(spec["b"], int) else spec["b"]))
    if op == "gt":
        return bool(_eval(spec["a"], grid, lang) > _eval(spec["b"], grid, lang))
    if op == "not":
        return not _eval(spec["a"], grid, lang)
    if op == "all":
        c = spec["where"][0]["col"]
        return all(all(_holds(row, k, lang) for k in spec["where"]) for row in grid if row[c])
    if op == "status":
        found = {row[spec["col"]] for row in grid if row[spec["key"]] == spec["kv"] and row[spec["col"]]}
        return "insufficient" if not found else "contradictory" if len(found) > 1 else found.pop()
    if op == "list":
        return [_eval(item, grid, lang) for item in spec["items"]]
    raise ValueError(f"unknown spec op {op!r}")


def tolerance(spec: Spec) -> float:
    """How far two computations of a rounded answer may differ: half a unit in the last kept place."""
    return 0.51 * 10 ** -spec["round"] if "round" in spec else 1e-9


def recompute_agrees(spec: Spec, table: Table, derived: Any) -> tuple[bool, str]:
    """(agrees, detail) comparing the derivation's value with the plain-Python recomputation."""
    try:
        again = recompute(spec, table)
    except (LookupError, ValueError, TypeError, ZeroDivisionError, IndexError) as exc:
        return False, f"recomputation failed: {type(exc).__name__}: {exc}"
    if values_equal(again, derived, tolerance(spec)):
        return True, f"recomputed {again!r}"
    return False, f"derivation gave {derived!r}, recomputation gave {again!r}"


def _with_cell(derivation: str, df: pd.DataFrame, r: int, c: int, value: str) -> Any:
    """Run the derivation with cell (r, c) set to `value`, then put the cell back."""
    original = df.iat[r, c]
    df.iat[r, c] = value
    try:
        return _safe(derivation, df)
    finally:
        df.iat[r, c] = original


def _safe(derivation: str, df: pd.DataFrame) -> Any:
    try:
        return execute(derivation, df)
    except Exception as exc:  # a perturbed table may break a lookup: that is a change
        return ("error", type(exc).__name__)


def _local(value: float, frame: Frame) -> str:
    """A number written as the table's language writes it (the decimal comma outside English)."""
    text = format_number(value)
    decimal = get_locale(frame.language).decimal
    return text.replace(".", decimal) if decimal != "." else text


def _perturbations(frame: Frame, r: int, c: int, hints: list[str]) -> list[str]:
    current = frame.grid[r][c]
    out = [FRESH]
    x = frame.numbers[c][r]
    if x is not None:
        out += [_local(x + 1, frame), _local(x - 1, frame), "99999999", "-99999999", "0"]
    if frame.dates[c][r] is not None:
        out += list(_FAR_DATES)
    out += hints
    column = [v for v in frame.column(c) if v and v != current]
    out += list(dict.fromkeys(column))[:3]
    out.append("")
    return [v for v in dict.fromkeys(out) if v != current]


class DependenceResult:
    """Outcome of the dependence check: `ok`, a `detail` line, and how many cells were tried."""

    def __init__(self, ok: bool, detail: str, evidence_checked: int, unread_checked: int) -> None:
        self.ok, self.detail = ok, detail
        self.evidence_checked, self.unread_checked = evidence_checked, unread_checked


def _delta_hints(spec: Spec, frame: Frame, base_probe: Any) -> dict[tuple[int, int], list[str]]:
    """For a numeric equality statement, cell values that would make the compared value hit the stated
    constant (x + (constant - value), and that times the row count for averages)."""
    out: dict[tuple[int, int], list[str]] = {}
    if spec["op"] == "not":
        return _delta_hints(spec["a"], frame, base_probe)
    if spec["op"] != "eq" or not isinstance(spec["b"], int | float) or not isinstance(base_probe, float):
        return out
    gap = float(spec["b"]) - base_probe
    cells, _ = reads(spec["a"], frame)
    for r, c in cells:
        x = frame.numbers[c][r]
        if x is not None:
            out[(r, c)] = [_local(x + gap, frame), _local(x + gap * max(1, len(frame.data_rows)), frame)]
    return out


def dependence(spec: Spec, derivation: str, frame: Frame, base: Any, *, rng: random.Random,
               max_evidence: int = 8, max_unread: int = 2) -> DependenceResult:
    """Change cells one at a time and re-run the derivation (see the module docstring).

    For a statement (True/False answer) the evidence cells must each move the value the statement is
    about (`derive.probe`), and at least one change must flip the statement's truth."""
    evidence, footprint = reads(spec, frame)
    if not evidence:
        return DependenceResult(False, "the derivation declares no cells it depends on", 0, 0)
    tol = tolerance(spec)
    df0 = frame.dataframe()
    probe_spec = probe(spec)
    probe_code = render(probe_spec, frame) if probe_spec is not None else derivation
    probe_base = _safe(probe_code, df0)
    probe_tol = tolerance(probe_spec) if probe_spec is not None else tol
    deltas = _delta_hints(spec, frame, probe_base) if probe_spec is not None else {}
    flipped = probe_spec is None
    cells = sorted(evidence)
    if len(cells) > max_evidence:
        cells = sorted(rng.sample(cells, max_evidence))
    hints = [_local(v, frame) if isinstance(v, int | float) else str(v) for v in constants(spec)
             if not isinstance(v, bool)]
    for r, c in cells:
        same_col = [frame.grid[er][ec] for er, ec in sorted(evidence) if ec == c and frame.grid[er][ec]]
        moved = False
        for value in _perturbations(frame, r, c, deltas.get((r, c), []) + same_col + hints):
            if not moved and not values_equal(_with_cell(probe_code, df0, r, c, value), probe_base, probe_tol):
                moved = True
            if not flipped and not values_equal(_with_cell(derivation, df0, r, c, value), base, tol):
                flipped = True
            if moved and flipped:
                break
        if not moved:
            return DependenceResult(False, f"answer does not depend on the cell it reads at row {r}, column "
                                    f"{frame.names[c]!r} (world knowledge or a constant answer)", len(cells), 0)
    for r, c in sorted(evidence - set(cells)) if not flipped else []:
        for value in _perturbations(frame, r, c, deltas.get((r, c), []) + hints):
            if not values_equal(_with_cell(derivation, df0, r, c, value), base, tol):
                flipped = True
                break
        if flipped:
            break
    if not flipped:
        return DependenceResult(False, "no change to a cell the statement reads changes its truth", len(cells), 0)
    unread = [(r, c) for c in range(frame.n_cols) if c not in footprint for r in range(frame.n_rows)]
    picked = rng.sample(unread, min(max_unread, len(unread)))
    for r, c in picked:
        for value in (FRESH, "99999999", ""):
            if not values_equal(_with_cell(derivation, df0, r, c, value), base, tol):
                return DependenceResult(False, f"answer changes with a cell it does not declare (row {r}, column "
                                        f"{frame.names[c]!r})", len(cells), len(picked))
    return DependenceResult(True, f"{len(cells)} read cells change the answer; {len(picked)} unread cells do not",
                            len(cells), len(picked))
