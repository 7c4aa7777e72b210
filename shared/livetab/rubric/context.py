"""What the question tells the judge about a sentence that mentions the gold.

A verbose answer that contains the gold is not always right. These sentences are not decided by
containment alone:

* the question offers alternatives ("who is older, Thaddeus Bell or Klaus Jürgen Schneider?") and
  the answer names the other one too ("Thaddeus Bell is younger than Klaus Jürgen Schneider");
* the question asks for a neighbour ("which manager was previous to George Case?"): the answer
  must put the gold on the asked side of the anchor. "The manager before George Case was Bob Lemon"
  does; "George Case was the manager before Bob Lemon" puts Bob Lemon after him and is wrong;
* the question is about one entity ("robots from the United States") and the answer about another
  ("Two robots are from France");
* the answer hedges ("X or Y", "perhaps"), negates ("X did not ..."), or lists the gold with other
  names ("X and Y each won").

`QuestionContext` is computed once per question; `sentence_doubt` returns (verdict, reason) for a
sentence that is not clearly right, or None.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from livetab.rubric.locale import Locale
from livetab.rubric.relations import question_relations, relation_doubt
from livetab.rubric.text import fold, key

__all__ = ["QuestionContext", "entity_doubt", "question_context", "sentence_doubt"]

_SKIP = frozenset({"the", "to", "by", "than", "a", "an"})
_PREPOSITIONS = frozenset({"from", "in", "at", "for", "against", "with", "من", "في"})
# a quoted value of the folded question: `fold` writes «…», “…” and ”…” as "…"; German „…“ becomes „…"
_QUOTED = re.compile(r"[\"„]([^\"„]{1,60})\"")
UNCERTAIN, INCORRECT = "uncertain", "incorrect"


@dataclass(frozen=True, slots=True)
class QuestionContext:
    tokens: frozenset[str]
    numbers_text: str  # the folded question, for echoed numbers and dates
    competitor_sides: tuple[tuple[str, str], ...]  # (token next to "or" on one side, on the other)
    relations: tuple[tuple[str, str], ...]  # ("before" | "after", first anchor token) per relational word
    entities: tuple[tuple[str, frozenset[str]], ...]  # (preposition, entity tokens) asked about
    negated: bool
    has_or: bool


def _content(tokens: list[str], loc: Locale) -> list[str]:
    return [t for t in tokens if t not in loc.stopwords and t not in _SKIP and len(t) > 1 and not t.isdigit()]


def question_context(question_key: str, question_folded: str, loc: Locale, question_text: str = "") -> QuestionContext:
    """`question_text`: the question as written, where words that only fold into an "or" (French "où") are
    told apart from one."""
    tokens = question_key.split()
    or_folded = question_folded
    if question_text and loc.or_lookalikes:
        alts = "|".join(re.escape(w) for w in loc.or_lookalikes)
        or_folded = fold(re.sub(rf"(?<!\w)(?:{alts})(?!\w)", " ", question_text, flags=re.IGNORECASE))
    # an "or" inside a quoted value ("تم طلب المشورة أو المساعدة") is part of that value, not the question's
    outside = key(_QUOTED.sub(lambda m: " ".join(w for w in m.group(0).split() if w not in loc.or_words),
                              or_folded)).split()
    sides: list[tuple[str, str]] = []
    for i, t in enumerate(outside):
        if t in loc.or_words and 0 < i < len(outside) - 1:
            right = _content(outside[i + 1:i + 4], loc)
            if right:
                sides.append((outside[i - 1], right[0]))
    quoted = [q.strip() for q in _QUOTED.findall(question_folded)]
    if len(quoted) >= 2 and any(w in outside for w in loc.or_words):
        # each alternative by its first content word: "der" of „Der beste Freund“ is in any German sentence
        a, b = (_content(re.sub(r"[\W_]+", " ", q).split(), loc) or re.sub(r"[\W_]+", " ", q).split()
                for q in quoted[-2:])
        if a and b:
            sides.append((a[0], b[0]))
    relations = question_relations(tokens, loc)
    entities = []
    for i, t in enumerate(tokens):
        if t in _PREPOSITIONS:
            ent = []
            for x in tokens[i + 1:i + 5]:
                if x in _SKIP:
                    continue
                if x in loc.stopwords or x in _PREPOSITIONS or x.isdigit():
                    break
                ent.append(x)
            if ent:
                entities.append((t, frozenset(ent)))
    negated = any(t in loc.negations for t in tokens) or "n't" in question_folded
    return QuestionContext(frozenset(tokens), question_folded, tuple(sides), tuple(relations), tuple(entities),
                           negated,
                           any(t in loc.or_words for t in key(or_folded).split()))


def entity_doubt(tokens: list[str], gold_tokens: frozenset[str], ctx: QuestionContext,
                 loc: Locale, same_column: Callable[[frozenset[str], str], bool] | None = None
                 ) -> tuple[str, str] | None:
    """The answer swaps the entity the question asks about ("robots from the United States" answered
    with "Two robots are from France"): same preposition, another name, the asked one absent."""
    present = set(tokens)
    for prep, entity in ctx.entities:
        if entity & gold_tokens or entity & present:
            continue
        for i, t in enumerate(tokens[:-1]):
            if t != prep:
                continue
            nxt = next((x for x in tokens[i + 1:i + 3] if x not in _SKIP), None)
            if nxt and nxt not in loc.stopwords and nxt not in gold_tokens and not nxt.isdigit():
                if same_column is not None and same_column(entity, nxt):
                    return INCORRECT, (f"the question asks about {' '.join(sorted(entity))!r}, the answer about "
                                       f"{nxt!r}, another value of the same column")
                return UNCERTAIN, f"the question asks about {' '.join(sorted(entity))!r}, the answer about {nxt!r}"
    return None


def _echoed(tokens: list[str], word: str, loc: Locale) -> bool:
    """The other alternative named only where the answer repeats the question's choice ("the person who
    is either Mikac or Wall ... is Des Wall"): every mention stands next to an "or"."""
    at = [i for i, t in enumerate(tokens) if t == word]
    return bool(at) and all(any(x in loc.or_words for x in tokens[max(0, i - 1):i + 2]) for i in at)


