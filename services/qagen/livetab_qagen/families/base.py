"""What every family module shares: the candidate it proposes and the context it proposes from.

A family module exposes `candidates(ctx) -> list[Candidate]`: questions described by a spec (see
`derive`) and their text. Nothing here decides the gold answer; `programmatic` executes each
candidate's derivation for that, and `verify` checks it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from livetab.tables import Table

from livetab_qagen.derive import Spec, execute, render
from livetab_qagen.frame import Frame
from livetab_qagen.templates import Locale

__all__ = ["Candidate", "Context", "cond_text", "numeric_columns", "pick_rows"]


@dataclass
class Candidate:
    """A proposed question: its spec, wording and labels. `frame` is set when it is asked over a
    derived table (imperfect tables); `group` ties candidates that must be kept or dropped together."""

    family: str
    kind: str
    spec: Spec
    text: str
    skill: str
    scope: str
    operation: str = ""
    difficulty: str = "easy"
    gold_kind: str = ""
    options: list[str] = field(default_factory=list)
    frame: Frame | None = None
    closed_book: bool = False
    group: str = ""
    references: list[str] = field(default_factory=list)
    claims: list[dict[str, Any]] = field(default_factory=list)  # insight: each reference's executable claim
    contrasts: list[dict[str, Any]] = field(default_factory=list)  # insight: each reference's false twin
    variant: dict[str, Any] = field(default_factory=dict)


@dataclass
class Context:
    """The table being worked on, the locale, a seeded RNG, how many candidates of one kind to propose
    (`budget`), and a runner for derivations."""

    frame: Frame
    locale: Locale
    rng: random.Random
    budget: int = 12
    _df: Any = None

    @property
    def table(self) -> Table:
        return self.frame.table

    def run(self, spec: Spec) -> Any:
        """Execute the spec's derivation on this table (used to phrase statements and options)."""
        if self._df is None:
            self._df = self.frame.dataframe()
        return execute(render(spec, self.frame), self._df)

    def col(self, c: int) -> str:
        """A column as named in question text; unnamed columns by position, in the locale's words."""
        if c in self.frame.unnamed:
            return self.locale.t("unnamed_column", n=self.locale.number(c + 1))
        return self.locale.q(self.frame.names[c])

    def cell(self, r: int, c: int) -> str:
        return self.locale.q(self.frame.grid[r][c])


def numeric_columns(frame: Frame, *, complete: bool = True, kinds: tuple[str, ...] = ("number",)) -> list[int]:
    """Columns of the given kinds that are neither the key nor rank/running-number columns (and, if
    asked, have no gaps)."""
    return [c for c in range(frame.n_cols)
            if frame.kinds[c] in kinds and c != frame.key_column and not frame.is_index(c)
            and (frame.complete(c) or not complete)]


def cond_text(ctx: Context, k: Spec) -> str:
    """A condition in words: 'Won greater than 15' / 'Venue equal to "Paris"'."""
    loc = ctx.locale
    if k["as"] == "text":
        return loc.t("cond.text", col=ctx.col(k["col"]), val=loc.q(str(k["val"])))
    return loc.t("cond.number", col=ctx.col(k["col"]), cmp=loc.get("cmp")[k["cmp"]], val=loc.number(float(k["val"])))


def pick_rows(ctx: Context, k: int) -> list[int]:
    """k distinct data rows chosen with the context's RNG (fewer if the table is smaller); summary rows
    ("Total", "Gesamt") are not rows a question picks out."""
    rows = [r for r in ctx.frame.data_rows if r not in ctx.frame.total_rows]
    return ctx.rng.sample(rows, min(k, len(rows)))
