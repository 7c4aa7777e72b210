"""Exact readings of the answer-class helpers (rubric/context.py, comparisons.py, ...), written against
the survivors of `make mutation`'s rubric_classes group (docs/mutation.md, 1 December 2026): what the
question tells the judge (its alternatives, the entities it asks about, its negation, its "or"), and
which comparative word an answer uses. Each case was read by hand; a comment says what it pins."""

from __future__ import annotations

import pytest
from livetab.rubric import judge_text
from livetab.rubric.comparisons import comparative
from livetab.rubric.context import question_context
from livetab.rubric.locale import get_locale
from livetab.rubric.relations import question_relations, relation_doubt, relation_side
from livetab.rubric.text import fold, key

Sides = tuple[tuple[str, str], ...]
Entities = tuple[tuple[str, tuple[str, ...]], ...]


@pytest.mark.parametrize(("lang", "question", "with_text", "sides", "entities", "negated", "has_or"), [
    # one-letter alternatives are no content words; two-letter names are
    ("en", "Which is longer, A or B?", True, (), (), False, True),
    ("en", "Who won the final, Li or Wu?", True, (("li", "wu"),), (), False, True),
    ("en", "Ann or Bob, who is older?", True, (("ann", "bob"),), (), False, True),  # "or" as the second word
    ("en", "Or was it Ann Lee?", True, (), (), False, True),  # "or" first: no left side
    # the right side is the first content word within three words of the "or"
    ("en", "Was it Ann Lee or one of the Smiths?", True, (("lee", "one"),), (), False, True),
    ("en", "Was it Ann Lee or the 3 from Spain?", True, (), (("from", ("spain",)),), False, True),
    # French "où" folds into "ou" ("or"): told apart by the question as written, in any case; without
    # the written question the folded "ou" stands
    ("fr", "Qui est plus âgé, Ann Lee ou Bob Ray ?", False, (("lee", "bob"),), (), False, True),
    ("fr", "Qui est plus âgé, Ann Lee ou Bob Ray ?", True, (("lee", "bob"),), (), False, True),
    ("fr", "OÙ EST LA TOUR EIFFEL ?", True, (), (), False, False),
    # quoted alternatives: an "or" inside a quote is the title's, and each title stands by its first
    # content word (by its first word when it has none; no side for a title of no words)
    ("en", 'Which song charted higher, "Blue Moon" or "Red Sun"?', True, (("moon", "red"), ("blue", "red")), (),
     False, True),
    ("en", 'Which song, "Rock or Roll" or "Blue Moon", charted higher?', True, (("roll", "blue"), ("rock", "blue")),
     (), False, True),
    ("en", 'Which band sold more, "The Who" or "Them"?', True, (("who", "them"), ("the", "them")), (), False, True),
    ("en", 'Which band sold more, "Who, me?" or "Them"?', True, (("me", "them"), ("me", "them")), (), False, True),
    ("en", 'Which got more votes, "!!!" or "Blue Moon"?', True, (("votes", "blue"),), (), False, True),
    ("de", "Welcher Film ist länger, „Der beste Freund“ oder „Die Reise“?", True,
     (("freund", "reise"), ("beste", "reise")), (), False, True),
    # entities: the words after a preposition, up to a stopword, another preposition or a number (four at most)
    ("en", "how many players came from Spain against Italy?", True, (),
     (("from", ("spain",)), ("against", ("italy",))), False, False),
    ("en", "how many players came from Spain 2004?", True, (), (("from", ("spain",)),), False, False),
    ("en", "how many players from Spain who won?", True, (), (("from", ("spain",)),), False, False),
    ("en", "which athlete from Trinidad Tobago Saint Kitts Nevis won?", True, (),
     (("from", ("kitts", "saint", "tobago", "trinidad")),), False, False),
    # negation: a negation word, or any "n't" (the pack lists "didnt", not "couldnt")
    ("en", "which player couldn't finish the race?", True, (), (), True, False),
    ("en", "which player didn't finish the race?", True, (), (), True, False),
    ("ar", "أيهما أكبر سنا، أحمد أم خالد؟", True, (("احمد", "خالد"),), (), False, True),
    ("ar", "من هو اللاعب من مصر في عام 2004؟", True, (), (("من", ("مصر",)), ("في", ("عام",))), False, False),
])
def test_question_context(lang: str, question: str, with_text: bool, sides: Sides, entities: Entities,
                          negated: bool, has_or: bool) -> None:
    loc = get_locale(lang)
    qf = fold(question)
    ctx = question_context(key(qf), qf, loc, question) if with_text else question_context(
        key(qf), qf, loc)
    assert ctx.competitor_sides == sides
    assert tuple((p, tuple(sorted(e))) for p, e in ctx.entities) == entities
    assert (ctx.negated, ctx.has_or) == (negated, has_or)


