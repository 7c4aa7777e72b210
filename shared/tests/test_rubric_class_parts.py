"""The parts the answer-class rules are built from, tested one by one: year ranges, relation words in
either voice, gold cells of several names, and comma lists around the gold (English and Arabic)."""

from __future__ import annotations

import pytest
from livetab.rubric.cellparts import joined_parts
from livetab.rubric.commas import adjacent_in_list, listed_doubt, listed_with, tokens_of
from livetab.rubric.gold import spec_from_strings
from livetab.rubric.locale import get_locale
from livetab.rubric.ranges import find_ranges, gold_range
from livetab.rubric.relations import AFTER, BEFORE, question_relations, relation_doubt, relation_side
from livetab.rubric.text import fold, key

EN, AR = get_locale("en"), get_locale("ar")
OTHER_SIDE = ("incorrect", "the answer puts the gold on the other side of the anchor")
NOT_RELATED = ("uncertain", "the answer names the anchor but not how the gold relates to it")


@pytest.mark.parametrize(("text", "ranges", "gold"), [
    ("1936/37", [(1936, 1937)], (1936, 1937)),
    ("1936–37", [(1936, 1937)], (1936, 1937)),
    ("1936-1937", [(1936, 1937)], (1936, 1937)),
    ("1936/1937", [(1936, 1937)], (1936, 1937)),
    ("1936 to 1937", [(1936, 1937)], (1936, 1937)),
    ("1999/00", [(1999, 2000)], (1999, 2000)),  # the short end rolls into the next century
    ("1999–2000", [(1999, 2000)], (1999, 2000)),
    ("1000-01", [(1000, 1001)], (1000, 1001)),
    ("2000 through 2005", [(2000, 2005)], (2000, 2005)),
    ("from 2000 until 2005", [(2000, 2005)], None),
    ("2010-11 season", [(2010, 2011)], (2010, 2011)),
    ("موسم 2010 الى 2011", [(2010, 2011)], (2010, 2011)),
    ("2010 حتى 2011", [(2010, 2011)], (2010, 2011)),
    ("1936/37 and 1950-51", [(1936, 1937), (1950, 1951)], None),  # two ranges: no gold range
    ("1990-1980", [], None),  # backwards
    ("1900-2001", [], None),  # over a century
    ("1936-37-38", [], None),
    ("1936/37/38", [], None),
    ("1.1936-37", [], None),
    ("1936-370", [], None),
    ("score 12-10", [], None),
    ("2101-02", [], None),
    ("0999-1000", [], None),
])
def test_ranges(text: str, ranges: list[tuple[int, int]], gold: tuple[int, int] | None) -> None:
    assert find_ranges(fold(text)) == ranges
    assert gold_range(fold(text)) == gold


def tokens(text: str) -> list[str]:
    return key(text).split()


@pytest.mark.parametrize(("question", "lang", "asked"), [
    ("who was the manager before george case?", "en", (("before", "george"), ("before", "case"))),
    ("who was succeeded by george case?", "en", (("before", "george"), ("before", "case"))),
    ("who came after george case", "en", (("after", "george"), ("after", "case"))),
    ("which team finished ahead of spain?", "en", (("before", "spain"),)),
    ("who was preceded by bob lemon in the role", "en", (("after", "bob"), ("after", "lemon"))),
    ("who preceded the previous year", "en", (("before", "previous"), ("before", "year"))),
    ("who was the manager in 1990?", "en", ()),
    ("من كان المدير قبل جورج", "ar", (("before", "جورج"),)),
])
def test_question_relations(question: str, lang: str, asked: tuple[tuple[str, str], ...]) -> None:
    assert question_relations(tokens(question), get_locale(lang)) == asked


@pytest.mark.parametrize(("sentence", "sides"), [
    ("george case was succeeded by bob lemon", [None, None, None, BEFORE, None, None, None]),
    ("bob lemon preceded george case", [None, None, BEFORE, None, None]),
    ("bob lemon succeeded george case", [None, None, AFTER, None, None]),
    ("bob lemon was preceded by george case", [None, None, None, AFTER, None, None, None]),
    ("bob lemon came after the war by far", [None, None, None, AFTER, None, None, None, None]),  # "after" is no verb
    ("bob lemon finished behind", [None, None, None, AFTER]),
])
def test_relation_side(sentence: str, sides: list[str | None]) -> None:
    t = tokens(sentence)
    assert [relation_side(t, i, EN) for i in range(len(t))] == sides


