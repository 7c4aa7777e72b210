"""Two-way comparison questions answered with a comparative sentence.

"Who is older, Thaddeus Bell or Klaus Jürgen Schneider?" answered "Thaddeus Bell is younger than Klaus
Jürgen Schneider" names both alternatives; the answer is the one the comparative points at. Each
comparative word has an axis (amount, time, size) and a direction; the question's own word sets the
direction asked, and the answer's word must have the same axis. The words are each language pack's
"comparison" section (de "älter als", fr "plus âgé que", ru "старше, чем" ...), with every inflected
form listed there (gender, case, number), so a language is added by data. The subject of the answer's comparative (the alternative named last before
it) is the answer when the two directions agree, the other alternative when they are opposite
("younger" answers "older" with the object). A negation between subject and comparative flips it
("did not achieve a higher number" = fewer). A generic word (more, greater, higher / أكثر, أكبر) takes
the axis of the noun after it ("a greater length" = longer, "أكبر سنا" = older).

Questions whose alternatives are the comparatives themselves ("did Chinese Taipei win more or less gold
medals than Macau?", gold "more") are answered by the direction of the answer's comparative.

Without a comparative word, an answer that gives each alternative one number ("The Northampton Saints
scored 87 points and the Saracens scored 78") answers with the larger (or smaller) one.

`compare_alternatives` returns (verdict, reason) or None when the answer is not such a sentence.
"""

from __future__ import annotations

import re
from functools import lru_cache

from livetab.rubric.context import QuestionContext
from livetab.rubric.locale import Locale
from livetab.rubric.relations import name_base
from livetab.rubric.text import key

__all__ = ["comparative", "compare_alternatives"]

CORRECT, INCORRECT = "correct", "incorrect"
GENERIC = "amount"
EITHER = "amount_or_time"  # es "mayor": "más goles" or "de más edad"; read as age only against an age word

# The words (comparatives, "more"/"less", axis nouns, "than", negations) are the language pack's
# "comparison" section (locales/<lang>.json), folded: Locale.comparatives etc.
_QUOTED = re.compile(r"\"[^\"]{1,80}\"")


def comparative(tokens: list[str], loc: Locale) -> tuple[int, str, int] | None:
    """The first comparative word of `tokens`: (index, axis, direction); "more recent" is one word."""
    lex = loc.comparatives
    for i, t in enumerate(tokens):
        found = lex.get(t)
        if found is None and loc.arabic and len(t) > 3 and t[0] in "وف":
            found = lex.get(t[1:])
        if found is None:
            continue
        sign = loc.more_less.get(t)
        if sign is not None and i + 1 < len(tokens):  # "more recent", "less expensive"
            nxt = lex.get(tokens[i + 1])
            if nxt is not None and nxt[0] != GENERIC:
                return i, nxt[0], nxt[1] * sign
        if found[0] in (GENERIC, EITHER):  # "a greater length", "أكبر سنا"
            noun = next((loc.axis_nouns[x] for x in tokens[i + 1:i + 3] if x in loc.axis_nouns), None)
            if noun is not None:
                return i, noun, found[1]
        return i, found[0], found[1]
    return None


@lru_cache(maxsize=1024)
def _asked(question_folded: str, loc: Locale) -> tuple[tuple[str, int] | None, str | None]:
    """The question's comparative (axis, direction) and the first word after its "than", if any; no
    comparative when the question is negated outside its quoted names ("which did not have more ...")."""
    tokens = key(question_folded).split()
    if _negated(key(_QUOTED.sub(" ", question_folded)).split(), loc):
        return None, None
    found = comparative(tokens, loc)
    than = None
    for i in range(found[0] + 1 if found else len(tokens), len(tokens)):
        if tokens[i] in loc.than_words:
            than = next((x for x in tokens[i + 1:i + 4] if x not in loc.stopwords), None)
            break
    return (None if found is None else (found[1], found[2])), than


def _axes_fit(a: str, b: str) -> bool:
    """Same axis; "mayor" (greater or older) fits an age word only, never a generic "more" (not sure)."""
    return a == b or {a, b} == {EITHER, "time"}


