"""Imperfect tables (TabularMath): a copy of the table where the value a question needs is missing,
or contradicted by a duplicate row that disagrees. The right answer is "insufficient" or
"contradictory"; the copy is a new Table with its own id, asked over and emitted with the questions.
"""

from __future__ import annotations

import copy

from livetab.ids import content_id
from livetab.tables import Table

from livetab_qagen.families.base import Candidate, Context, pick_rows
from livetab_qagen.families.direct import lookup_text
from livetab_qagen.frame import Frame

__all__ = ["candidates", "contradictory_copy", "missing_copy"]


def _copy(table: Table, how: str, r: int, c: int) -> Table:
    twin = copy.deepcopy(table)
    twin.id = content_id("tab", table.id, "imperfect", how, r, c)
    twin.cells = []  # the original's merged-cell layout no longer describes the copy
    twin.caption = table.caption
    return twin


def missing_copy(table: Table, r: int, c: int) -> Table:
    """The table with body cell (r, c) emptied."""
    twin = _copy(table, "missing", r, c)
    row = list(twin.rows[r]) + [""] * max(0, c + 1 - len(twin.rows[r]))
    row[c] = ""
    twin.rows[r] = row
    return twin


def contradictory_copy(table: Table, r: int, c: int, other: str) -> Table:
    """The table with row r repeated right after itself, its column c changed to `other`."""
    twin = _copy(table, "contradictory", r, c)
    row = list(twin.rows[r]) + [""] * max(0, c + 1 - len(twin.rows[r]))
    row[c] = other
    twin.rows.insert(r + 1, row)
    twin.profile = copy.deepcopy(table.profile)
    twin.profile.n_rows = len(twin.rows)
    return twin


def candidates(ctx: Context) -> list[Candidate]:
    frame = ctx.frame
    key = frame.key_column
    if key is None:
        return []
    out: list[Candidate] = []
    for i, r in enumerate(pick_rows(ctx, ctx.budget)):
        cols = [c for c in range(frame.n_cols) if c != key and frame.grid[r][c] and frame.kinds[c] != "empty"
                and frame.grid[r][c] != frame.grid[r][key]]
        if not cols:
            continue
        c = ctx.rng.choice(cols)
        text = lookup_text(ctx, r, c)
        spec = {"op": "status", "key": key, "kv": frame.grid[r][key], "col": c}
        if i % 2 == 0:
            twin, kind = missing_copy(frame.table, r, c), "insufficient"
        else:
            others = [v for v in dict.fromkeys(frame.column(c)) if v and v != frame.grid[r][c]]
            if not others:
                continue
            twin, kind = contradictory_copy(frame.table, r, c, ctx.rng.choice(others[:4])), "contradictory"
        out.append(Candidate(family="imperfect", kind=kind, spec=spec, text=text, skill="lookup",
                             scope="single_cell", operation="simple", difficulty="hard", gold_kind=kind,
                             frame=Frame(twin), variant={"imperfect": kind}))
    return out
