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

from livetab.rubric.locale import Locale

__all__ = ["content_polarity", "leading_polarity_end", "polarity"]

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


def leading_polarity_end(folded: str, loc: Locale) -> int:
    """Where a leading polarity phrase ("Yes,", "No.") ends, or 0 if the response does not start with one."""
    lead_true, lead_false, _, _ = _res(loc)
    ends = [m.end() for m in (lead_true.match(folded), lead_false.match(folded)) if m is not None]
    return max(ends, default=0)


def polarity(folded: str, loc: Locale) -> bool | None:
    """True (affirmative), False (negative) or None (no clear polarity) for a folded response span."""
    lead_true, lead_false, any_true, any_false = _res(loc)
    t = lead_true.match(folded)
    f = lead_false.match(folded)
    if t and f:  # one phrase is a prefix of the other ("no" vs "not true"): the longer wins
        return len(t.group(0)) > len(f.group(0))
    if t or f:
        lead = t is not None
        match = t if t is not None else f
        assert match is not None
        rest = folded[match.end():]
        negatives = any_false.findall(rest)
        positives = any_true.findall(any_false.sub(" ", rest))
        opposite = negatives if lead else positives
        return None if opposite else lead  # "True or false: ..." hedges
    return _scan(folded, any_true, any_false)


def _scan(text: str, any_true: re.Pattern[str], any_false: re.Pattern[str]) -> bool | None:
    negatives = any_false.findall(text)
    positives = any_true.findall(any_false.sub(" ", text))  # "true" inside "not true" is not counted
    if negatives and not positives:
        return False
    if positives and not negatives:
        return True
    return None


_UP = frozenset({"more", "greater", "larger", "higher", "above", "over", "exceed", "exceeds", "exceeded", "longer",
                 "bigger", "taller", "least", "اكثر", "اكبر", "اعلي", "اطول"})
_DOWN = frozenset({"fewer", "less", "smaller", "lower", "below", "under", "shorter", "اقل", "اصغر", "ادني", "اقصر"})


def content_polarity(question_tokens: frozenset[str], content_tokens: list[str], loc: Locale) -> bool | None:
    """What the sentence after a leading "Yes,"/"No," itself asserts about the question, if it says anything:
    it restates the question's proposition (True) or turns it round (False) by a negation the question
    lacks (or the reverse) or by the opposite comparative ("at least 11" -> "fewer than 11"). None when
    the sentence carries no such signal ("No. There are exactly 10 rounds.")."""
    if not content_tokens:
        return None
    content = set(content_tokens)
    neg_flip = bool(question_tokens & loc.negations) != bool(content & loc.negations)
    q_up, q_down = bool(question_tokens & _UP), bool(question_tokens & _DOWN)
    a_up, a_down = bool(content & _UP), bool(content & _DOWN)
    has_comparative = (q_up or q_down) and (a_up or a_down)
    if not neg_flip and not has_comparative:
        return None
    comp_flip = has_comparative and ((q_up and a_down and not a_up) or (q_down and a_up and not a_down))
    return not (neg_flip ^ comp_flip)
