"""Multiple choice (TeleTables): one provably correct option and 3–4 plausible distractors.

Distractors are the confusions a reader makes: values of neighbouring rows in the same column, other
values of the column, counts off by one or two, a number in the wrong unit (×10, ÷10, ×100), the
runner-up of a ranking. Options are ones the rule judge can tell apart (distinct `option_key`s, no
bare letter as an option's text, no option of symbols only such as "▬"). Options are shuffled once with the seeded RNG. That exactly one option is
correct is checked in `programmatic` by executing the derivation and matching it against every option.
"""

from __future__ import annotations

from typing import Any

from livetab.numbers import parse_number
from livetab.rubric.mcq import option_key

from livetab_qagen.derive import Spec, ranked_rows
from livetab_qagen.families.base import Candidate, Context, cond_text, numeric_columns, pick_rows
from livetab_qagen.families.direct import lookup_spec, lookup_text
from livetab_qagen.families.reasoning import count_spec, numeric_cond, unique_extreme, whole_table_ok

__all__ = ["candidates", "options_for"]

N_DISTRACTORS = 4
MIN_DISTRACTORS = 3


def _neighbours(ctx: Context, r: int, c: int) -> list[str]:
    """Values of column c in rows near r (r±1, r±2, ...), then the rest of the column."""
    rows = sorted(ctx.frame.data_rows, key=lambda x: (abs(x - r), x))
    return [ctx.frame.grid[x][c] for x in rows if x != r and ctx.frame.grid[x][c]]


def options_for(ctx: Context, correct: Any, pool: list[Any]) -> list[str] | None:
    """The correct answer and up to N_DISTRACTORS distinct distractors from `pool`, shuffled; None if
    fewer than MIN_DISTRACTORS distinct ones exist. Numbers are compared by value, text by string."""
    loc = ctx.locale

    def shown(v: Any) -> str:
        return loc.number(float(v)) if isinstance(v, int | float) else str(v)

    def ident(text: str) -> Any:
        n = parse_number(text, loc.language)
        return ("n", n) if n is not None else ("t", text)

    def letter(text: str) -> bool:  # a bare "C" would name option C or the option whose text is "C"
        return len(text.strip()) == 1 and text.strip().isalpha()

    right = shown(correct)
    if letter(right) or not option_key(right):  # "▬", "—": a text the judge cannot tell from no answer
        return None
    seen = {ident(right)}
    keys = {option_key(right)}  # options the judge tells apart (it compares option_key, not the string)
    distractors: list[str] = []
    for v in pool:
        text = shown(v)
        if not text or ident(text) in seen or letter(text) or not option_key(text) or option_key(text) in keys:
            continue
        seen.add(ident(text))
        keys.add(option_key(text))
        distractors.append(text)
        if len(distractors) == N_DISTRACTORS:
            break
    if len(distractors) < MIN_DISTRACTORS:
        return None
    options = [right, *distractors]
    ctx.rng.shuffle(options)
    return options


def _number_pool(ctx: Context, value: float, decimals: int, near: list[str]) -> list[float]:
    near_values = [n for t in near if (n := parse_number(t, ctx.locale.language)) is not None]
    step = 10.0 ** -decimals if decimals else 1.0
    unit = [value * 10, value / 10, value * 100]
    off = [value + step, value - step]
    pool = near_values[:2] + off[:1] + unit[:1] + off[1:] + near_values[2:4] + unit[1:]
    return [round(v, max(decimals, 2)) for v in pool]


def _mk(kind: str, spec: Spec, base_text: str, options: list[str], skill: str, scope: str, op: str,
        ctx: Context, difficulty: str) -> Candidate:
    return Candidate(family="mcq", kind=kind, spec=spec, text=ctx.t("mcq.question", question=base_text),
                     skill=skill, scope=scope, operation=op, difficulty=difficulty, gold_kind="option", options=options)


def candidates(ctx: Context) -> list[Candidate]:
    frame = ctx.frame
    key = frame.key_column
    out: list[Candidate] = []
    if key is not None:
        for r in pick_rows(ctx, ctx.budget):
            cols = [c for c in range(frame.n_cols) if c != key and frame.grid[r][c] and frame.kinds[c] != "empty"
                    and frame.grid[r][c] != frame.grid[r][key]]
            if not cols:
                continue
            c = ctx.rng.choice(cols)
            spec = lookup_spec(ctx, r, c)
            value = ctx.run(spec)
            near = _neighbours(ctx, r, c)
            pool: list[Any] = _number_pool(ctx, value, frame.decimals(c), near) if spec["as"] == "num" else near
            options = options_for(ctx, value, pool)
            if options:
                text = lookup_text(ctx, r, c)
                out.append(_mk("lookup", spec, text, options, "lookup", "single_cell", "simple", ctx, "easy"))
    if not whole_table_ok(ctx):
        return out

    for c in numeric_columns(frame, complete=False):
        if (k := numeric_cond(ctx, c)) is not None:
            spec = count_spec([k])
            n = ctx.run(spec)
            options = options_for(ctx, n, [n + 1, n - 1, n + 2, n - 2] if n >= 2 else [n + 1, n + 2, n + 3, n + 4])
            if options:
                out.append(_mk("count", spec, ctx.t("reasoning.count", cond=cond_text(ctx, k)), options, "count",
                               "full_table", "count", ctx, "medium"))
        if key is not None:
            desc = ctx.rng.random() < 0.5
            if unique_extreme(ctx, c, "num", desc):
                ranked = ranked_rows(frame, c, "num", desc)
                spec = {"op": "arg", "fn": "max" if desc else "min", "col": c, "key": key, "as": "num"}
                pool = [frame.grid[r][key] for r in ranked[1:3] + ranked[-2:] + ranked[3:]]
                options = options_for(ctx, frame.grid[ranked[0]][key], pool)
                if options:
                    text = ctx.t("reasoning.arg_max" if desc else "reasoning.arg_min", key=ctx.col(key), col=ctx.col(c))
                    out.append(_mk("superlative", spec, text, options, "superlative", "full_table", "superlative",
                                   ctx, "medium"))
        if frame.complete(c) and frame.additive(c):
            d = frame.decimals(c)
            spec = {"op": "agg", "fn": "sum", "col": c, "as": "num", "round": d}
            total = ctx.run(spec)
            largest = max((v for v in frame.numbers[c] if v is not None), default=0.0)
            pool = [total - largest, total + largest, *_number_pool(ctx, total, d, [])]
            options = options_for(ctx, total, [round(v, max(d, 2)) for v in pool])
            if options:
                out.append(_mk("sum", spec, ctx.t("reasoning.sum", col=ctx.col(c)), options, "arithmetic",
                               "full_table", "aggregation", ctx, "medium"))
    return out