@pytest.mark.parametrize(("lang", "answer", "found"), [
    ("ar", "خالد واقل من احمد", (1, "amount", -1)),  # the conjunction written onto the comparative
    ("ar", "خالد فاكبر سنا", (1, "time", 1)),  # "ف" + "أكبر سنا": older
    ("ar", "خالد اقل من احمد", (1, "amount", -1)),
    ("ar", "وخالد", None),
    ("en", "chile won more", (2, "amount", 1)),  # "more" as the last word
    ("en", "it was more recent", (2, "time", -1)),  # "more recent" is one word, at the end
    ("en", "more greater length", (0, "size", 1)),  # a generic word after "more" is not joined with it
    ("en", "greater length than x", (0, "size", 1)),  # the axis noun right after a generic comparative
    ("en", "he scored more than his age", (2, "amount", 1)),  # an axis noun three words on does not count
    ("en", "younger older than", (0, "time", -1)),  # a comparative after one that is not "more"/"less"
])
def test_comparative(lang: str, answer: str, found: tuple[int, str, int] | None) -> None:
    assert comparative(answer.split(), get_locale(lang)) == found


# (answer, gold, question, language, verdict, the rule that decided): sentences around the gold that the
# context and comparison rules read — the other alternative echoed in a restated choice or named apart,
# "either" as a hedge or a restatement, "or" / "and" / Arabic "و" next to the gold, a conjunction before
# it, an entity of the question swapped, a comparative pointing at one side, a number per alternative.
# Verdicts read by hand; where a rule cannot decide, "uncertain" sends the answer to the LLM judges.
SENTENCES = [
    ('Bob Ray is older.', 'Bob Ray', 'who is older, Ann Lee or Bob Ray?', 'en', 'correct',
     'the answer states the gold'),
    ('The Blues were the less successful team, behind the Reds.', 'Reds', 'which team won more points, the Reds or the Blues?', 'en', 'correct',
     "the comparative ('less') points at the gold"),
    ('Chile won 3 medals.', 'less', 'did Chile win more or less medals than Peru?', 'en', 'uncertain',
     'a two-way question answered without naming either alternative'),
    ('Compared with Peru fewer medals went to Chile.', 'less', 'did Chile win more or less medals than Peru?', 'en', 'uncertain',
     'a two-way question answered without naming either alternative'),
    ('Chile won fewer medals at the games in 2019 than Peru.', 'less', 'did Chile win more or less medals than Peru?', 'en', 'uncertain',
     'a two-way question answered without naming either alternative'),
    ('Chile won fewer medals at games in 2019 than Peru.', 'less', 'did Chile win more or less medals than Peru?', 'en', 'correct',
     "the answer's comparative ('fewer') has the gold's direction"),
    ('Chile did not win more medals than Peru.', 'less', 'did Chile win more or less medals than Peru?', 'en', 'correct',
     "the answer's comparative ('more') has the gold's direction"),
    ('The Reds lost to the Blues, who scored 85 points; the Reds scored 70.', 'Blues', 'which team won more points, the Reds or the Blues?', 'en', 'correct',
     'the number the answer gives the gold wins the comparison'),
    ('In 2019 Reds scored 70 points and Blues 85.', 'Blues', 'which team won more points, the Reds or the Blues?', 'en', 'correct',
     'the number the answer gives the gold wins the comparison'),
    ('Reds 70, Blues 85.', 'Blues', 'which team won more points, the Reds or the Blues?', 'en', 'correct',
     'the number the answer gives the gold wins the comparison'),
    ('The Blues beat the Reds with 85 points.', 'Blues', 'which team won more points, the Reds or the Blues?', 'en', 'uncertain',
     "the answer also names the other alternative ('reds')"),
    ('خالد واقل سنا من احمد', 'أحمد', 'أيهما أكبر سنا، أحمد أم خالد؟', 'ar', 'correct',
     "the comparative ('واقل') points at the gold"),
    ('احمد فاكبر سنا من خالد', 'أحمد', 'أيهما أكبر سنا، أحمد أم خالد؟', 'ar', 'correct',
     "the comparative ('فاكبر') points at the gold"),
    ('3 players from Spain played against France.', '3', 'how many players from Spain played against Italy?', 'en', 'uncertain',
     "the question asks about 'italy', the answer about 'france'"),
    ('There were 3 robots from the.', '3', 'how many robots are from the United States?', 'en', 'correct',
     'number matches'),
    ('3 robots come from there.', '3', 'how many robots are from the United States?', 'en', 'correct',
     'number matches'),
    ('They built 3 robots from 2001 on.', '3', 'how many robots are from the United States?', 'en', 'correct',
     'number matches'),
    ('Either Mikac or Wall: it is Des Wall.', 'Des Wall', 'who is not number 42, Mikac or Wall?', 'en', 'correct',
     'the answer states the gold'),
    ('Wall, not Mikac or anyone, is the answer.', 'Wall', 'who is not number 42, Mikac or Wall?', 'en', 'uncertain',
     'the answer states the gold as one item of a list'),
    ('Mikac or Wall? Des Wall.', 'Des Wall', 'who is not number 42, Mikac or Wall?', 'en', 'correct',
     'the answer states the gold'),
    ('It is Des Wall, not Mikac.', 'Des Wall', 'who is not number 42, Mikac or Wall?', 'en', 'uncertain',
     "the answer also names the other alternative ('mikac')"),
    ('It is either Des Wall or Mikac.', 'Des Wall', 'who is not number 42, Mikac or Wall?', 'en', 'uncertain',
     "the answer also names the other alternative ('mikac')"),
    ('It is Des Wall, or Mikac.', 'Des Wall', 'who is not number 42, Mikac or Wall?', 'en', 'uncertain',
     "the answer also names the other alternative ('mikac')"),
    ('or Mikac, Des Wall.', 'Des Wall', 'who is not number 42, Mikac or Wall?', 'en', 'uncertain',
     'the answer names the gold and another item'),
    ('Des Wall; Mikac or not.', 'Des Wall', 'who is not number 42, Mikac or Wall?', 'en', 'uncertain',
     'the answer states the gold as one item of a list'),
    ('Des Wall or perhaps Mikac.', 'Des Wall', 'who is not number 42, Mikac or Wall?', 'en', 'uncertain',
     "the answer also names the other alternative ('mikac')"),
    ('Wall either or Mikac', 'Wall', 'who is not number 42, Mikac or Wall?', 'en', 'uncertain',
     'the answer hedges'),
    ('Ann Lee, or Bob Ray', 'Ann Lee', 'who won?', 'en', 'uncertain',
     'the answer offers the gold as one of several'),
    ('Ann Lee won, or so', 'Ann Lee', 'who won?', 'en', 'uncertain',
     'the answer offers the gold as one of several'),
    ('or so Ann Lee won', 'Ann Lee', 'who won?', 'en', 'uncertain',
     'the answer offers the gold as one of several'),
    ('it was or Ann Lee', 'Ann Lee', 'who won?', 'en', 'uncertain',
     'the answer offers the gold as one of several'),
    ('Ann Lee won and then Bob Ray', 'Ann Lee', 'who won?', 'en', 'uncertain',
     'the answer names other candidates beside the gold'),
    ('Ann Lee and won', 'Ann Lee', 'who won the race?', 'en', 'uncertain',
     'the answer names other candidates beside the gold'),
    ('Ann Lee and the race winner', 'Ann Lee', 'who won the race?', 'en', 'uncertain',
     'the answer names other candidates beside the gold'),
    ('Ann Lee and race', 'Ann Lee', 'who won the race?', 'en', 'uncertain',
     'the answer names other candidates beside the gold'),
    ('Bob and Ann Lee won', 'Ann Lee', 'who won?', 'en', 'uncertain',
     'the answer names other candidates beside the gold'),
    ('Bob Ray and Ann Lee won', 'Ann Lee', 'who won?', 'en', 'uncertain',
     'the answer names other candidates beside the gold'),
    ('race and Ann Lee', 'Ann Lee', 'who won the race?', 'en', 'uncertain',
     'the answer names other candidates beside the gold'),
    ('and Ann Lee', 'Ann Lee', 'who won?', 'en', 'correct',
     'the answer states the gold'),
    ('فاز أحمد وخالد', 'أحمد', 'من فاز؟', 'ar', 'uncertain',
     'the answer names other candidates beside the gold'),
    ('فاز أحمد ومحمد', 'أحمد', 'من فاز؟', 'ar', 'uncertain',
     'the answer names other candidates beside the gold'),
    ('فاز أحمد وفي', 'أحمد', 'من فاز؟', 'ar', 'correct',
     'the answer states the gold'),
    ('فاز أحمد وهو', 'أحمد', 'من فاز؟', 'ar', 'correct',
     'the answer states the gold'),
    ('فاز أحمد وقد فاز', 'أحمد', 'من فاز؟', 'ar', 'correct',
     'the answer states the gold'),
    ('فاز أحمد وسط', 'أحمد', 'من فاز؟', 'ar', 'correct',
     'the answer states the gold'),
    ('أحمد وخالد', 'أحمد', 'من فاز؟', 'ar', 'uncertain',
     'the answer names other candidates beside the gold'),
    ('أحمد وفاز', 'أحمد', 'من فاز؟', 'ar', 'correct',
     'the answer states the gold'),
    ('Or Mikac? It is Des Wall.', 'Des Wall', 'who is not number 42, Mikac or Wall?', 'en', 'correct',
     'the answer states the gold'),
    ('Wall or Mikac? Des Wall.', 'Des Wall', 'who is not number 42, Mikac or Wall?', 'en', 'correct',
     'the answer states the gold'),
    ('Mikac or Wall? Des Wall.', 'Des Wall', 'who is not number 42, Wall or Mikac?', 'en', 'correct',
     'the answer states the gold'),
    ('It is Des Wall, not Mikac.', 'Des Wall', 'who is not number 42, Wall or Mikac?', 'en', 'uncertain',
     "the answer also names the other alternative ('mikac')"),
    ('It is Des Wall, or Mikac.', 'Des Wall', 'who is not number 42, Wall or Mikac?', 'en', 'uncertain',
     "the answer also names the other alternative ('mikac')"),
    ('Or Des Wall, either Mikac or Wall', 'Des Wall', 'who is not number 42, Mikac or Wall?', 'en', 'uncertain',
     'the answer states the gold as one item of a list'),
    ('Either way, Ann Lee won.', 'Ann Lee', 'who won, Ann Lee or Bob Ray?', 'en', 'uncertain',
     'the answer hedges'),
    ('Either way, Ann Lee won, or Bob Ray lost.', 'Ann Lee', 'who won, Ann Lee or Bob Ray?', 'en', 'uncertain',
     'the answer hedges'),
    ('Either Lee or Ray: it was Ann Lee.', 'Ann Lee', 'who won, Ann Lee or Bob Ray?', 'en', 'uncertain',
     'the answer hedges'),
    ('Either Lee or Ray, Ann Lee.', 'Ann Lee', 'who won, Ann Lee or Bob Ray?', 'en', 'uncertain',
     'the answer states the gold as one item of a list'),
    ('Lee or Ray, either, Ann Lee.', 'Ann Lee', 'who won, Ann Lee or Bob Ray?', 'en', 'uncertain',
     'the answer states the gold as one item of a list'),
    ('Cy Young won, not Bob Ray.', 'Cy Young', 'who won, Ann Lee or Bob Ray?', 'en', 'uncertain',
     'the answer contains a negation'),
    ('Cy Young beat Bob Ray.', 'Cy Young', 'who won, Ann Lee or Bob Ray?', 'en', 'correct',
     'the answer states the gold'),
    ('Win or lose then, Ann Lee won.', 'Ann Lee', 'who won?', 'en', 'uncertain',
     'the answer states the gold as one item of a list'),
    ('Ann Lee won it or not', 'Ann Lee', 'who won?', 'en', 'uncertain',
     'the answer contains a negation'),
    ('Ann Lee won, and the race ended.', 'Ann Lee', 'who won the race?', 'en', 'correct',
     'the answer states the gold'),
    ('Ann Lee won, and at 25 retired.', 'Ann Lee', 'who won?', 'en', 'correct',
     'the answer states the gold'),
    ('Ann Lee won the race and then retired.', 'Ann Lee', 'who won?', 'en', 'correct',
     'the answer states the gold'),
    ('فاز أحمد وعمر', 'أحمد', 'من فاز؟', 'ar', 'uncertain',
     'the answer names other candidates beside the gold'),
    ('فاز أحمد وامن', 'أحمد', 'من فاز؟', 'ar', 'uncertain',
     'the answer names other candidates beside the gold'),
    ('فاز أحمد وفاز', 'أحمد', 'من فاز؟', 'ar', 'correct',
     'the answer states the gold'),
    ('Reds 85, Blues 70.', 'Blues', 'which team won more points, the Reds or the Blues?', 'en', 'incorrect',
     'the number the answer gives the other alternative wins the comparison'),
    ('The Blues scored 85; the Reds, like the Blues last year, 70.', 'Blues', 'which team won more points, the Reds or the Blues?', 'en', 'uncertain',
     "the answer also names the other alternative ('reds')"),
    ('Bob Ray, of Texas, is younger than the Queen of Spain.', 'Queen of Spain', 'who is older, the Queen of Spain or Bob Ray?', 'en', 'correct',
     "the comparative ('younger') points at the gold"),
    ('Li is older than Bob Ray.', 'Li Na', 'who is older, Li Na or Bob Ray?', 'en', 'correct',
     "the comparative ('older') points at the gold"),
    ('Ann Lee won; it was either Lee or Bob', 'Ann Lee', 'who won, Ann Lee or Bob Ray?', 'en', 'correct',
     'the answer states the gold'),
    ('Or Des Wall either Mikac or Wall', 'Des Wall', 'who is not number 42, Mikac or Wall?', 'en', 'uncertain',
     "the answer also names the other alternative ('mikac')"),
    ('Win or lose then Ann Lee won', 'Ann Lee', 'who won?', 'en', 'correct',
     'the answer states the gold'),
    ('Either way it was Ann Lee or', 'Ann Lee', 'who won, Ann Lee or Bob Ray?', 'en', 'uncertain',
     'the answer hedges'),
    ('Or Bob either way Ann Lee', 'Ann Lee', 'who won, Ann Lee or Bob Ray?', 'en', 'uncertain',
     'the answer hedges'),
    ('Lee or Bob either way it was Ann Lee', 'Ann Lee', 'who won, Ann Lee or Bob Ray?', 'en', 'correct',
     'the answer states the gold'),
]


