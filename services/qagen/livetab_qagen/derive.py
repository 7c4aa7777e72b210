"""Specs → pandas derivations, their execution, and the cells each one reads.

A *spec* is a small JSON-able dict naming an operation over columns (by index) and constants; it is
stored on the question (params["spec"]). `render` turns it into one readable pandas expression over
`df` (Question.derivation); `execute` evaluates that expression — this is where every gold answer
comes from. `reads` declares which cells the answer depends on (evidence) and which columns the
expression touches at all (footprint); the dependence check in `verify` holds the derivation to it.

Operations (``op``): cell, count, agg (sum/mean/max/min), arg (max/min), nth, nunique, select,
sub, div, pct, which, eq, gt, not, all, status, list. Conditions: {"col", "cmp", "val", "as"} with
cmp in ==, >, <, >=, <= and as in num, date, text.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import partial
from typing import Any

import pandas as pd

from livetab_qagen.frame import NAMESPACE, Frame, dat, num

__all__ = ["Spec", "cond_holds", "constants", "execute", "normalise_value", "probe", "ranked_rows", "reads", "render", "values_equal"]

Spec = dict[str, Any]
_CONVERT = {"num": "num", "date": "dat"}


def _col(frame: Frame, c: int, as_: str = "text") -> str:
    ref = f"df[{frame.names[c]!r}]"
    return f"{_CONVERT[as_]}({ref})" if as_ in _CONVERT else ref


def _lit(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return repr(int(value))
    return repr(value)


def _mask(frame: Frame, conds: list[Spec]) -> str:
    parts = [f"{_col(frame, k['col'], k['as'])} {k['cmp']} {_lit(k['val'])}" for k in conds]
    return parts[0] if len(parts) == 1 else " & ".join(f"({p})" for p in parts)


def _rowsel(frame: Frame, spec: Spec) -> str:
    return f"df[{frame.names[spec['key']]!r}] == {spec['kv']!r}"


def render(spec: Spec, frame: Frame) -> str:
    """The pandas expression (over `df`) that computes the spec's answer."""
    op = spec["op"]
    n = frame.names
    if op == "cell":
        sel = f"df.loc[{_rowsel(frame, spec)}, {n[spec['col']]!r}]"
        conv = _CONVERT.get(spec.get("as", "text"))
        return f"float({conv}({sel}).iloc[0])" if conv else f"{sel}.iloc[0]"
    if op == "count":
        return f"int(({_mask(frame, spec['where'])}).sum())"
    if op == "agg":
        body = f"float({_col(frame, spec['col'], spec['as'])}.{spec['fn']}())"
        return f"round({body}, {spec['round']})" if "round" in spec else body
    if op == "arg":
        return f"df.loc[{_col(frame, spec['col'], spec['as'])}.idx{spec['fn']}(), {n[spec['key']]!r}]"
    if op == "nth":
        order = "False" if spec["desc"] else "True"
        values = _col(frame, spec["col"], spec["as"])
        return f"df.loc[{values}.sort_values(ascending={order}).index[{spec['n'] - 1}], {n[spec['key']]!r}]"
    if op == "nunique":
        col = n[spec["col"]]
        return f"int(df.loc[df[{col!r}] != '', {col!r}].nunique())"
    if op == "select":
        return f"sorted(df.loc[{_mask(frame, spec['where'])}, {n[spec['key']]!r}])"
    if op in ("sub", "div", "pct"):
        a, b = render(spec["a"], frame), render(spec["b"], frame)
        body = {"sub": f"{a} - {b}", "div": f"{a} / {b}", "pct": f"({b} - {a}) / {a} * 100"}[op]
        return f"round({body}, {spec['round']})" if "round" in spec else body
    if op == "which":
        rows = f"df.loc[df[{n[spec['key']]!r}].isin({spec['kvs']!r})].set_index({n[spec['key']]!r})"
        conv = _CONVERT[spec["as"]]
        return f"{conv}({rows}[{n[spec['col']]!r}]).idx{spec['fn']}()"
    if op == "eq":
        return f"{render(spec['a'], frame)} == {_lit(spec['b'])}"
    if op == "gt":
        return f"{render(spec['a'], frame)} > {render(spec['b'], frame)}"
    if op == "not":
        return f"not ({render(spec['a'], frame)})"
    if op == "all":
        k = spec["where"][0]
        return f"bool(({_mask(frame, spec['where'])})[df[{n[k['col']]!r}] != ''].all())"
    if op == "status":
        return f"status(df.loc[{_rowsel(frame, spec)}, {n[spec['col']]!r}])"
    if op == "list":
        return "[" + ", ".join(render(s, frame) for s in spec["items"]) + "]"
    raise ValueError(f"unknown spec op {op!r}")


def probe(spec: Spec) -> Spec | None:
    """For a statement (a spec with a True/False answer), the value spec its truth is about: what the
    dependence check requires every evidence cell to move. None for specs that are values already."""
    op = spec["op"]
    if op == "eq":
        return spec["a"]  # type: ignore[no-any-return]
    if op == "gt":
        return {"op": "list", "items": [spec["a"], spec["b"]]}
    if op == "not":
        return probe(spec["a"])
    if op == "all":
        return {"op": "count", "where": spec["where"]}
    if op == "list":
        inner = [probe(item) for item in spec["items"]]
        return None if any(i is None for i in inner) else {"op": "list", "items": inner}
    return None


