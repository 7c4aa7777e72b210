"""AutoT2T: a formalised word problem becomes a table plus a "blurred" question.

The table has a name column as primary key, the problem's entities as rows and its quantities as
columns; distractor rows (other names) and distractor columns fill it out, and the harder levels
shuffle row and column order. The question text keeps its words but every number it mentioned is
replaced by a reference ``[name: column]``, so the numbers must be read from the table.

Imperfect variants: a needed cell emptied (the answer becomes underdetermined) or a duplicate row that
disagrees on a needed value (the constraints become unsatisfiable). Whether a variant really is what
it claims is decided by Z3, not here.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from fractions import Fraction

from livetab.ids import content_id
from livetab.tables import Profile, Source, Table

from livetab_qagen.math.formalise import Formalisation, Quantity

__all__ = [
    "LEVELS",
    "Level",
    "blur_question",
    "build_table",
    "contradict_cell",
    "format_number",
    "remove_cell",
]

log = logging.getLogger(__name__)

NAME_COLUMN = "name"
_NAMES = ("Avery", "Blake", "Casey", "Devon", "Emery", "Finley", "Harper", "Jordan", "Kendall", "Logan", "Morgan",
          "Parker", "Quinn", "Riley", "Rowan", "Sawyer", "Skyler", "Taylor", "Reese", "Dakota")
_DISTRACTOR_COLUMNS = ("age", "distance (km)", "hours", "points", "tickets", "boxes", "pages", "minutes walked",
                       "apples", "score", "weight (kg)", "visits", "stamps", "cups")


@dataclass(frozen=True)
class Level:
    distractor_rows: int
    distractor_cols: int
    shuffle_rows: bool
    shuffle_cols: bool


LEVELS: dict[str, Level] = {
    "easy": Level(distractor_rows=1, distractor_cols=1, shuffle_rows=False, shuffle_cols=False),
    "medium": Level(distractor_rows=3, distractor_cols=2, shuffle_rows=True, shuffle_cols=False),
    "hard": Level(distractor_rows=6, distractor_cols=4, shuffle_rows=True, shuffle_cols=True),
}


def format_number(v: Fraction) -> str:
    """A finite decimal as written in prose; other fractions as a/b."""
    if v.denominator == 1:
        return str(v.numerator)
    d = v.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d != 1:
        return f"{v.numerator}/{v.denominator}"
    text = f"{float(v):.10f}".rstrip("0")
    return text if Fraction(text) == v else f"{v.numerator}/{v.denominator}"


def _distractor_value(like: list[Fraction], rng: random.Random) -> Fraction:
    base = max(like, default=Fraction(10))
    if base.denominator == 1:
        hi = max(3, int(base) * 2)
        return Fraction(rng.randint(1, hi))
    return Fraction(rng.randint(1, max(3, int(base * 20)))) / 20


def _columns(form: Formalisation) -> list[str]:
    out: list[str] = []
    for q in form.quantities:
        if q.label not in out:
            out.append(q.label)
    return out


def _entities(form: Formalisation) -> list[str]:
    out: list[str] = []
    for q in form.quantities:
        if q.entity not in out:
            out.append(q.entity)
    return out


def build_table(form: Formalisation, difficulty: str, rng: random.Random, *, table_id: str | None = None,
                source_kind: str = "gsm8k", licence: str = "MIT",
                attribution: str = "GSM8K, openai/grade-school-math (MIT)") -> Table:
    """The table version of `form` at `difficulty` (easy, medium, hard)."""
    level = LEVELS[difficulty]
    columns = _columns(form)
    entities = _entities(form)
    taken = {c.lower() for c in columns} | {NAME_COLUMN}
    extra_cols = [c for c in _DISTRACTOR_COLUMNS if c not in taken]
    rng.shuffle(extra_cols)
    columns = columns + extra_cols[: level.distractor_cols]
    words = set(form.question.replace(",", " ").split()) | set(entities)
    names = [n for n in _NAMES if n not in words]
    rng.shuffle(names)
    rows_for = entities + names[: level.distractor_rows]
    by_cell: dict[tuple[str, str], Fraction] = {(q.entity, q.label): q.value for q in form.quantities}
    by_col: dict[str, list[Fraction]] = {}
    for q in form.quantities:
        by_col.setdefault(q.label, []).append(q.value)
    rows: list[list[str]] = []
    for name in rows_for:
        row = [name]
        for col in columns:
            value = by_cell.get((name, col))
            row.append(format_number(value if value is not None else _distractor_value(by_col.get(col, []), rng)))
        rows.append(row)
    if level.shuffle_rows:
        rng.shuffle(rows)
    order = list(range(1, len(columns) + 1))
    if level.shuffle_cols:
        rng.shuffle(order)
    header = [NAME_COLUMN] + [columns[i - 1] for i in order]
    rows = [[r[0]] + [r[i] for i in order] for r in rows]
    tid = table_id or content_id("tab", form.source, difficulty, rows)
    return Table(
        id=tid,
        source=Source(kind=source_kind, uri=form.source, title=f"{form.source} as a table", licence=licence,
                      attribution=attribution),
        header=[header], rows=rows, language="en", domain="other",
        caption=f"Quantities for problem {form.source}",
        profile=Profile(size_class="small" if len(rows) <= 5 and len(header) <= 4 else "medium",
                        content_types=["numeric", "text"], n_rows=len(rows), n_cols=len(header)),
        column_types={NAME_COLUMN: "text", **{c: "number" for c in header[1:]}},
    )


def blur_question(form: Formalisation) -> str:
    """The problem with each written number replaced by ``[name: column]``."""
    text = form.question
    pieces: list[str] = []
    pos = 0
    for q in sorted((q for q in form.quantities if q.mention is not None), key=lambda q: q.mention.start):  # type: ignore[union-attr]
        m = q.mention
        assert m is not None
        start, end = m.start, m.end
        if q.label.endswith("($)") and text[start - 1: start] == "$":
            start -= 1
        if text[end: end + 1] == "%" and "percent" in q.label:
            end += 1
        pieces.append(text[pos:start])
        pieces.append(f"[{q.entity}: {q.label}]")
        pos = end
    pieces.append(text[pos:])
    return ("Each bracketed reference [name: column] stands for the value in that row and column of the table.\n"
            + "".join(pieces))


def _row_of(table: Table, q: Quantity) -> tuple[int, int]:
    col = table.columns.index(q.label)
    for i, row in enumerate(table.rows):
        if row[0] == q.entity:
            return i, col
    raise KeyError(f"no row named {q.entity!r}")


def remove_cell(table: Table, q: Quantity) -> Table:
    """A copy of the table with the cell holding `q` emptied."""
    i, col = _row_of(table, q)
    rows = [list(r) for r in table.rows]
    rows[i][col] = ""
    return _variant(table, rows, "missing", q)


def contradict_cell(table: Table, q: Quantity, rng: random.Random) -> Table:
    """A copy with a duplicate of `q`'s row placed below it that disagrees on `q`'s value."""
    i, col = _row_of(table, q)
    rows = [list(r) for r in table.rows]
    dup = list(rows[i])
    step = max(Fraction(1), abs(q.value) / 4)
    dup[col] = format_number(q.value + step * rng.choice((1, 2, 3)))
    rows.insert(i + 1, dup)
    return _variant(table, rows, "contradictory", q)


def _variant(table: Table, rows: list[list[str]], kind: str, q: Quantity) -> Table:
    return Table(
        id=content_id("tab", table.id, kind, q.var), source=table.source, header=[list(h) for h in table.header],
        rows=rows, language=table.language, domain=table.domain, caption=table.caption,
        profile=Profile(size_class=table.profile.size_class, content_types=list(table.profile.content_types),
                        n_rows=len(rows), n_cols=table.profile.n_cols),
        column_types=dict(table.column_types),
    )
