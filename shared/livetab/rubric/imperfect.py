"""Imperfect tables: recognising "insufficient information" and "the table is contradictory".

TabularMath's robustness subset has questions whose table lacks a needed value or contradicts
itself; the right answer is to say so. `refusal_kind` tells which of the two a response claims
(contradiction wins when both are mentioned, since a contradiction also leaves the answer
undetermined). The same recogniser marks refusals to answer ordinary questions.
"""

from __future__ import annotations

import re
from functools import cache

from livetab.rubric.locale import Locale
from livetab.rubric.text import key, key_tokens

__all__ = ["refusal_kind"]


@cache
def _res(loc: Locale) -> tuple[re.Pattern[str], re.Pattern[str]]:
    def alt(words: tuple[str, ...]) -> re.Pattern[str]:
        body = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
        prefix = r"(?<![^\W\d_])(?:[وبل]|ال)?" if loc.arabic else r"(?<![^\W\d_])"
        return re.compile(rf"{prefix}(?:{body})(?![^\W\d_])")
    return alt(loc.contradictory), alt(loc.insufficient)


@cache
def _hints(loc: Locale) -> tuple[frozenset[str], re.Pattern[str]]:
    """The longest word of every phrase (a phrase can only match where it occurs): as a word set for a
    quick test on the answer's words, and as a pattern for Arabic, where prefixes attach to words."""
    words = {max(key(p).split(), key=len) for p in loc.contradictory + loc.insufficient}
    return frozenset(words), re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)))


def refusal_kind(folded: str, loc: Locale) -> str | None:
    """"contradictory", "insufficient" or None for a folded response span."""
    words, pattern = _hints(loc)
    if (pattern.search(folded) is None) if loc.arabic else words.isdisjoint(key_tokens(folded)):
        return None
    contradictory, insufficient = _res(loc)
    if contradictory.search(folded):
        return "contradictory"
    if insufficient.search(folded):
        return "insufficient"
    return None
