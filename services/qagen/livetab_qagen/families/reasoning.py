"""Reasoning QA (AraTable, TeleTables): arithmetic, comparison, counting, averages, superlatives, ordinals,
distinct values, multi-criteria filters and temporal questions, each only where the table makes the
answer unambiguous (no summary rows for whole-table operations, unique extremes, no rank ties)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from livetab_qagen.derive import Spec, ranked_rows
from livetab_qagen.families.base import Candidate, Context, cond_text, numeric_columns

__all__ = ["KINDS", "candidates", "count_spec", "numeric_cond", "text_cond", "unique_extreme", "whole_table_ok"]


def _cand(kind: str, spec: Spec, text: str, skill: str, scope: str, op: str, difficulty: str) -> Candidate:
    return Candidate(family="reasoning", kind=kind, spec=spec, text=text, skill=skill, scope=scope,
                     operation=op, difficulty=difficulty)


def numeric_cond(ctx: Context, c: int, as_: str = "num") -> Spec | None:
    """A 'column > threshold' condition that some but not all rows meet; threshold is a value in the column."""
    kind = "date" if as_ == "date" else "num"
    values = sorted({v for r in ctx.frame.data_rows if (v := ctx.frame.value_of(r, c, kind)) is not None})
    if len(values) < 3:
        return None
    threshold = ctx.rng.choice(values[1:-1])
    return {"col": c, "cmp": ">", "val": threshold, "as": as_}


def text_cond(ctx: Context, c: int) -> Spec | None:
    """A 'column == value' condition for a value that occurs in more than one row (but not in all)."""
    counts = Counter(ctx.frame.grid[r][c] for r in ctx.frame.data_rows if ctx.frame.grid[r][c])
    # a value with neither letter nor digit ("…", "—", "?") marks a missing cell, not a category
    repeated = sorted(v for v, n in counts.items() if 2 <= n < len(ctx.frame.data_rows) and any(ch.isalnum() for ch in v))
    if not repeated:
        return None
    return {"col": c, "cmp": "==", "val": ctx.rng.choice(repeated), "as": "text"}


def count_spec(where: list[Spec]) -> Spec:
    return {"op": "count", "where": where}


def whole_table_ok(ctx: Context) -> bool:
    return not ctx.frame.total_rows and len(ctx.frame.data_rows) >= 3


def _text_cols(ctx: Context) -> list[int]:
    return [c for c in range(ctx.frame.n_cols) if ctx.frame.kinds[c] == "text" and c != ctx.frame.key_column]


def _count(ctx: Context) -> list[Candidate]:
    out = []
    for c in numeric_columns(ctx.frame, complete=False):
        if (k := numeric_cond(ctx, c)) is not None:
            out.append(_cand("count", count_spec([k]), ctx.t("reasoning.count", cond=cond_text(ctx, k)),
                             "count", "full_table", "count", "medium"))
    for c in _text_cols(ctx):
        if (k := text_cond(ctx, c)) is not None:
            out.append(_cand("count", count_spec([k]), ctx.t("reasoning.count", cond=cond_text(ctx, k)),
                             "count", "full_table", "count", "easy"))
    return out


def _multi(ctx: Context) -> list[Candidate]:
    out = []
    nums = numeric_columns(ctx.frame, complete=False, kinds=("number", "year"))
    conds = [k for c in nums if (k := numeric_cond(ctx, c))][:3] + [k for c in _text_cols(ctx) if (k := text_cond(ctx, c))][:2]
    for i, k1 in enumerate(conds):
        for k2 in conds[i + 1:]:
            where = [k1, k2]
            words = {"cond1": cond_text(ctx, k1), "cond2": cond_text(ctx, k2)}
            n = ctx.run(count_spec(where))
            if not 1 <= n < len(ctx.frame.data_rows):
                continue
            out.append(_cand("count_multi", count_spec(where), ctx.t("reasoning.count_multi", **words),
                             "multi-criteria", "full_table", "count", "hard"))
            key = ctx.frame.key_column
            if key is not None and n <= 3:
                spec = {"op": "select", "key": key, "where": where}
                out.append(_cand("select_multi", spec, ctx.t("reasoning.select_multi", key=ctx.col(key), **words),
                                 "multi-criteria", "full_table", "", "hard"))
    return out


def _aggregates(ctx: Context) -> list[Candidate]:
    out = []
    loc = ctx.locale
    for c in numeric_columns(ctx.frame):
        d = ctx.frame.decimals(c)
        spec = {"op": "agg", "fn": "sum", "col": c, "as": "num", "round": d}
        if ctx.frame.additive(c):
            out.append(_cand("sum", spec, ctx.t("reasoning.sum", col=ctx.col(c)), "arithmetic", "full_table",
                             "aggregation", "medium"))
        spec = {"op": "agg", "fn": "mean", "col": c, "as": "num", "round": 2}
        out.append(_cand("mean", spec, ctx.t("reasoning.mean", col=ctx.col(c), places=loc.get("places")[2]),
                         "average", "full_table", "aggregation", "medium"))
    return out


def _cell(ctx: Context, r: int, c: int, as_: str = "num") -> Spec:
    key = ctx.frame.key_column
    return {"op": "cell", "key": key, "kv": ctx.frame.grid[r][key or 0], "col": c, "as": as_}


def _pairs(ctx: Context) -> list[Candidate]:
    """Two rows, one numeric column: difference, ratio, percentage change, which is higher/lower."""
    out: list[Candidate] = []
    frame, loc = ctx.frame, ctx.locale
    if frame.key_column is None:
        return out
    for c in numeric_columns(frame, complete=False):
        # a summary row ("Total", "Gesamt") is not an entity to compare with the others
        rows = [r for r in frame.data_rows if frame.numbers[c][r] is not None and r not in frame.total_rows]
        if len(rows) < 2:
            continue
        ra, rb = ctx.rng.sample(rows, 2)
        va, vb = frame.numbers[c][ra], frame.numbers[c][rb]
        if va is None or vb is None or va == vb:
            continue
        words = {"col": ctx.col(c), "a": ctx.cell(ra, frame.key_column), "b": ctx.cell(rb, frame.key_column)}
        d = frame.decimals(c)
        a, b = _cell(ctx, ra, c), _cell(ctx, rb, c)
        out.append(_cand("diff", {"op": "sub", "a": a, "b": b, "round": d}, ctx.t("reasoning.diff", **words),
                         "arithmetic", "cross_reference", "comparative", "medium"))
        if vb != 0:
            out.append(_cand("ratio", {"op": "div", "a": a, "b": b, "round": 2},
                             ctx.t("reasoning.ratio", places=loc.get("places")[2], **words),
                             "arithmetic", "cross_reference", "comparative", "hard"))
        if va != 0:
            out.append(_cand("pct", {"op": "pct", "a": a, "b": b, "round": 1},
                             ctx.t("reasoning.pct", places=loc.get("places")[1], **words),
                             "arithmetic", "cross_reference", "comparative", "hard"))
        fn = ctx.rng.choice(["max", "min"])
        kvs = [frame.grid[ra][frame.key_column], frame.grid[rb][frame.key_column]]
        spec = {"op": "which", "fn": fn, "key": frame.key_column, "col": c, "kvs": kvs, "as": "num"}
        out.append(_cand("which", spec, ctx.t(f"reasoning.which_{fn}", **words), "compare", "cross_reference",
                         "comparative", "easy"))
    return out


def unique_extreme(ctx: Context, c: int, as_: str, desc: bool, n: int = 1) -> bool:
    """The n-th ranked value of column c differs from its neighbours in the ranking (no ties)."""
    kind = "date" if as_ == "date" else "num"
    ranked = [ctx.frame.value_of(r, c, kind) for r in ranked_rows(ctx.frame, c, as_, desc)]
    if len(ranked) < max(3, n + 1):
        return False
    return ranked[n - 1] != ranked[n] and (n == 1 or ranked[n - 2] != ranked[n - 1])


def _ranks(ctx: Context) -> list[Candidate]:
    out: list[Candidate] = []
    frame, loc = ctx.frame, ctx.locale
    key = frame.key_column
    if key is None:
        return out
    for c in numeric_columns(frame, complete=False):
        fn = ctx.rng.choice(["max", "min"])
        if unique_extreme(ctx, c, "num", fn == "max"):
            spec = {"op": "arg", "fn": fn, "col": c, "key": key, "as": "num"}
            out.append(_cand("arg", spec, ctx.t(f"reasoning.arg_{fn}", key=ctx.col(key), col=ctx.col(c)),
                             "superlative", "full_table", "superlative", "medium"))
        n, desc = ctx.rng.choice([2, 3]), ctx.rng.random() < 0.5
        if unique_extreme(ctx, c, "num", desc, n):
            spec = {"op": "nth", "col": c, "key": key, "n": n, "desc": desc, "as": "num"}
            text = ctx.t("reasoning.nth_desc" if desc else "reasoning.nth_asc", key=ctx.col(key), col=ctx.col(c),
                         nth=loc.get("ordinals")[n])
            out.append(_cand("nth", spec, text, "ordinal", "full_table", "ordinal", "hard"))
    return out


def _unique(ctx: Context) -> list[Candidate]:
    out = []
    for c in _text_cols(ctx):
        values = [ctx.frame.grid[r][c] for r in ctx.frame.data_rows if ctx.frame.grid[r][c]]
        if 2 <= len(set(values)) < len(values):
            out.append(_cand("nunique", {"op": "nunique", "col": c}, ctx.t("reasoning.nunique", col=ctx.col(c)),
                             "unique", "full_table", "unique", "medium"))
    return out


def _temporal(ctx: Context) -> list[Candidate]:
    out: list[Candidate] = []
    frame, loc = ctx.frame, ctx.locale
    key = frame.key_column
    for c in range(frame.n_cols):
        if frame.kinds[c] not in ("date", "year") or c == key:
            continue
        as_ = "date" if frame.kinds[c] == "date" else "num"
        if key is not None:
            fn = ctx.rng.choice(["min", "max"])
            if unique_extreme(ctx, c, as_, fn == "max"):
                spec = {"op": "arg", "fn": fn, "col": c, "key": key, "as": as_}
                text = ctx.t("reasoning.earliest" if fn == "min" else "reasoning.latest", key=ctx.col(key), col=ctx.col(c))
                out.append(_cand("temporal_extreme", spec, text, "temporal", "full_table", "superlative", "medium"))
            rows = ranked_rows(frame, c, as_, desc=False)
            if len(rows) >= 2:
                ra, rb = sorted(ctx.rng.sample(rows, 2), key=rows.index)
                kind = "date" if as_ == "date" else "num"
                if frame.value_of(ra, c, kind) != frame.value_of(rb, c, kind):
                    spec = {"op": "sub", "a": _cell(ctx, rb, c, as_), "b": _cell(ctx, ra, c, as_)}
                    words = {"col": ctx.col(c), "a": ctx.cell(ra, key), "b": ctx.cell(rb, key)}
                    text = ctx.t("reasoning.days_between" if as_ == "date" else "reasoning.years_between", **words)
                    out.append(_cand("temporal_span", spec, text, "temporal", "cross_reference", "comparative", "hard"))
        if whole_table_ok(ctx) and (k := numeric_cond(ctx, c, as_)) is not None:
            shown = next(frame.grid[r][c] for r in frame.data_rows if frame.value_of(r, c, "date" if as_ == "date" else "num") == k["val"])
            text = ctx.t("reasoning.count_after", col=ctx.col(c), val=loc.q(shown))
            out.append(_cand("temporal_count", count_spec([k]), text, "temporal", "full_table", "count", "hard"))
    return out


KINDS: dict[str, tuple[Callable[[Context], list[Candidate]], bool]] = {
    # kind: (proposer, needs the whole table to be free of summary rows)
    "count": (_count, True),
    "multi": (_multi, True),
    "aggregate": (_aggregates, True),
    "pairs": (_pairs, False),
    "ranks": (_ranks, True),
    "unique": (_unique, True),
    "temporal": (_temporal, False),
}


def candidates(ctx: Context) -> list[Candidate]:
    out: list[Candidate] = []
    whole = whole_table_ok(ctx)
    for propose, needs_whole in KINDS.values():
        if needs_whole and not whole:
            continue
        out.extend(propose(ctx))
    return out