@pytest.mark.parametrize(("answer", "doubt", "doubt_with_table"), [
    ("bob lemon came before george case", None, None),
    ("george case came after bob lemon", None, None),
    ("george case was preceded by bob lemon", None, None),
    ("bob lemon came after george case", OTHER_SIDE, OTHER_SIDE),
    ("george case came before bob lemon", OTHER_SIDE, OTHER_SIDE),
    ("george case was succeeded by bob lemon", OTHER_SIDE, OTHER_SIDE),
    # the anchor named without a relation: uncertain, unless the table has no such entity
    ("bob lemon and george case", NOT_RELATED, None),
    ("bob lemon", None, None),
])
def test_relation_doubt(answer: str, doubt: tuple[str, str] | None, doubt_with_table: tuple[str, str] | None) -> None:
    gold = frozenset({"bob", "lemon"})
    asked = (("before", "george"),)
    assert relation_doubt(tokens(answer), gold, asked, EN) == doubt
    assert relation_doubt(tokens(answer), gold, asked, EN, anchors_known=frozenset({"x"})) == doubt_with_table


def test_relation_doubt_near_the_anchor() -> None:
    gold, asked = frozenset({"bob", "lemon"}), (("before", "george"),)
    prior = tokens("bob lemon managed prior to the remaining 3 contestants george")
    later = tokens("bob lemon managed after the remaining 3 contestants george")
    assert relation_doubt(prior, gold, asked, EN, near_anchor=True, mention_end=2) is None
    assert relation_doubt(later, gold, asked, EN, near_anchor=True, mention_end=2) == OTHER_SIDE
    assert relation_doubt(prior, gold, asked, EN, near_anchor=False, mention_end=2) == NOT_RELATED
    assert relation_doubt(prior, gold, asked, EN, near_anchor=True, mention_end=0) == NOT_RELATED


@pytest.mark.parametrize(("answer", "doubt"), [
    ("خلف زيد عمرو", None),  # verb first: Zaid succeeded Amr, the object follows the subject
    ("و خلف زيد عمرو", None),
    ("زيد خلف عمرو", None),
    ("خلف عمرو زيد", OTHER_SIDE),  # Amr succeeded Zaid
])
def test_relation_doubt_arabic_verb_first(answer: str, doubt: tuple[str, str] | None) -> None:
    assert relation_doubt(tokens(answer), frozenset({key("زيد")}), (("after", key("عمرو")),), AR) == doubt


@pytest.mark.parametrize(("answer", "gold", "lang", "span"), [
    ("Cataraqui Town Centre and St. Lawrence College", "Cataraqui Town Centre St. Lawrence College", "en", (0, 7)),
    ("x Paris plus Lyon", "Paris Lyon", "en", (1, 4)),
    ("Paris and Lyon", "Paris Lyon", "en", (0, 3)),
    ("Paris or Lyon", "Paris Lyon", "en", None),
    ("Paris Lyon", "Paris Lyon", "en", None),  # no conjunction: not this rule's case
    ("Paris and Lyon", "Paris", "en", None),  # a gold of one word has no parts
    ("Paris and Nice", "Paris Lyon", "en", None),
    ("فندق أ و فندق ب", "فندق أ فندق ب", "ar", (0, 5)),
    ("فندق أ وفندق ب", "فندق أ فندق ب", "ar", (0, 4)),  # the conjunction written onto the next word
    ("فندق أ وفندق ج", "فندق أ فندق ب", "ar", None),
])
def test_joined_parts(answer: str, gold: str, lang: str, span: tuple[int, int] | None) -> None:
    (item,) = spec_from_strings(gold, language=lang).items
    assert joined_parts(tokens(answer), item, get_locale(lang)) == span