def _restates_choice(tokens: list[str], ctx: QuestionContext, loc: Locale) -> bool:
    """"either A or B" where A and B are the question's own alternatives: a restatement, not a hedge."""
    sides = {t for pair in ctx.competitor_sides for t in pair}
    for i, t in enumerate(tokens):
        if t in loc.or_words and 0 < i < len(tokens) - 1 and tokens[i - 1] in sides and tokens[i + 1] in sides:
            return True
    return False


@cache
def _hedges(loc: Locale) -> frozenset[str]:
    """Hedge words that are not "or" (an "or" is judged by where it stands)."""
    return loc.hedges - loc.or_words


def sentence_doubt(tokens: list[str], mention: tuple[int, int], gold_tokens: frozenset[str],
                   ctx: QuestionContext | None, loc: Locale, *, is_list: bool = False,
                   anchors_known: frozenset[str] | None = None, near_anchor: bool = False
                   ) -> tuple[str, str] | None:
    """(verdict, reason) for a sentence mentioning the gold at token range `mention`, or None if clear.
    `anchors_known`: the question's relation anchors that the question's table has (None: no table)."""
    present = set(tokens)
    start, end = mention
    if ctx is not None:
        # The other alternative may be echoed in a restated choice ("either Mikac or Wall ... is Des Wall")
        # only when the gold itself is stated apart from it, not as one side of an "or".
        gold_apart = not any(t in loc.or_words for t in tokens[max(0, start - 1):start] + tokens[end:end + 1])
        for a, b in ctx.competitor_sides:
            if (a in gold_tokens and b not in gold_tokens and b in present
                    and not (gold_apart and _echoed(tokens, b, loc))):
                return UNCERTAIN, f"the answer also names the other alternative ({b!r})"
            if (b in gold_tokens and a not in gold_tokens and a in present
                    and not (gold_apart and _echoed(tokens, a, loc))):
                return UNCERTAIN, f"the answer also names the other alternative ({a!r})"
        if ctx.relations:
            found = relation_doubt(tokens, gold_tokens, ctx.relations, loc, anchors_known=anchors_known,
                                   near_anchor=near_anchor, mention_end=end)
            if found:
                return found
    hedged = not _hedges(loc).isdisjoint(tokens)
    if hedged and ctx is not None and ctx.has_or and "either" in tokens and _hedges(loc).isdisjoint(
            t for t in tokens if t != "either"):
        hedged = not _restates_choice(tokens, ctx, loc)
    if hedged:
        return UNCERTAIN, "the answer hedges"
    if not (ctx and ctx.has_or) and not is_list:
        near = tokens[max(0, start - 2):start] + tokens[end:end + 2]
        if any(t in loc.or_words for t in near):
            return UNCERTAIN, "the answer offers the gold as one of several"
    # a negation inside the gold's own mention ("The Greatest Story Never Told") is not the answer's
    if not (ctx and ctx.negated) and not loc.negations.isdisjoint(tokens[:start] + tokens[end:]):
        return UNCERTAIN, "the answer contains a negation"
    if not is_list:
        q = ctx.tokens if ctx is not None else frozenset()

        def others(words: list[str], allow_question: bool = False) -> list[str]:
            return [x for x in words if x not in loc.stopwords and (allow_question or x not in q)
                    and x not in gold_tokens and not x.isdigit()]

        after = tokens[end:end + 5]
        for i, t in enumerate(after[:3]):
            if t in loc.conjunctions and others(after[i + 1:i + 3], allow_question=i == 0):
                return UNCERTAIN, "the answer names other candidates beside the gold"
        if loc.arabic and after and after[0].startswith("و") and len(after[0]) > 3 and others([after[0][1:]]):
            return UNCERTAIN, "the answer names other candidates beside the gold"
        if start >= 2 and tokens[start - 1] in loc.conjunctions and others(tokens[max(0, start - 3):start - 1],
                                                                            allow_question=True):
            return UNCERTAIN, "the answer names other candidates beside the gold"
    return None
