"""What the question tells the judge about a sentence that mentions the gold.

A verbose answer that contains the gold is not always right. Three kinds of sentence are not
decided by containment alone:

* the question offers alternatives ("who is older, Thaddeus Bell or Klaus Jürgen Schneider?") and
  the answer names the other one too ("Thaddeus Bell is younger than Klaus Jürgen Schneider");
* the question asks for a neighbour ("which manager was previous to George Case?") and the answer
  puts the gold on the wrong side of the anchor ("George Case was the manager before Bob Lemon");
* the answer hedges ("either X or Y", "perhaps"), negates ("X did not ..."), or lists the gold with
  other names ("X and Y each won").

`QuestionContext` is computed once per question; `sentence_doubt` returns why a containing
sentence is doubtful, or None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from livetab_judge.rubric.locale import Locale

__all__ = ["QuestionContext", "question_context", "sentence_doubt"]

_BEFORE = frozenset({"before", "prior", "previous", "preceding", "preceded", "earlier", "قبل", "السابق", "سبق"})
_AFTER = frozenset({"after", "next", "following", "followed", "follows", "succeeded", "succeeds", "superseded",
                    "replaced", "replaces", "later", "بعد", "التالي", "تلا"})
_ACTIVE_INVERSE = frozenset({"succeeded", "succeeds", "superseded", "replaced", "replaces", "followed", "follows",
                             "preceded"})  # "X succeeded A": the verb's subject is the answer
_QUOTED = re.compile(r"\"([^\"]{1,60})\"")


@dataclass(frozen=True, slots=True)
class QuestionContext:
    tokens: frozenset[str]
    numbers_text: str  # the folded question, for echoed numbers
    competitor_sides: tuple[tuple[str, str], ...]  # (token adjacent to "or" on one side, on the other)
    relation: tuple[str, tuple[str, ...]] | None  # ("before"/"after", anchor tokens)
    negated: bool
    has_or: bool


def _content(tokens: list[str], loc: Locale) -> list[str]:
    return [t for t in tokens if t not in loc.stopwords and len(t) > 1]


def question_context(question_key: str, question_folded: str, loc: Locale) -> QuestionContext:
    tokens = question_key.split()
    sides: list[tuple[str, str]] = []
    quoted = [q.strip() for q in _QUOTED.findall(question_folded)]
    for i, t in enumerate(tokens):
        if t in loc.or_words and 0 < i < len(tokens) - 1:
            left = tokens[i - 1]
            right_content = _content(tokens[i + 1:i + 4], loc)
            if right_content:
                sides.append((left, right_content[0]))
    if len(quoted) >= 2 and any(w in tokens for w in loc.or_words):
        a, b = (re.sub(r"[\W_]+", " ", q).strip().split() for q in quoted[-2:])
        if a and b:
            sides.append((a[0], b[0]))
    relation = None
    for i, t in enumerate(tokens):
        group = "before" if t in _BEFORE else "after" if t in _AFTER else None
        if group is None:
            continue
        anchor = tuple(_content(tokens[i + 1:i + 5], loc)[:2])
        if anchor and anchor[0] not in ("to", "by"):
            relation = (group, anchor)
            break
        if anchor:
            anchor = tuple(a for a in anchor if a not in ("to", "by"))
            relation = (group, anchor) if anchor else None
            break
    negated = any(t in loc.negations for t in tokens) or "n't" in question_folded
    return QuestionContext(frozenset(tokens), question_folded, tuple(sides), relation, negated,
                           any(t in loc.or_words for t in tokens))


def _relation_doubt(tokens: list[str], gold_tokens: frozenset[str], ctx: QuestionContext) -> str | None:
    assert ctx.relation is not None
    group, anchor = ctx.relation
    if anchor[0] not in tokens:
        return None
    for i, t in enumerate(tokens):
        g = "before" if t in _BEFORE else "after" if t in _AFTER else None
        if g is None:
            continue
        following = [x for x in tokens[i + 1:i + 5] if x not in ("the", "to", "by", "than", "ال")]
        passive = i + 1 < len(tokens) and tokens[i + 1] == "by"
        direction = g
        if t in _ACTIVE_INVERSE and not passive:
            direction = g  # "X succeeded A": X after A, like "after A"
        if passive:
            direction = "after" if g == "before" else "before"  # "A was succeeded by X": X after A
            points_at = "gold" if following and following[0] in gold_tokens else "other"
            if points_at == "gold":
                return None if direction == group else "the answer puts the gold on the other side of the anchor"
            continue
        if following and following[0] == anchor[0]:
            return None if direction == group else "the answer relates the anchor the other way round"
        if following and following[0] in gold_tokens:
            return "the answer puts the gold on the other side of the anchor"
    return "the answer names the anchor but not how the gold relates to it"


def sentence_doubt(span_tokens: list[str], mention: tuple[int, int], gold_tokens: frozenset[str],
                   ctx: QuestionContext | None, loc: Locale, *, is_list: bool = False) -> str | None:
    """Why a sentence that mentions the gold at token range `mention` is not clearly right, or None."""
    tokens = span_tokens
    present = set(tokens)
    if ctx is not None:
        for a, b in ctx.competitor_sides:
            if a in gold_tokens and b not in gold_tokens and b in present:
                return f"the answer also names the other alternative ({b!r})"
            if b in gold_tokens and a not in gold_tokens and a in present:
                return f"the answer also names the other alternative ({a!r})"
        if ctx.relation is not None:
            doubt = _relation_doubt(tokens, gold_tokens, ctx)
            if doubt:
                return doubt
    if not (ctx and ctx.has_or) and any(t in loc.hedges for t in tokens):
        return "the answer hedges"
    if not (ctx and ctx.negated) and (any(t in loc.negations for t in tokens)):
        return "the answer contains a negation"
    if not is_list:
        start, end = mention
        q = ctx.tokens if ctx is not None else frozenset()

        def others(words: list[str]) -> list[str]:
            return [x for x in words if x not in loc.stopwords and x not in q and x not in gold_tokens
                    and not x.isdigit()]

        after = tokens[end:end + 4]
        for i, t in enumerate(after[:2]):
            if t in loc.conjunctions and others(after[i + 1:i + 3]):
                return "the answer names other candidates beside the gold"
            if loc.arabic and i == 0 and t.startswith("و") and len(t) > 3 and others([t[1:]]):
                return "the answer names other candidates beside the gold"
        if start >= 2 and tokens[start - 1] in loc.conjunctions and others(tokens[max(0, start - 3):start - 1]):
            return "the answer names other candidates beside the gold"
    return None