def test_tokens_keep_the_text_between_words() -> None:
    t = tokens_of(fold("Spain, Italy, France won gold."))
    assert t.words == ("spain", "italy", "france", "won", "gold")
    assert (t.gap(0), t.gap(1), t.gap(3), t.gap(5)) == ("", ", ", " ", ".")
    assert (t.find("italy"), t.find("france won"), t.find("")) == ([1], [2], [])
    lead = tokens_of(fold("(Spain) France, Spain Italy"))
    assert (lead.gap(0), lead.gap(1)) == ("(", ") ")  # the text before the first word
    assert lead.find("spain italy") == [2]  # the whole phrase, not its first word alone


@pytest.mark.parametrize(("answer", "mention", "candidates", "lang", "listed"), [
    ("Spain, Italy, France won gold.", (1, 2), ["spain", "france"], "en", "spain"),
    ("Italy and Spain won", (0, 1), ["spain"], "en", "spain"),
    ("Spain and Italy", (2, 3), ["spain"], "en", "spain"),
    ("Italy or Spain", (0, 1), ["spain"], "en", "spain"),
    ("Italy & Spain", (0, 1), ["spain"], "en", "spain"),
    ("Italy; Spain", (0, 1), ["spain"], "en", "spain"),
    ("Italy, the Spain", (0, 1), ["spain"], "en", "spain"),
    ("Italy, Costa Rica", (0, 1), ["costa rica"], "en", "costa rica"),
    ("Italy from Europe and Spain", (0, 1), ["spain"], "en", "spain"),  # a short qualifier
    ("Italy in 1990, Spain", (0, 1), ["spain"], "en", "spain"),
    ("Italy from the south of Europe and Spain", (0, 1), ["spain"], "en", None),  # a long one: a sentence
    ("Italy won, beating Spain", (0, 1), ["spain"], "en", None),
    ("Italy. Spain", (0, 1), ["spain"], "en", None),
    ("Italy Spain", (0, 1), ["spain"], "en", None),
    ("Italy won gold", (0, 1), ["spain"], "en", None),
    ("ايطاليا واسبانيا", (0, 1), ["اسبانيا"], "ar", "اسبانيا"),
    ("ايطاليا و اسبانيا", (0, 1), ["اسبانيا"], "ar", "اسبانيا"),
    ("ايطاليا ثم اسبانيا", (0, 1), ["اسبانيا"], "ar", None),
    # written against survivors (docs/mutation.md, 1 December 2026)
    ("Ann Lee from New Zealand and Bob Ray", (0, 2), ["bob ray"], "en", "bob ray"),  # a qualifier of three words
    ("Ann Lee from New South Wales and Bob Ray", (0, 2), ["bob ray"], "en", None),  # of four: a sentence
    ("Ann Lee from Ohio Bob Ray", (0, 2), ["bob ray"], "en", None),  # a qualifier, then no comma or "and"
    ("Italy and the Netherlands", (0, 1), ["netherlands"], "en", "netherlands"),  # "and the"
    ("St Louis Cardinals won", (0, 3), ["louis"], "en", None),  # inside the gold's own mention
    ("ايطاليا أو اسبانيا", (0, 1), ["اسبانيا"], "ar", "اسبانيا"),  # Arabic "or"
    ("فاز احمد وعبد الله", (1, 2), ["عبد الله"], "ar", "عبد الله"),  # "و" on the first of two words
    ("فاز احمد وعبد الله محمد", (1, 2), ["عبد الله محمد"], "ar", "عبد الله محمد"),
    ("وعبد الله و احمد", (3, 4), ["عبد الله"], "ar", "عبد الله"),  # the candidate before the gold
    ("وعبد الله ثم احمد", (3, 4), ["عبد الله"], "ar", None),
    ("فاز احمد وسط الجمهور", (1, 2), ["خالد"], "ar", None),  # a candidate the answer does not name
    ("فاز احمد ثم وخالد", (1, 2), ["خالد"], "ar", None),  # "و" on a word not right after the gold
])
def test_listed_with(answer: str, mention: tuple[int, int], candidates: list[str], lang: str,
                     listed: str | None) -> None:
    t = tokens_of(fold(answer))
    assert listed_with(t, mention, candidates, frozenset(), get_locale(lang)) == listed
    # a name the question itself gives is not another candidate
    assert listed_with(t, mention, candidates, frozenset(c for cand in candidates for c in cand.split()),
                       get_locale(lang)) is None


