"""What the question's table tells the rule judge: the values of each column.

A verbose answer often names other cells of the table beside (or instead of) the gold: "Kenneth W.
Dam, Alan C. Kohn and William C. Canby, Jr. finished in the same year", "Team Penske finished first
in 2001, 2002 and 2009". Without the table the rules can only say *uncertain*; with it they know that
Kenneth W. Dam is another value of the asked column (the column that holds the gold), so the answer
names a wrong candidate and is wrong. The table also tells when part of a name is enough: "the
Cardinals" names the gold "St. Louis Cardinals" when no other cell of that column has "Cardinals".

`TableView` keeps, per column, each body cell's comparison key, the keys of its lines (cells such as
"Hungary\\nKatalin Kovács\\nDanuta Kozák" hold several names), the key without a trailing "(...)",
and the years the cell mentions. It is built once per table (`table_view` caches by table id).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from livetab.rubric.text import contains_phrase, fold, key, within_edits
from livetab.tables import Table

__all__ = ["CellValue", "GoldInTable", "TableView", "table_view"]

_PAREN_TAIL = re.compile(r"\s*\([^()]*\)\s*$")
_YEAR = re.compile(r"(?<!\d)(1[0-9]{3}|20[0-9]{2}|2100)(?!\d)")
_CACHE: OrderedDict[tuple[str, str, int], TableView] = OrderedDict()
_CACHE_SIZE = 256


@dataclass(frozen=True, slots=True)
class CellValue:
    row: int
    key: str  # the whole cell
    names: tuple[str, ...]  # the whole cell, each line, each without a trailing "(...)"
    lines: tuple[str, ...]  # the keys of the cell's lines ("" when the cell has one line)
    years: frozenset[int]
    joined: str  # the lines joined by spaces, as WTQ writes a multi-line cell in one string ("" if one line)


@dataclass(frozen=True, slots=True)
class GoldInTable:
    """Where a gold stands in a table, computed once per (table, gold): its columns, the other names of
    those columns that could be listed as answers, by first word (for a quick look-up), and its lines."""
    columns: tuple[int, ...]
    candidates: tuple[str, ...]
    by_first: dict[str, tuple[str, ...]]
    lines: tuple[str, ...]

    def named_in(self, tokens: Iterable[str]) -> list[str]:
        """Candidates whose first word is among `tokens` (containment still to be checked)."""
        out: list[str] = []
        for t in set(tokens):
            out.extend(self.by_first.get(t, ()))
            if t.startswith("و") and len(t) > 2:  # Arabic: "وإسبانيا", the conjunction written onto the name
                out.extend(self.by_first.get(t[1:], ()))
        return out


def _cell(row: int, text: str) -> CellValue:
    folded = fold(text)
    whole = key(folded)
    raw_lines = [ln for ln in folded.splitlines() if ln.strip()]
    lines = tuple(key(ln) for ln in raw_lines) if len(raw_lines) > 1 else ()
    names: list[str] = []
    for part in (folded, *raw_lines):
        for variant in (key(part), key(_PAREN_TAIL.sub("", part))):
            if variant and variant not in names:
                names.append(variant)
    years = frozenset(int(y) for y in _YEAR.findall(folded))
    return CellValue(row, whole, tuple(names), lines, years, " ".join(lines))


class TableView:
    """The body cells of a table by column, in comparison form."""

    __slots__ = ("_gold", "columns", "words")

    def __init__(self, rows: Sequence[Sequence[str]]) -> None:
        width = max((len(r) for r in rows), default=0)
        self.columns: tuple[tuple[CellValue, ...], ...] = tuple(
            tuple(_cell(i, r[c]) for i, r in enumerate(rows) if c < len(r) and r[c].strip())
            for c in range(width))
        self.words: frozenset[str] = frozenset(w for col in self.columns for v in col for w in v.key.split())
        self._gold: dict[tuple[tuple[str, ...], frozenset[str]], GoldInTable] = {}

    def gold(self, gold_keys: tuple[str, ...], stopwords: frozenset[str]) -> GoldInTable:
        """Where the gold stands in this table (cached per gold)."""
        cache_key = (gold_keys, stopwords)
        found = self._gold.get(cache_key)
        if found is None:
            cols = self.gold_columns(gold_keys)
            cands = tuple(n for n in self.other_names(cols, gold_keys)
                          if len(n) > 2 and not n.isdigit() and not all(t in stopwords for t in n.split()))
            by_first: dict[str, list[str]] = {}
            for n in cands:
                by_first.setdefault(n.split()[0], []).append(n)
            found = GoldInTable(cols, cands, {k: tuple(v) for k, v in by_first.items()},
                                self.gold_lines(cols, gold_keys))
            if len(self._gold) > 256:
                self._gold.clear()
            self._gold[cache_key] = found
        return found

    @classmethod
    def from_table(cls, table: Table) -> TableView:
        return cls(table.rows)

    def gold_columns(self, gold_keys: Iterable[str], year: int | None = None) -> tuple[int, ...]:
        """Columns with a cell equal to the gold (whole, a line, or without its "(...)"); failing that,
        cells that contain the gold as a phrase ("at st louis cardinals"); for a year gold, cells that
        are that year or mention it ("2 October 2011")."""
        keys = [k for k in gold_keys if k]
        exact = tuple(c for c, col in enumerate(self.columns)
                      if any(k in v.names or k == v.joined for v in col for k in keys))
        if exact:
            return exact
        if year is not None:
            return tuple(c for c, col in enumerate(self.columns) if any(year in v.years for v in col))
        return tuple(c for c, col in enumerate(self.columns)
                     if any(contains_phrase(v.key, k) for v in col for k in keys))

    def gold_rows(self, column: int, gold_keys: Sequence[str]) -> frozenset[int]:
        return frozenset(v.row for v in self.columns[column]
                         if any(k in v.names or k == v.joined or contains_phrase(v.key, k)
                                for k in gold_keys))

    def other_names(self, columns: Iterable[int], gold_keys: Sequence[str]) -> list[str]:
        """Names in `columns` that are not the gold and neither contain it nor lie inside it."""
        out: list[str] = []
        for c in columns:
            for v in self.columns[c]:
                for n in v.names:
                    if n in out or any(n == k or contains_phrase(n, k) or contains_phrase(k, n) for k in gold_keys):
                        continue
                    out.append(n)
        return out

    def other_years(self, columns: Iterable[int], year: int) -> frozenset[int]:
        return frozenset(y for c in columns for v in self.columns[c] for y in v.years if y != year)

    def owners(self, column: int, words: Sequence[str], edits: int = 0) -> frozenset[int]:
        """Rows of `column` with a name holding every word of `words` (each up to `edits` slips)."""
        rows = set()
        for v in self.columns[column]:
            for n in v.names:
                toks = n.split()
                if all(any(w == t or (edits and len(w) > 4 and within_edits(w, t, edits)) for t in toks)
                       for w in words):
                    rows.add(v.row)
                    break
        return frozenset(rows)

    def gold_lines(self, columns: Iterable[int], gold_keys: Sequence[str]) -> tuple[str, ...]:
        """The lines of the gold's cell when the gold is a multi-line cell written as one string."""
        for c in columns:
            for v in self.columns[c]:
                if v.lines and any(k == v.joined or k == v.key for k in gold_keys):
                    return v.lines
        return ()

    def same_column(self, asked: frozenset[str], word: str) -> bool:
        """Is there a column holding both a name made of the words `asked` and a name starting with
        `word`? ("robots from the United States" answered "from France": both are places of one column)."""
        for col in self.columns:
            has_asked = has_word = False
            for v in col:
                for n in v.names:
                    toks = n.split()
                    has_asked = has_asked or frozenset(toks) - {"the"} == asked - {"the"}
                    has_word = has_word or (toks[0] == word and not asked & set(toks))
            if has_asked and has_word:
                return True
        return False


def table_view(table: Table | TableView | Sequence[Sequence[str]] | None) -> TableView | None:
    """A `TableView` of `table` (a `Table`, body rows, or a view already), cached for `Table`s with an id."""
    if table is None or isinstance(table, TableView):
        return table
    if not isinstance(table, Table):
        return TableView(table)
    if not table.id:
        return TableView.from_table(table)
    cache_key = (table.id, table.release, len(table.rows))
    view = _CACHE.get(cache_key)
    if view is None:
        view = TableView.from_table(table)
        _CACHE[cache_key] = view
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return view
