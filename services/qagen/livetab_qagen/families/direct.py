"""Direct QA (AraTable): the value of one cell, found through a key column whose values are unique."""

from __future__ import annotations

from livetab_qagen.families.base import Candidate, Context, pick_rows

__all__ = ["candidates", "lookup_spec"]


def lookup_spec(ctx: Context, r: int, c: int) -> dict[str, object]:
    frame = ctx.frame
    key = frame.key_column
    assert key is not None
    as_ = "num" if frame.kinds[c] == "number" else "text"
    return {"op": "cell", "key": key, "kv": frame.grid[r][key], "col": c, "as": as_}


def candidates(ctx: Context) -> list[Candidate]:
    frame = ctx.frame
    key = frame.key_column
    if key is None:
        return []
    targets = [c for c in range(frame.n_cols) if c != key and frame.kinds[c] != "empty"]
    out: list[Candidate] = []
    for r in pick_rows(ctx, ctx.budget):
        # a cell repeating the row's own name (a label spread over two columns) asks nothing
        filled = [c for c in targets if frame.grid[r][c] and frame.grid[r][c] != frame.grid[r][key]]
        if not filled:
            continue
        c = ctx.rng.choice(filled)
        text = ctx.locale.t("direct.lookup", target=ctx.col(c), key=ctx.col(key), kv=ctx.cell(r, key))
        out.append(Candidate(family="direct", kind="lookup", spec=lookup_spec(ctx, r, c), text=text,
                             skill="lookup", scope="single_cell", operation="simple", difficulty="easy"))
    return out