@pytest.mark.parametrize(("text", "a_end", "b_start", "adjacent"), [
    ("October 2011 and July 2012", 12, 17, True),  # the month belongs to the second item
    ("2011, 2012", 4, 6, True),
    ("2011 and 12 July 2012", 4, 15, True),
    ("2011 to 2012", 4, 8, False),
    ("2011 2012", 4, 5, False),
    ("2011, 2012", 6, 4, False),
    ("2011 (a long aside that goes on and on for too long) 2012", 4, 55, False),
])
def test_adjacent_in_list(text: str, a_end: int, b_start: int, adjacent: bool) -> None:
    assert adjacent_in_list(fold(text), a_end, b_start, EN) is adjacent


@pytest.mark.parametrize(("answer", "mention", "lang", "doubt"), [
    ("Spain, Italy, France won gold.", (1, 2), "en", True),
    ("Spain, Italy and France won gold.", (1, 2), "en", True),
    ("The winners were Spain, Italy, France.", (4, 5), "en", True),
    ("Spain; Italy; France", (1, 2), "en", True),
    ("إسبانيا، إيطاليا، فرنسا", (1, 2), "ar", True),
    ("Italy won gold.", (0, 1), "en", False),
    ("Italy and Spain won gold", (0, 1), "en", False),  # two items, no comma
    ("Spain or Italy or France", (2, 3), "en", False),  # no comma
    ("Italy won, then Spain", (0, 1), "en", False),  # two items, the gold's in a sentence
    ("It was Italy, which won, and then Spain.", (2, 3), "en", False),
    ("1, 2, Italy", (2, 3), "en", False),  # numbers are no items of a list of names
])
def test_listed_doubt(answer: str, mention: tuple[int, int], lang: str, doubt: bool) -> None:
    found = listed_doubt(tokens_of(fold(answer)), mention, get_locale(lang))
    assert found == (("uncertain", "the answer states the gold as one item of a list") if doubt else None)


TWO = ("uncertain", "the answer names the gold and another item")
LONG = ("uncertain", "the answer states the gold as one item of a list")


