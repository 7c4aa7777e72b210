"""A gold cell that holds several names without a separator, answered with "and" between them.

WTQ flattens a cell's lines into one string: the destinations "Cataraqui Town Centre" and "St.
Lawrence College" of one bus route become the gold "Cataraqui Town Centre St. Lawrence College". An
answer that names both, joined as a list ("Cataraqui Town Centre and St. Lawrence College", Arabic
"فندق أ وفندق ب"), states the gold: its words in order with one conjunction (or comma) between two
of them. `joined_parts` finds that mention; where the split falls is not checked without a table
(with one, `columns.TableView.gold_lines` gives the lines).
"""

from __future__ import annotations

from livetab.rubric.gold import GoldItem
from livetab.rubric.locale import Locale

__all__ = ["joined_parts"]

_JOINERS = frozenset({"and", "&", "plus", "و"})


def joined_parts(tokens: list[str], gold: GoldItem, loc: Locale) -> tuple[int, int] | None:
    """(start, end) of the gold's words in `tokens` with one conjunction inserted between two of them
    (anywhere: the split point is not checked), or None."""
    want = gold.keys[0].split()
    n = len(want)
    if n < 2:
        return None
    for i in range(len(tokens) - n + 1):  # n + 1 tokens with a joiner word; n where "و" is written onto a word
        if tokens[i] != want[0]:
            continue
        for cut in range(1, n):
            if tokens[i:i + cut] != want[:cut]:
                break
            joiner = tokens[i + cut]
            rest = tokens[i + cut + 1:i + n + 1]
            if joiner in _JOINERS and rest == want[cut:]:
                return i, i + n + 1
            if loc.arabic and joiner == "و" + want[cut] and tokens[i + cut + 1:i + n] == want[cut + 1:]:
                return i, i + n
    return None