@pytest.mark.parametrize(("answer", "gold", "question", "lang", "verdict", "rule"), SENTENCES,
                         ids=[f"{i}-{r[0][:24]}" for i, r in enumerate(SENTENCES)])
def test_sentence_rules(answer: str, gold: str, question: str, lang: str, verdict: str, rule: str) -> None:
    got = judge_text(answer, gold, question=question, language=lang)
    assert (got.verdict, got.rationale.rsplit(" [", 1)[0]) == (verdict, rule)


# --- relation words: the side a word puts its subject on, the anchors a question asks about, and the
# near-anchor reading ("<gold> R ... <anchor>", allowed only when the table has ruled out other names)

def test_relation_side_and_fixed_phrases() -> None:
    nl, en = get_locale("nl"), get_locale("en")
    assert relation_side("op een na hoogste gebouw".split(), 2, nl) is None  # "second highest", at the start
    assert relation_side("het op een na hoogste gebouw".split(), 3, nl) is None
    assert relation_side(["succeeded", "by"], 0, en) == "before"  # the passive marker as the last word
    assert relation_side(["succeeded"], 0, en) == "after"


@pytest.mark.parametrize(("question", "relations"), [
    ("who came after li na", (("after", "li"), ("after", "na"))),  # two-letter anchor words count
    ("who came after x smith", (("after", "smith"),)),  # a one-letter word does not
    ("who came after 1990 smith", (("after", "smith"),)),  # nor a number
    ("who finished after the 2 of the smiths", ()),  # the anchor within four words of the relation word
])
def test_question_relations(question: str, relations: tuple[tuple[str, str], ...]) -> None:
    assert question_relations(question.split(), get_locale("en")) == relations


