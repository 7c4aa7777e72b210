"""Relation words in either voice: before / after, preceded / succeeded, ahead of / behind.

A neighbour question ("who was the manager before George Case?") asks for the entity on one side of
an anchor. The relation is read the same way in the question and in the answer:

* "<X> R <Y>" puts X on R's side of Y: "X succeeded Y", "X came after Y", "X finished behind Y" — X
  is after Y; "X preceded Y", "X before Y", "X ahead of Y" — X is before Y;
* "R by" turns it round: "Y was succeeded by X" = "X succeeded Y"; "who was preceded by Y?" asks for
  the one after Y;
* Arabic: قبل / بعد, سبق (preceded), تلا / خلف (followed, succeeded), with the verb before its subject
  when it opens the sentence ("خلف زيد عمرا": Zaid succeeded Amr).

The words are each language pack's "relation" section (locales/<lang>.json): "before" / "after" words
with every inflected form (ru "сменил/сменила/сменили"), the verbs a passive marker ("by", "von",
"par", "por", "door", "av") turns round, the words skipped before the object ("à", "auf", "de"), and a
passive that carries its own side is listed on that side (ru "сменён", sv "efterträddes").

`question_relations` lists (side, anchor word) asked; `relation_doubt` checks an answer's sentence.
"""

from __future__ import annotations

from livetab.rubric.locale import Locale

__all__ = ["AFTER", "BEFORE", "name_base", "question_relations", "relation_doubt", "relation_side"]

BEFORE, AFTER = "before", "after"
UNCERTAIN, INCORRECT = "uncertain", "incorrect"

def relation_side(tokens: list[str], i: int, loc: Locale) -> str | None:
    """The side relation word tokens[i] puts its subject on, the passive "R by" turned round."""
    t = tokens[i]
    side = BEFORE if t in loc.rel_before else AFTER if t in loc.rel_after else None
    if side is None:
        return None
    for phrase in loc.rel_fixed:  # nl "op een na hoogste" (second highest), ru "после запятой": no relation
        k = phrase.index(t) if t in phrase else -1
        if k >= 0 and i >= k and tuple(tokens[i - k:i - k + len(phrase)]) == phrase:
            return None
    if i + 1 < len(tokens) and tokens[i + 1] in loc.rel_passive and t in loc.rel_verbs:
        side = AFTER if side == BEFORE else BEFORE
    return side


def _content(tokens: list[str], loc: Locale) -> list[str]:
    return [t for t in tokens if t not in loc.stopwords and t not in loc.rel_skip and len(t) > 1 and not t.isdigit()]


def _anchor_words(tokens: list[str], loc: Locale) -> list[str]:
    """The anchor's words among the (up to four) tokens after a relation word: its first content word and the
    content words right after it ("Georg Kaiser" of "succeeded Georg Kaiser as mayor"), up to the first word
    that is not one; skipped words before the first ("à", "auf") do not end it."""
    out: list[str] = []
    for t in tokens:
        if _content([t], loc):
            out.append(t)
        elif out:
            break
    return out


def question_relations(tokens: list[str], loc: Locale) -> tuple[tuple[str, str], ...]:
    """(side asked, anchor word) for each word of the anchor of each relation word of the question: "who came
    after X" asks the after side of X; "who was succeeded by X" asks the before side. Every word of the anchor
    is listed, so an answer that names it by another of them ("Kaiser" for "Georg Kaiser") is read too."""
    out: list[tuple[str, str]] = []
    for i in range(len(tokens)):
        side = relation_side(tokens, i, loc)
        if side is None:
            continue
        out.extend((side, a) for a in _anchor_words(tokens[i + 1:i + 5], loc))
    return tuple(dict.fromkeys(out))


def name_base(t: str, names: set[str] | frozenset[str], loc: Locale) -> str:
    """`t` as the name word of `names` it inflects ("бориса" -> "борис", "анны" -> "анна"; the pack's
    `name_endings`), else `t`."""
    if t in names or not loc.name_endings:
        return t
    for w in names:
        if len(w) >= 4 and any(t in (w + e, w[:-1] + e) for e in loc.name_endings):
            return w
    return t


def _object_case(t: str, loc: Locale) -> bool:
    """A name word in a case only an object has (ru accusative "Анну", "Орлову")."""
    return any(t.endswith(e) for e in loc.rel_object_endings)