def normalise_value(value: Any) -> Any:
    """numpy/pandas scalars and sequences as plain Python values, so results compare cleanly."""
    if isinstance(value, bool):
        return value
    if hasattr(value, "item") and not isinstance(value, pd.Series | pd.Index):
        value = value.item()
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, float):
        return value
    if isinstance(value, list | tuple | pd.Series | pd.Index):
        return [normalise_value(v) for v in list(value)]
    return value


def execute(derivation: str, df: pd.DataFrame) -> Any:
    """Evaluate a derivation expression over `df` with only the frame helpers in scope; `num` and `dat`
    read cells in the table's language (`df.attrs["language"]`, set by `Frame.dataframe`)."""
    language = str(df.attrs.get("language") or "en")
    scope: dict[str, Any] = {"__builtins__": {}, **NAMESPACE, "df": df}
    if language != "en":
        scope["num"] = partial(num, language=language)
        scope["dat"] = partial(dat, language=language)
    return normalise_value(eval(derivation, scope))  # our own rendered expressions only


def values_equal(a: Any, b: Any, tol: float = 1e-9) -> bool:
    """Equality for derived values: floats within `tol` (NaN never equal), lists element-wise."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return False
        return abs(a - b) <= tol + 1e-12 * max(abs(a), abs(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(values_equal(x, y, tol) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)


def cond_holds(frame: Frame, r: int, k: Spec) -> bool:
    """Whether row r satisfies condition k (plain Python over the frame's parsed cells)."""
    if k["as"] == "text":
        left: Any = frame.grid[r][k["col"]]
    else:
        left = frame.value_of(r, k["col"], "date" if k["as"] == "date" else "num")
        if left is None:
            return False
    right = k["val"]
    cmp = k["cmp"]
    if cmp == "==":
        return bool(left == right)
    if cmp == ">":
        return bool(left > right)
    if cmp == "<":
        return bool(left < right)
    if cmp == ">=":
        return bool(left >= right)
    return bool(left <= right)


def _key_rows(frame: Frame, spec: Spec) -> list[int]:
    return [r for r in range(frame.n_rows) if frame.grid[r][spec["key"]] == spec["kv"]]


def _filled(frame: Frame, c: int) -> set[tuple[int, int]]:
    return {(r, c) for r in range(frame.n_rows) if frame.grid[r][c]}


def ranked_rows(frame: Frame, c: int, as_: str, desc: bool) -> list[int]:
    """Rows with a value in column c, best first (stable: earlier rows win ties)."""
    kind = "date" if as_ == "date" else "num"
    rows = [r for r in range(frame.n_rows) if frame.value_of(r, c, kind) is not None]
    return sorted(rows, key=lambda r: -(frame.value_of(r, c, kind) or 0.0) if desc else (frame.value_of(r, c, kind) or 0.0))


def _where_reads(frame: Frame, conds: list[Spec]) -> set[tuple[int, int]]:
    cells: set[tuple[int, int]] = set()
    for r in range(frame.n_rows):
        for i, k in enumerate(conds):
            if all(cond_holds(frame, r, other) for j, other in enumerate(conds) if j != i):
                cells.add((r, k["col"]))
    return cells


def reads(spec: Spec, frame: Frame) -> tuple[set[tuple[int, int]], set[int]]:
    """(evidence cells, footprint columns): cells whose change must change the answer, and every
    column the derivation touches. Cells outside the footprint must not matter."""
    op = spec["op"]
    if op in ("cell", "status"):
        rows = _key_rows(frame, spec)
        cells = {(r, spec["col"]) for r in rows}
        if op == "cell":
            cells |= {(r, spec["key"]) for r in rows[:1]}
        return cells, {spec["key"], spec["col"]}
    if op in ("count", "all"):
        return _where_reads(frame, spec["where"]), {k["col"] for k in spec["where"]}
    if op in ("agg", "nunique"):
        return _filled(frame, spec["col"]), {spec["col"]}
    if op in ("arg", "nth"):
        desc = spec["fn"] == "max" if op == "arg" else spec["desc"]
        row = ranked_rows(frame, spec["col"], spec["as"], desc)[spec.get("n", 1) - 1]
        return _filled(frame, spec["col"]) | {(row, spec["key"])}, {spec["col"], spec["key"]}
    if op == "select":
        cells = _where_reads(frame, spec["where"])
        matched = [r for r in range(frame.n_rows) if all(cond_holds(frame, r, k) for k in spec["where"])]
        cells |= {(r, spec["key"]) for r in matched}
        return cells, {k["col"] for k in spec["where"]} | {spec["key"]}
    if op == "which":
        rows = [r for r in range(frame.n_rows) if frame.grid[r][spec["key"]] in spec["kvs"]]
        return {(r, spec["col"]) for r in rows}, {spec["key"], spec["col"]}
    children: Iterable[Spec]
    if op in ("sub", "div", "pct", "gt"):
        children = (spec["a"], spec["b"])
    elif op in ("eq", "not"):
        children = (spec["a"],)
    elif op == "list":
        children = spec["items"]
    else:
        raise ValueError(f"unknown spec op {op!r}")
    cells, cols = set(), set()
    for child in children:
        c_cells, c_cols = reads(child, frame)
        cells |= c_cells
        cols |= c_cols
    return cells, cols


def constants(spec: Spec) -> list[Any]:
    """Every constant a spec mentions (compared values, keys): useful perturbations of the cells it reads."""
    out: list[Any] = []
    for key, value in spec.items():
        if key in ("kv", "val", "b") and not isinstance(value, dict):
            out.extend(value if isinstance(value, list) else [value])
        elif key == "kvs":
            out.extend(value)
        elif isinstance(value, dict):
            out.extend(constants(value))
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, dict):
                    out.extend(constants(item))
    return out