def _negated(tokens: list[str], loc: Locale) -> bool:
    return any(t in loc.comparison_negations for t in tokens)


def compare_alternatives(tokens: list[str], gold_tokens: frozenset[str], ctx: QuestionContext,
                         loc: Locale) -> tuple[str, str] | None:
    """(verdict, reason) for a comparative answer to a two-way comparison question, else None."""
    if not ctx.competitor_sides:
        return None
    asked, than = _asked(ctx.numbers_text, loc)
    if asked is None:
        return None
    lex = loc.comparatives
    if len(gold_tokens) == 1 and next(iter(gold_tokens)) in lex:  # "more or less?" answered with a comparative
        return _direction(tokens, next(iter(gold_tokens)), than, loc)
    sides = [(a, b) if a in gold_tokens else (b, a) for a, b in ctx.competitor_sides
             if (a in gold_tokens) != (b in gold_tokens)]
    if not sides:
        return None
    others = {o for _, o in sides}
    marks_gold = {g for g, _ in sides} | {t for t in gold_tokens if t not in loc.stopwords and len(t) > 1
                                           and t not in others}
    if loc.name_endings:  # "младше Бориса Петрова": the names in another case
        tokens = [name_base(t, marks_gold | others, loc) for t in tokens]
    kinds = [(i, t in marks_gold) for i, t in enumerate(tokens) if t in marks_gold or t in others]
    if not any(g for _, g in kinds) or all(g for _, g in kinds):
        return None  # the answer does not name both alternatives
    if not loc.hedges.isdisjoint(tokens):
        return None  # "Ann Lee or Bob Ray is older", "probably": the context rules say uncertain
    found = comparative(tokens, loc)
    if found is None:
        return _by_numbers(tokens, kinds, asked)
    c, axis, sign = found
    before = [(i, g) for i, g in kinds if i < c]
    if not before or not _axes_fit(axis, asked[0]):
        return None
    subject_at, subject_is_gold = before[-1]
    if _negated(tokens[subject_at + 1:c], loc):
        sign = -sign
    picks_gold = subject_is_gold == (sign == asked[1])
    if picks_gold:
        return CORRECT, f"the comparative ({tokens[c]!r}) points at the gold"
    return INCORRECT, f"the comparative ({tokens[c]!r}) points at the other alternative"


def _direction(tokens: list[str], gold_word: str, than: str | None, loc: Locale) -> tuple[str, str] | None:
    if not (loc.hedges - loc.or_words).isdisjoint(tokens):
        return None
    found = comparative(tokens, loc)
    if found is None or than is None:
        return None
    c, _, sign = found
    if than not in tokens[c + 1:c + 8]:
        return None  # compared with something else than the question's "than"
    if _negated(tokens[max(0, c - 4):c], loc):
        sign = -sign
    wanted = loc.comparatives[gold_word][1]
    if sign == wanted:
        return CORRECT, f"the answer's comparative ({tokens[c]!r}) has the gold's direction"
    return INCORRECT, f"the answer's comparative ({tokens[c]!r}) has the opposite direction"


def _by_numbers(tokens: list[str], kinds: list[tuple[int, bool]], asked: tuple[str, int]) -> tuple[str, str] | None:
    """"A scored 87 points and B scored 78": the number after each alternative's last mention."""
    if asked[0] != GENERIC:
        return None
    values: dict[bool, float] = {}
    for n, (i, g) in enumerate(kinds):
        end = kinds[n + 1][0] if n + 1 < len(kinds) else len(tokens)
        nums = [t for t in tokens[i + 1:end] if t.isdigit()]
        if nums and g not in values:
            values[g] = float(nums[0])
    if len(values) < 2 or values[True] == values[False]:
        return None
    gold_wins = (values[True] > values[False]) == (asked[1] > 0)
    if gold_wins:
        return CORRECT, "the number the answer gives the gold wins the comparison"
    return INCORRECT, "the number the answer gives the other alternative wins the comparison"
