"""What every family module shares: the candidate it proposes and the context it proposes from.

A family module exposes `candidates(ctx) -> list[Candidate]`: questions described by a spec (see
`derive`) and their text. Nothing here decides the gold answer; `programmatic` executes each
candidate's derivation for that, and `verify` checks it.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass, field
from typing import Any

from livetab.tables import Table

from livetab_qagen.derive import Spec, execute, render
from livetab_qagen.frame import Frame
from livetab_qagen.templates import Locale

__all__ = ["Candidate", "Context", "cond_text", "numeric_columns", "pick_rows"]

_DOUBLED_WORD = re.compile(r"\b(\w{3,}) \1s?\b", re.IGNORECASE)  # "the total total", "value values"


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
    (`budget`), a runner for derivations, and `salt` (table and seed), which picks each question's surface form."""

    frame: Frame
    locale: Locale
    rng: random.Random
    budget: int = 12
    _df: Any = None
    salt: str = ""

    @property
    def table(self) -> Table:
        return self.frame.table

    def run(self, spec: Spec) -> Any:
        """Execute the spec's derivation on this table (used to phrase statements and options)."""
        if self._df is None:
            self._df = self.frame.dataframe()
        return execute(render(spec, self.frame), self._df)

    def form(self, path: str, slot: Any) -> int:
        """Which surface form of template `path` a question takes: a stable hash of the salt (table, seed),
        the template and `slot` (what the question is about), so the same seed gives the same wording and
        drawing a form takes nothing from the RNG that picks rows and columns."""
        if self.locale.forms(path) == 1:
            return 0
        key = json.dumps([self.salt, path, slot], sort_keys=True, ensure_ascii=False, default=str)
        return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16)

    def t(self, path: str, slot: Any = None, **values: Any) -> str:
        """Template `path` filled with `values`, in the surface form `form(path, slot)` picks (slot: the
        values themselves when None; a true/false pair passes its group, so both sides read alike). A form
        that would say a word twice over ("the total total", "value values") gives way to the next form that does not.
        `be` (the verb agreeing with `target` or `col`, `Locale.verb_be`) is supplied for templates that use it."""
        subject = values.get("target") or values.get("col")
        if subject is not None and "be" not in values:
            values["be"] = self.locale.verb_be(str(subject))
        first = self.form(path, values if slot is None else slot)
        n = self.locale.forms(path)
        text = ""
        for k in range(n):
            text = self.locale.t(path, form=first + k, **values)
            if not _DOUBLED_WORD.search(text):
                return text
        return self.locale.t(path, form=first, **values)

    def col(self, c: int) -> str:
        """A column as named in question text (`Locale.column`); unnamed columns by position, in the
        locale's words."""
        if c in self.frame.unnamed:
            return self.locale.t("unnamed_column", n=self.locale.number(c + 1))
        return self.locale.column(self.frame.names[c])

    def cell(self, r: int, c: int) -> str:
        return self.locale.q(self.frame.grid[r][c])


def numeric_columns(frame: Frame, *, complete: bool = True, kinds: tuple[str, ...] = ("number",)) -> list[int]:
    """Columns of the given kinds that are neither the key nor rank/running-number nor code columns (and,
    if asked, have no gaps)."""
    return [c for c in range(frame.n_cols)
            if frame.kinds[c] in kinds and c != frame.key_column and not frame.is_index(c) and not frame.is_code(c)
            and (frame.complete(c) or not complete)]


def cond_text(ctx: Context, k: Spec, slot: Any = None) -> str:
    """A condition in words: 'won greater than 15' / 'venue equal to "Paris"' (slot: as in `Context.t`)."""
    loc = ctx.locale
    if k["as"] == "text":
        return ctx.t("cond.text", slot=slot, col=ctx.col(k["col"]), val=loc.q(str(k["val"])))
    return ctx.t("cond.number", slot=slot, col=ctx.col(k["col"]), cmp=loc.get("cmp")[k["cmp"]],
                 val=loc.number(float(k["val"])))


def pick_rows(ctx: Context, k: int) -> list[int]:
    """k distinct data rows chosen with the context's RNG (fewer if the table is smaller); summary rows
    ("Total", "Gesamt") are not rows a question picks out."""
    rows = [r for r in ctx.frame.data_rows if r not in ctx.frame.total_rows]
    return ctx.rng.sample(rows, min(k, len(rows)))
