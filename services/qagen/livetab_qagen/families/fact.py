"""Fact verification (AraTable, TabFact): balanced True/False statements.

Each true statement is built from a derived value; its false twin is a minimal perturbation of it —
a changed number, a changed entity, a flipped comparison or a count off by one. The pair is kept or
dropped together, so the family stays balanced. The statement builders here are shared with the
insight family (its reference insights are true statements).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from livetab_qagen.derive import Spec, ranked_rows
from livetab_qagen.families.base import Candidate, Context, cond_text, numeric_columns, pick_rows
from livetab_qagen.families.direct import lookup_spec
from livetab_qagen.families.reasoning import count_spec, numeric_cond, text_cond, unique_extreme, whole_table_ok

__all__ = ["SCOPE", "SKILL", "STATEMENTS", "Statement", "candidates", "pairs"]

# (spec of a boolean, text, perturbation label); the false twin is None when no perturbation exists.
Statement = tuple[Spec, str, str]
Pair = tuple[Statement, Statement | None]


def _other_value(ctx: Context, c: int, current: str) -> str | None:
    """A different value from the same column, nearest rows first (a plausible wrong entity)."""
    values = [v for v in dict.fromkeys(ctx.frame.column(c)) if v and v != current]
    return ctx.rng.choice(values[:4]) if values else None


def _nudge(ctx: Context, value: float, decimals: int) -> float:
    """A nearby wrong number: off by about a tenth (at least one unit in the last shown place)."""
    step = max(round(abs(value) * 0.1, decimals), 10.0 ** -decimals)
    wrong = round(value + ctx.rng.choice([-1.0, 1.0]) * step, decimals)
    return float(wrong if wrong != value else round(value + step, decimals))


def simple(ctx: Context, negated: bool = False) -> list[Pair]:
    frame, loc = ctx.frame, ctx.locale
    key = frame.key_column
    if key is None:
        return []
    out: list[Pair] = []
    for r in pick_rows(ctx, 3):
        cols = [c for c in range(frame.n_cols) if c != key and frame.grid[r][c] and frame.kinds[c] != "empty"
                and frame.grid[r][c] != frame.grid[r][key]]
        if not cols:
            continue
        c = ctx.rng.choice(cols)
        cell = lookup_spec(ctx, r, c)
        words = {"target": ctx.col(c), "key": ctx.col(key), "kv": ctx.cell(r, key)}
        truth = ctx.run(cell)
        if cell["as"] == "num":
            if not isinstance(truth, float) or truth != truth:
                continue
            wrong: Any = _nudge(ctx, truth, frame.decimals(c))
            shown_true, shown_wrong = loc.number(truth), loc.number(wrong)
        else:
            wrong = _other_value(ctx, c, truth)
            if wrong is None:
                continue
            shown_true, shown_wrong = loc.q(truth), loc.q(wrong)
        if negated:
            stmt = ({"op": "not", "a": {"op": "eq", "a": cell, "b": wrong}},
                    ctx.t("fact.negation", value=shown_wrong, slot=words, **words), "negation")
            out.append((stmt, ({"op": "not", "a": {"op": "eq", "a": cell, "b": truth}},
                               ctx.t("fact.negation", value=shown_true, slot=words, **words), "negation")))
        else:
            label = "number" if cell["as"] == "num" else "entity"
            out.append(((({"op": "eq", "a": cell, "b": truth}), ctx.t("fact.lookup", value=shown_true, slot=words, **words), label),
                        ({"op": "eq", "a": cell, "b": wrong}, ctx.t("fact.lookup", value=shown_wrong, slot=words, **words), label)))
    return out


def count(ctx: Context) -> list[Pair]:
    out: list[Pair] = []
    frame, loc = ctx.frame, ctx.locale
    conds = [k for c in numeric_columns(frame, complete=False) if (k := numeric_cond(ctx, c))]
    conds += [k for c in range(frame.n_cols) if frame.kinds[c] == "text" and c != frame.key_column
              if (k := text_cond(ctx, c))]
    for k in conds[:3]:
        spec = count_spec([k])
        n = int(ctx.run(spec))
        wrong = n + 1 if n <= 1 or ctx.rng.random() < 0.5 else n - 1
        words = {"cond": cond_text(ctx, k)}
        out.append((({"op": "eq", "a": spec, "b": n}, ctx.t("fact.count", count=n, n=loc.number(n), slot=words, **words), "count"),
                    ({"op": "eq", "a": spec, "b": wrong}, ctx.t("fact.count", count=wrong, n=loc.number(wrong), slot=words, **words), "count")))
    return out


def aggregate(ctx: Context, fn: str = "sum") -> list[Pair]:
    out: list[Pair] = []
    loc = ctx.locale
    for c in [c for c in numeric_columns(ctx.frame) if fn != "sum" or ctx.frame.additive(c)][:2]:
        d = ctx.frame.decimals(c) if fn == "sum" else 2
        spec = {"op": "agg", "fn": fn, "col": c, "as": "num", "round": d}
        value = ctx.run(spec)
        wrong = _nudge(ctx, value, d)
        out.append((({"op": "eq", "a": spec, "b": value}, ctx.t(f"fact.{fn}", slot=c, col=ctx.col(c), value=loc.number(value)), "number"),
                    ({"op": "eq", "a": spec, "b": wrong}, ctx.t(f"fact.{fn}", slot=c, col=ctx.col(c), value=loc.number(wrong)), "number")))
    return out


def comparative(ctx: Context) -> list[Pair]:
    out: list[Pair] = []
    frame = ctx.frame
    key = frame.key_column
    if key is None:
        return out
    for c in numeric_columns(frame, complete=False)[:3]:
        # a summary row ("Total", "Gesamt") is not an entity to compare with the others
        rows = [r for r in frame.data_rows if frame.numbers[c][r] is not None and r not in frame.total_rows]
        if len(rows) < 2:
            continue
        ra, rb = ctx.rng.sample(rows, 2)
        va, vb = frame.numbers[c][ra] or 0.0, frame.numbers[c][rb] or 0.0
        if va == vb:
            continue
        hi, lo = (ra, rb) if va > vb else (rb, ra)

        def cell(r: int, c: int = c) -> Spec:
            return {"op": "cell", "key": key, "kv": frame.grid[r][key], "col": c, "as": "num"}

        out.append((({"op": "gt", "a": cell(hi), "b": cell(lo)},
                     ctx.t("fact.which_max", slot=c, col=ctx.col(c), a=ctx.cell(hi, key), b=ctx.cell(lo, key)), "comparison"),
                    ({"op": "gt", "a": cell(lo), "b": cell(hi)},
                     ctx.t("fact.which_max", slot=c, col=ctx.col(c), a=ctx.cell(lo, key), b=ctx.cell(hi, key)), "comparison")))
    return out


def superlative(ctx: Context, n: int = 1) -> list[Pair]:
    out: list[Pair] = []
    frame, loc = ctx.frame, ctx.locale
    key = frame.key_column
    if key is None or frame.total_rows:
        return out
    for c in numeric_columns(frame, complete=False)[:3]:
        desc = n > 1 or ctx.rng.random() < 0.5
        if not unique_extreme(ctx, c, "num", desc, n):
            continue
        ranked = ranked_rows(frame, c, "num", desc)
        spec: Spec = ({"op": "arg", "fn": "max" if desc else "min", "col": c, "key": key, "as": "num"} if n == 1
                      else {"op": "nth", "col": c, "key": key, "n": n, "desc": True, "as": "num"})
        right, wrong = frame.grid[ranked[n - 1]][key], frame.grid[ranked[n]][key]
        path = ("fact.arg_max" if desc else "fact.arg_min") if n == 1 else "fact.nth_desc"
        extra = {"nth": loc.get("ordinals")[n]} if n > 1 else {}
        out.append((({"op": "eq", "a": spec, "b": right}, ctx.t(path, slot=c, a=loc.q(right), col=ctx.col(c), **extra), "entity"),
                    ({"op": "eq", "a": spec, "b": wrong}, ctx.t(path, slot=c, a=loc.q(wrong), col=ctx.col(c), **extra), "entity")))
    return out


def unique(ctx: Context) -> list[Pair]:
    out: list[Pair] = []
    frame, loc = ctx.frame, ctx.locale
    if frame.total_rows:
        return out
    for c in range(frame.n_cols):
        values = [frame.grid[r][c] for r in frame.data_rows if frame.grid[r][c]]
        if frame.kinds[c] != "text" or c == frame.key_column or not 2 <= len(set(values)) < len(values):
            continue
        spec = {"op": "nunique", "col": c}
        n = int(ctx.run(spec))
        out.append((({"op": "eq", "a": spec, "b": n}, ctx.t("fact.nunique", slot=c, count=n, n=loc.number(n), col=ctx.col(c)), "count"),
                    ({"op": "eq", "a": spec, "b": n + 1}, ctx.t("fact.nunique", slot=c, count=n + 1, n=loc.number(n + 1), col=ctx.col(c)), "count")))
    return out


def all_rows(ctx: Context) -> list[Pair]:
    out: list[Pair] = []
    frame = ctx.frame
    for c in numeric_columns(frame, complete=False)[:2]:
        values = sorted({v for r in frame.data_rows if (v := frame.numbers[c][r]) is not None})
        if len(values) < 3:
            continue
        true_k = {"col": c, "cmp": ">=", "val": values[0], "as": "num"}
        false_k = {"col": c, "cmp": ">=", "val": values[1], "as": "num"}
        out.append((({"op": "all", "where": [true_k]}, ctx.t("fact.all", slot=c, cond=cond_text(ctx, true_k, slot=c)), "number"),
                    ({"op": "all", "where": [false_k]}, ctx.t("fact.all", slot=c, cond=cond_text(ctx, false_k, slot=c)), "number")))
    return out


STATEMENTS: dict[str, Callable[[Context], list[Pair]]] = {
    "simple": simple,
    "negation": lambda ctx: simple(ctx, negated=True),
    "count": count,
    "aggregation": aggregate,
    "comparative": comparative,
    "superlative": superlative,
    "ordinal": lambda ctx: superlative(ctx, n=2),
    "unique": unique,
    "all": all_rows,
}
SKILL = {"simple": "lookup", "negation": "lookup", "count": "count", "aggregation": "arithmetic",
          "comparative": "compare", "superlative": "superlative", "ordinal": "ordinal", "unique": "unique",
          "all": "compare"}
SCOPE = {"simple": "single_cell", "negation": "single_cell", "comparative": "cross_reference"}
FAMILY_KINDS = ("simple", "count", "aggregation", "comparative", "superlative")
LOCAL = ("simple", "negation", "comparative")


def pairs(ctx: Context, kind: str) -> list[Pair]:
    """True/false statement pairs of one operation; whole-table operations only where unambiguous."""
    if kind not in LOCAL and not whole_table_ok(ctx):
        return []
    return STATEMENTS[kind](ctx)


def candidates(ctx: Context) -> list[Candidate]:
    out: list[Candidate] = []
    for kind in FAMILY_KINDS:
        for i, (true_stmt, false_stmt) in enumerate(pairs(ctx, kind)):
            if false_stmt is None:
                continue
            for truth, (spec, statement, label) in (("true", true_stmt), ("false", false_stmt)):
                out.append(Candidate(
                    family="fact", kind=kind, spec=spec, text=ctx.t("fact.question", slot=f"{kind}:{i}", statement=statement),
                    skill=SKILL[kind], scope=SCOPE.get(kind, "full_table"), operation=kind,
                    difficulty="easy" if kind == "simple" else "medium", group=f"{kind}:{i}",
                    variant={"truth": truth, "perturbation": label if truth == "false" else ""},
                ))
    return out
