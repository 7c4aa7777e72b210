"""Direct QA (AraTable): the value of one cell, found through a key column whose values are unique."""

from __future__ import annotations

from livetab_qagen.families.base import Candidate, Context, pick_rows
from livetab_qagen.frame import parse_date

__all__ = ["candidates", "lookup_spec", "lookup_text"]


def lookup_spec(ctx: Context, r: int, c: int) -> dict[str, object]:
    frame = ctx.frame
    key = frame.key_column
    assert key is not None
    as_ = "num" if frame.kinds[c] == "number" else "text"
    return {"op": "cell", "key": key, "kv": frame.grid[r][key], "col": c, "as": as_}


def lookup_text(ctx: Context, r: int, c: int) -> str:
    """The question for cell (r, c) found through the key column. When the row's name is text that appears
    in no other cell of the table (nor as a column name), the name alone says which row is meant, and the
    locale's `direct.lookup_entity` forms may leave the key column out."""
    frame = ctx.frame
    key = frame.key_column
    assert key is not None
    kv = frame.grid[r][key]
    words = {"target": ctx.col(c), "key": ctx.col(key), "kv": ctx.cell(r, key)}
    # a name, not a date or an ordinal ("April 16", "12th", "2012 (Feb)"): "the result of "April 16"" reads badly
    unique = (frame.kinds[key] == "text" and kv[:1].isalpha() and parse_date(kv, frame.language) is None
              and kv not in frame.names and sum(row.count(kv) for row in frame.grid) == 1)
    if unique and ctx.locale.has("direct.lookup_entity"):
        return ctx.t("direct.lookup_entity", **words)
    return ctx.t("direct.lookup", **words)


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
        text = lookup_text(ctx, r, c)
        out.append(Candidate(family="direct", kind="lookup", spec=lookup_spec(ctx, r, c), text=text,
                             skill="lookup", scope="single_cell", operation="simple", difficulty="easy"))
    return out