def _object_leads(raw: list[str], tokens: list[str], i: int, names: set[str] | frozenset[str], loc: Locale) -> bool:
    """The name just before the verb at `i` is in the object's case: object, verb, subject."""
    j = next((j for j in range(i - 1, max(-1, i - 4), -1) if tokens[j] in names), None)
    return j is not None and _object_case(raw[j], loc)


def _agent_before(tokens: list[str], i: int, loc: Locale) -> str | None:
    """The agent X of "von X abgelöst" / "door X opgevolgd" (a marker of the pack's `agent_before_verb`
    within four words before the participle at `i`), else None."""
    if tokens[i] not in loc.rel_verbs or not loc.rel_agent_before_verb:
        return None
    for j in range(i - 1, max(-1, i - 5), -1):
        if tokens[j] in loc.rel_agent_before_verb:
            between = [x for x in tokens[j + 1:i] if x not in loc.rel_skip]
            return between[0] if between else None
    return None


def _opens_clause(tokens: list[str], i: int, loc: Locale) -> bool:
    return bool(loc.rel_openers) and all(t in loc.rel_openers for t in tokens[:i])


def relation_doubt(tokens: list[str], gold_tokens: frozenset[str], relations: tuple[tuple[str, str], ...],
                   loc: Locale, *, anchors_known: frozenset[str] | None = None,
                   near_anchor: bool = False, mention_end: int = 0) -> tuple[str, str] | None:
    """Is the gold on the asked side of the anchor? Each relation word R in the answer is read as
    "<subject> R <object>" (the subject is R of the object); "R by" reverses it.

    `anchors_known`: the words of the question's table (None: no table). An anchor the table does not
    have ("the previous year") is a plain adjective, not an entity: an answer that does not relate the
    gold to it is not doubted for that (one that puts the gold on the wrong side still is).
    `near_anchor`: accept "<gold> R ... <anchor>" with a few words between R and the anchor ("prior to
    the remaining 3 contestants for the final") — only when a table has ruled out other candidates, and
    R follows the gold (ending at `mention_end`) within three words.
    """
    raw = tokens
    if loc.name_endings:  # the anchor and the gold in another case than the question's ("Анна" for "Анну")
        names = {a for _, a in relations} | gold_tokens
        tokens = [name_base(t, names, loc) for t in tokens]
    asked = {anchor: side for side, anchor in relations if anchor in tokens and anchor not in gold_tokens}
    if not asked:
        return None
    for i in range(len(tokens)):
        side = relation_side(tokens, i, loc)
        if side is None:
            continue
        rest = [x for x in tokens[i + 1:i + 5] if x not in loc.rel_skip and not x.isdigit()]
        if tokens[i] in loc.rel_verbs and _opens_clause(tokens, i, loc):
            rest = rest[1:]  # verb-subject-object: the object follows the subject
        obj = rest[0] if rest else None
        agent = None if obj in asked or obj in gold_tokens else _agent_before(tokens, i, loc)
        if agent is not None:  # de "Y wurde von X abgelöst": the passive's agent before its participle
            side, obj = (AFTER if side == BEFORE else BEFORE), agent
        if tokens[i] in loc.rel_verbs and _object_leads(raw, tokens, i, set(asked) | gold_tokens, loc):
            side = AFTER if side == BEFORE else BEFORE  # "Анну Орлову сменила Вера": object, verb, subject
        if obj in asked:  # "<gold> R <anchor>": the gold is R of the anchor
            if side == asked[obj]:
                return None
            return INCORRECT, "the answer puts the gold on the other side of the anchor"
        if obj is not None and obj in gold_tokens and len(set(asked.values())) == 1:  # "<anchor> R <gold>"
            flipped = AFTER if side == BEFORE else BEFORE  # the opposite of the gold's side
            if flipped == next(iter(asked.values())):
                return None
            return INCORRECT, "the answer puts the gold on the other side of the anchor"
        if near_anchor and 0 < mention_end <= i <= mention_end + 3:
            window = tokens[i + 1:i + 10]
            hit = next((a for a in asked if a in window), None)
            if hit is not None and not any(t in gold_tokens for t in window):
                return None if side == asked[hit] else (INCORRECT, "the answer puts the gold on the other side "
                                                                   "of the anchor")
    if anchors_known is not None and anchors_known.isdisjoint(asked):
        return None  # "the previous year": no entity of the table to stand on either side of
    return UNCERTAIN, "the answer names the anchor but not how the gold relates to it"
