"""Booleans: True/False synonyms per language and clear affirmative or negative sentences.

AraTable accepts True as "True, Yes, صح, نعم, بيان صحيح" and False as "False, No, خطأ, غير صحيح,
بيان كاذب", including long sentences whose meaning is clear. A response's polarity is read from its
first words (a leading "Yes," / "No," / "لا،" decides), else from the phrases it contains: negative
phrases ("not true", "غير صحيح") are read first and removed, so "true" inside "not true" is not
counted twice; a response with both polarities is undecided.
"""

from __future__ import annotations

import re
from functools import cache

from livetab_judge.rubric.locale import Locale

__all__ = ["polarity"]

# Short words that only signal polarity at the start of a response ("no" inside a sentence rarely does).
_LEADING_ONLY = frozenset({"yes", "no", "yeah", "yep", "nope", "right", "indeed", "نعم", "لا", "كلا", "بلي", "اجل"})


@cache
def _res(loc: Locale) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    def alt(words: list[str], anchored: bool) -> re.Pattern[str]:
        body = "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))
        start = r"^[\s\"'(\[]*" if anchored else r"(?<![^\W\d_])"
        return re.compile(rf"{start}(?:{body})(?![^\W\d_])")
    true_any = [w for w in loc.true_phrases if w not in _LEADING_ONLY]
    false_any = [w for w in loc.false_phrases if w not in _LEADING_ONLY]
    return (alt(list(loc.true_phrases), True), alt(list(loc.false_phrases), True),
            alt(true_any, False), alt(false_any, False))


def polarity(folded: str, loc: Locale) -> bool | None:
    """True (affirmative), False (negative) or None (no clear polarity) for a folded response span."""
    lead_true, lead_false, any_true, any_false = _res(loc)
    t = lead_true.match(folded)
    f = lead_false.match(folded)
    if t and f:  # one phrase is a prefix of the other ("no" vs "not true"): the longer wins
        return len(t.group(0)) > len(f.group(0))
    if t or f:
        return t is not None
    negatives = any_false.findall(folded)
    rest = any_false.sub(" ", folded) if negatives else folded
    positives = any_true.findall(rest)
    if negatives and not positives:
        return False
    if positives and not negatives:
        return True
    return None