NEAR_GOLD = frozenset({"bob", "lemon"})
NEAR_ASKED = (("before", "george"),)
NOT_HOW = ("uncertain", "the answer names the anchor but not how the gold relates to it")
OTHER_SIDE = ("incorrect", "the answer puts the gold on the other side of the anchor")


@pytest.mark.parametrize(("answer", "mention_end", "near", "found"), [
    ("bob lemon ahead of the remaining three men and george case", 2, True, None),
    ("bob lemon ahead of the remaining three men and george case", 2, False, NOT_HOW),
    ("lemon ahead of the remaining three men and george case", 1, True, None),  # a one-word mention
    ("bob lemon behind the remaining three men and george case", 2, True, OTHER_SIDE),
    # the anchor within nine words after R, no gold word among them; R within three words after the gold
    ("bob lemon ahead of the remaining men in the final round and george case", 2, True, NOT_HOW),
    ("bob lemon ahead of the remaining lemon men and george case", 2, True, NOT_HOW),
    ("bob lemon finished ahead of the remaining three men and george case", 2, True, None),
    ("bob lemon finished well clear ahead of the others and george case", 2, True, None),
    ("bob lemon finished very well clear ahead of the others and george case", 2, True, NOT_HOW),
])
def test_relation_near_anchor(answer: str, mention_end: int, near: bool, found: tuple[str, str] | None) -> None:
    got = relation_doubt(answer.split(), NEAR_GOLD, NEAR_ASKED, get_locale("en"),
                         anchors_known=frozenset({"george", "case", "bob", "lemon"}), near_anchor=near,
                         mention_end=mention_end)
    assert got == found


def test_relation_doubt_defaults() -> None:
    # no near-anchor reading unless asked for, and then only after a mention (mention_end 0: none)
    tokens = "bob lemon ahead of the remaining three men and george case".split()
    en = get_locale("en")
    assert relation_doubt(tokens, NEAR_GOLD, NEAR_ASKED, en) == NOT_HOW
    assert relation_doubt(tokens, NEAR_GOLD, NEAR_ASKED, en, near_anchor=True) == NOT_HOW