@pytest.mark.parametrize(("answer", "mention", "lang", "known", "doubt"), [
    # The answer is the gold and one other name, joined by a comma or a semicolon: a false accept
    # before 1 December 2026 ("Italy, Spain" was correct for "Italy").
    ("Italy, Spain", (0, 1), "en", "", TWO),
    ("Spain, Italy.", (1, 2), "en", "", TWO),
    ("Spain; Italy", (1, 2), "en", "", TWO),
    ("The Italy, the Netherlands", (1, 2), "en", "", TWO),  # articles stay part of the items
    ("إيطاليا، إسبانيا", (0, 1), "ar", "", TWO),
    ("إسبانيا؛ إيطاليا", (1, 2), "ar", "", TWO),
    ("Rome, Italy", (0, 1), "en", "italy rome", None),  # the table's words: another column's value
    ("Rome, the Italy", (0, 1), "en", "italy rome the", None),
    ("Rome, the Italy", (0, 1), "en", "the", TWO),
    ("Rome, Italy", (0, 1), "en", "rome italy", None),
    ("Rome, Italy", (0, 1), "en", "rome", TWO),
    ("روما، إيطاليا", (0, 1), "ar", "روما ايطاليا", None),
    ("Italy, 12", (0, 1), "en", "", None),  # a number, not a name
    ("Italy, which won", (0, 1), "en", "", None),  # a clause, not a name
    ("Italy, Spain and Chile", (0, 1), "en", "", LONG),
    ("Italy and Spain", (0, 1), "en", "", None),  # no comma: the context rules see "and"
    ("In 2005, Italy", (2, 3), "en", "", None),  # a number in the other item: context
    ("In May 2005, Italy", (3, 4), "en", "", None),
    ("In May, Italy", (2, 3), "en", "", TWO),
    ("Italy, a b c d e f", (0, 1), "en", "", None),  # six words: a sentence, not an item
    ("I think it is Italy, Spain", (4, 5), "en", "", TWO),  # a sentence before the gold, the other name last
    ("We think that, Italy, Spain", (3, 4), "en", "", TWO),
    ("Italy, Rome", (1, 2), "en", "rome", TWO),  # the other name first: it alone is read
    ("Italy, Rome", (1, 2), "en", "italy", None),
    ("Italy, Spain, Rome", (0, 1), "en", "", LONG),
    ("It was Italy, which won", (2, 3), "en", "", None),
    ("Des Wall, not Mikac", (0, 2), "en", "", None),  # a negation: the context rules read it
    ("Spain, Italy won it", (0, 1), "en", "", None),  # a sentence word in the other item
    ("Spain, Italy won it, in the end", (0, 1), "en", "", None),  # the pair is not at the end
    ("Spain, the Italy", (2, 3), "en", "", TWO),  # an article before the gold, the other name first
    ("Spain, Italy and", (1, 2), "en", "", TWO),  # a trailing "and" starts no item
    # Three or more: with the table, items made of its words are context; one unknown item is a rival.
    ("Rome, Italy, Europe", (0, 1), "en", "", LONG),
    ("Spain, Italy, the United States of America", (1, 2), "en", "", LONG),  # an item of five words
    ("Spain, Italy, the United States of North America", (1, 2), "en", "", None),  # six: a sentence
    ("They said Italy, Spain, France", (2, 3), "en", "", LONG),  # a sentence before the gold's item
    ("France, Spain, Italy", (2, 3), "en", "", LONG),
    ("France, Spain and Italy", (3, 4), "en", "", LONG),
    ("We were told, France, Italy", (4, 5), "en", "", LONG),  # "told" reads as a third item
    ("Rome, Italy, Europe", (0, 1), "en", "italy rome", None),  # one rival: context
    ("Italy, Brazil, Chile, Rome", (3, 4), "en", "italy rome", LONG),  # each item read on its own
    ("Rome, Brazil, Chile, Italy", (0, 1), "en", "italy rome", LONG),
    ("Italy, Brazil, Chile", (0, 1), "en", "italy spain france", LONG),  # two rivals
    ("Italy, Brazil and Chile", (0, 1), "en", "italy spain france", LONG),
    ("Brazil, Chile, Italy", (2, 3), "en", "italy spain france", LONG),
    ("Brazil, Chile, Italy", (2, 3), "en", "italy spain chile", None),
    ("Italy, ahead of Spain, won gold", (0, 1), "en", "italy spain", None),
    ("Italy, ahead of Spain, won gold", (0, 1), "en", "", LONG),
    ("Italy, the Netherlands, Brazil", (0, 1), "en", "the italy", LONG),  # articles are no table words
    ("إيطاليا، البرازيل، تشيلي", (0, 1), "ar", "ايطاليا", LONG),
    ("إيطاليا، روما، أوروبا", (0, 1), "ar", "ايطاليا روما", None),
])
def test_listed_doubt_two_items_and_known_words(answer: str, mention: tuple[int, int], lang: str, known: str,
                                                doubt: tuple[str, str] | None) -> None:
    found = listed_doubt(tokens_of(fold(answer)), mention, get_locale(lang), frozenset(fold(known).split()))
    assert found == doubt


def test_listed_doubt_gold_parts() -> None:
    # "Ali, Omar" for the gold "Ali / Omar": the other item is the gold's own second part
    t = tokens_of(fold("The pair was Ali, Omar"))
    assert listed_doubt(t, (3, 4), EN, gold=frozenset({"ali", "omar"})) is None
    assert listed_doubt(t, (3, 4), EN) == TWO


def test_adjacent_in_list_gap_of_forty() -> None:
    gap = ", " * 20  # forty characters of separators
    assert len(gap) == 40
    assert adjacent_in_list("2011" + gap + "2012", 4, 44, EN)
    assert not adjacent_in_list("2011" + gap + " 2012", 4, 45, EN)
