"""Answer forms read the same in every language pack: dates, True/False and yes/no, refusals on
imperfect tables, and bare lists (split into items, matched item by item)."""

from __future__ import annotations

import pytest
from livetab.rubric.booleans import content_polarity, leading_polarity_end, polarity
from livetab.rubric.dates import DateMention, date_matches, find_dates, parse_iso_like
from livetab.rubric.gold import spec_from_strings
from livetab.rubric.imperfect import refusal_kind
from livetab.rubric.lists import match_item, split_items
from livetab.rubric.locale import get_locale
from livetab.rubric.text import fold, key


def dates(text: str, lang: str = "en") -> list[tuple[tuple[tuple[int | None, ...], ...], int, int]]:
    return [(d.readings, d.start, d.end) for d in find_dates(fold(text), get_locale(lang))]


@pytest.mark.parametrize(("text", "lang", "found"), [
    ("2004-05-03", "en", [(((2004, 5, 3),), 0, 10)]),
    ("xxxx-09-29", "en", [(((None, 9, 29),), 0, 10)]),  # WTQ's gold without a year
    ("3 May 2004", "en", [(((2004, 5, 3),), 0, 10)]),
    ("3rd of May, 2004", "en", [(((2004, 5, 3),), 0, 16)]),
    ("May 3, 2004", "en", [(((2004, 5, 3),), 0, 11)]),
    ("May 3rd", "en", [(((None, 5, 3),), 0, 7)]),
    ("May 2004", "en", [(((2004, 5, None),), 0, 8)]),
    ("03/05/2004", "en", [(((2004, 5, 3), (2004, 3, 5)), 0, 10)]),  # 3 May or March 5
    ("13/05/2004", "en", [(((2004, 5, 13),), 0, 10)]),  # only one reading is a date
    ("12/13/2004", "en", [(((2004, 12, 13),), 0, 10)]),
    ("05/05/2004", "en", [(((2004, 5, 5),), 0, 10)]),  # both readings the same: one
    ("1/1/2004", "en", [(((2004, 1, 1),), 0, 8)]),
    ("3.5.2004", "de", [(((2004, 5, 3), (2004, 3, 5)), 0, 8)]),
    ("17. März 2025", "de", [(((2025, 3, 17),), 0, 13)]),
    ("17 de marzo de 2025", "es", [(((2025, 3, 17),), 0, 19)]),
    ("1er mai 2004", "fr", [(((2004, 5, 1),), 0, 12)]),
    ("3 mei 2004", "nl", [(((2004, 5, 3),), 0, 10)]),
    ("3 мая 2004", "ru", [(((2004, 5, 3),), 0, 10)]),
    ("3 maj 2004", "sv", [(((2004, 5, 3),), 0, 10)]),
    ("3 مايو 2004", "ar", [(((2004, 5, 3),), 0, 11)]),
    ("2004-13-40", "en", []),  # no month 13, no day 40
    ("0000-01-01", "en", []),  # no year 0
    ("32 May 2004", "en", [(((2004, 5, None),), 3, 11)]),  # no day 32: the month and year stand
    ("The game was on 3 May 2004 and 2005-06-07", "en",
     [(((2004, 5, 3),), 16, 26), (((2005, 6, 7),), 31, 41)]),
    ("2005-06-07 replaced 3 May 2004", "en", [(((2005, 6, 7),), 0, 10), (((2004, 5, 3),), 20, 30)]),
    ("no dates here", "en", []),
    ("31 May 2004", "en", [(((2004, 5, 31),), 0, 11)]),  # the last day of a month
    ("31/12/2004", "en", [(((2004, 12, 31),), 0, 10)]),
    ("2004-05-xx", "en", [(((2004, 5, None),), 0, 10)]),  # WikiTableQuestions' month gold: no day
    ("xxxx-xx-13", "en", [(((None, None, 13),), 0, 10)]),
    # "May 2004" inside the first date is part of it; "June 2005" after it is a date of its own
    ("from 3 May 2004 to June 2005", "en", [(((2004, 5, 3),), 5, 15), (((2005, 6, None),), 19, 28)]),
    ("route 66 in 1926", "en", []),
])
def test_find_dates(text: str, lang: str, found: list[object]) -> None:
    assert dates(text, lang) == found


@pytest.mark.parametrize(("gold", "reading"), [
    ("2006-03-04", ((2006, 3, 4),)),
    ("March 4, 2006", ((2006, 3, 4),)),
    ("xxxx-09-29", ((None, 9, 29),)),
    ("2006-03-04.", ((2006, 3, 4),)),
    (" 2006-03-04 ", ((2006, 3, 4),)),
    ("03/04/2006", None),  # ambiguous: not a date gold
    ("on 2006-03-04", None),  # more than the date
    ("2006-03-04 and 2007", None),
    ("2006", None),
])
def test_parse_iso_like(gold: str, reading: object) -> None:
    m = parse_iso_like(fold(gold), get_locale("en"))
    assert (m.readings if m is not None else None) == reading


def test_date_matches() -> None:
    both = DateMention(((2004, 5, 3), (2004, 3, 5)), 0, 10)
    assert date_matches((2004, 5, 3), both) is None  # one reading agrees, the other does not
    assert date_matches((2004, 5, None), DateMention(((2004, 5, 3),), 0, 0)) is True
    assert date_matches((2004, 5, 3), DateMention(((2004, 5, 4),), 0, 0)) is False
    assert date_matches((None, 9, 29), DateMention(((2010, 9, 29),), 0, 0)) is True
    assert date_matches((None, 9, 29), DateMention(((2010, 9, 28),), 0, 0)) is False


@pytest.mark.parametrize(("text", "lang", "value", "lead_end"), [
    ("Yes", "en", True, 3),
    ("No", "en", False, 2),
    ("True", "en", True, 4),
    ("False", "en", False, 5),
    ("Not true", "en", False, 8),  # "not true" is longer than "no": it wins
    ('"Yes"', "en", True, 4),
    ("(No)", "en", False, 3),
    ("Yes, it is true.", "en", True, 3),
    ("Yes, but that is false.", "en", None, 3),
    ("No, that is not true.", "en", False, 2),
    ("No, it is true.", "en", None, 2),
    ("True or false: hard to say", "en", None, 4),
    ("The statement is true.", "en", True, 21),
    ("The statement is not true.", "en", False, 0),
    ("It is true and false.", "en", None, 10),
    ("There is no record", "en", None, 0),  # "no" inside a sentence is no answer
    ("Nothing", "en", None, 0),
    ("نعم", "ar", True, 3),
    ("لا، غير صحيح", "ar", False, 2),
    ("العبارة صحيحة", "ar", True, 13),
    ("غير صحيح", "ar", False, 8),
    ("Ja, das stimmt.", "de", True, 2),
    ("Falsch", "de", False, 6),
    ("Sí", "es", True, 2),
    ("Falso", "es", False, 5),
    ("Vrai", "fr", True, 4),
    ("Faux", "fr", False, 4),
    ("Waar", "nl", True, 4),
    ("Onwaar", "nl", False, 6),
    ("Да", "ru", True, 2),
    ("Неверно", "ru", False, 7),
    ("Sant", "sv", True, 4),
    ("Falskt", "sv", False, 6),
])
def test_polarity(text: str, lang: str, value: bool | None, lead_end: int) -> None:
    loc = get_locale(lang)
    assert polarity(fold(text), loc) is value
    assert leading_polarity_end(fold(text), loc) == lead_end


@pytest.mark.parametrize(("question", "content", "value"), [
    ("did the team score at least 11 goals?", "they scored fewer than 11", False),
    ("did the team score at least 11 goals?", "they scored more than 11", True),
    ("did the team score at least 11 goals?", "they did not score 11", False),
    ("did the team score at least 11 goals?", "there are exactly 10 rounds", None),
    ("did the team score at least 11 goals?", "", None),
    ("did the team not win?", "they did not win", None),  # both negated: no signal either way
    ("did the team not win?", "they won", False),
    ("was it less than 5?", "it was more than 5", False),
    ("was it less than 5?", "it was less than 5", True),
    ("was it less than 5?", "it was more or less 5", True),
    ("was it under 5?", "it was not less than 5", False),
    ("was it under 5?", "it was not more than 5", True),
])
def test_content_polarity(question: str, content: str, value: bool | None) -> None:
    q = frozenset(key(question).split())
    assert content_polarity(q, content.split(), get_locale("en")) is value


@pytest.mark.parametrize(("text", "lang", "kind"), [
    ("The table does not provide enough information", "en", "insufficient"),
    ("The table is contradictory", "en", "contradictory"),
    ("insufficient information and contradictory", "en", "contradictory"),  # contradiction wins
    ("Paris", "en", None),
    ("لا توجد معلومات كافية", "ar", "insufficient"),
    ("البيانات متناقضة", "ar", "contradictory"),
    ("لا جواب بسبب القيم المتناقضة", "ar", "contradictory"),  # the article written onto the word
    ("السعر هو القيمة المفقودة", "ar", "insufficient"),
    ("جدة", "ar", None),
    ("Nicht genügend Informationen", "de", "insufficient"),
    ("Información insuficiente", "es", "insufficient"),
    ("Informations insuffisantes", "fr", "insufficient"),
    ("Onvoldoende informatie", "nl", "insufficient"),
    ("Недостаточно информации", "ru", "insufficient"),
    ("Otillräcklig information", "sv", "insufficient"),
])
def test_refusal_kind(text: str, lang: str, kind: str | None) -> None:
    assert refusal_kind(fold(text), get_locale(lang)) == kind


@pytest.mark.parametrize(("text", "lang", "keep", "items"), [
    ("Chile, Ecuador and Peru", "en", (), ["chile", "ecuador", "peru"]),
    ("Chile; Ecuador | Peru / Bolivia", "en", (), ["chile", "ecuador", "peru", "bolivia"]),
    ("Chile & Peru", "en", (), ["chile", "peru"]),
    ("Chile or Peru", "en", (), ["chile", "peru"]),
    ("Chile, and Peru", "en", (), ["chile", "peru"]),
    ("- Chile\n- Peru", "en", (), ["chile", "peru"]),
    ("1. Chile\n2) Peru", "en", (), ["chile", "peru"]),
    ("1,500 and 2,000", "en", (), ["1 500", "2 000"]),  # a thousands comma is no separator
    ("فندق أ و فندق ب", "ar", (), ["فندق ا", "فندق ب"]),
    ("فندق أ وفندق ب", "ar", (), ["فندق ا", "فندق ب"]),
    ("Chile und Peru", "de", (), ["chile", "peru"]),
    ("Chile y Perú", "es", (), ["chile", "peru"]),
    ("Chile et Pérou", "fr", (), ["chile", "perou"]),
    ("Chili en Peru", "nl", (), ["chili", "peru"]),
    ("Чили и Перу", "ru", (), ["чили", "перу"]),
    ("Chile och Peru", "sv", (), ["chile", "peru"]),
    # a gold item holding a separator stays whole where the answer writes it out
    ("Lewis and Clark River Bridge, Astoria Bridge", "en", ("lewis and clark river bridge",),
     ["lewis and clark river bridge", "astoria bridge"]),
    ("January 9, 1987 and March 3, 1990", "en", ("january 9, 1987", "march 3, 1990"),
     ["january 9 1987", "march 3 1990"]),
    # a gold item inside a longer one: the longer is kept first, whatever their alphabetical order
    ("Rock and Roll, Part 2; Rock and Roll", "en", ("rock and roll", "rock and roll, part 2"),
     ["rock and roll part 2", "rock and roll"]),
    ("Heaven and Hell / Black Sabbath, Heaven and Hell", "en", ("heaven and hell", "black sabbath, heaven and hell"),
     ["heaven and hell", "black sabbath heaven and hell"]),
    ("Tom and Jerry and Spike", "en", ("tom and jerry", "jerry and spike xx"), ["tom and jerry", "spike"]),
])
def test_split_items(text: str, lang: str, keep: tuple[str, ...], items: list[str]) -> None:
    assert split_items(fold(text), get_locale(lang), keep) == items


def test_match_item() -> None:
    (ukraine,) = spec_from_strings("Ukraine").items
    assert match_item("ukraine", ukraine)
    assert match_item("ukrain", ukraine)  # one slip in seven letters
    assert not match_item("uk", ukraine)
    (hotel,) = spec_from_strings("فندق أ", language="ar").items
    assert match_item("وفندق ا", hotel)  # the Arabic "and" attached to the item
    assert not match_item("فندق ب", hotel)
    (oman,) = spec_from_strings("عمان", language="ar").items  # too short for a slip: only the "و" is dropped
    assert match_item("وعمان", oman)
    assert not match_item("وقطر", oman)
    assert not match_item("ومان", oman)
    (ohio,) = spec_from_strings("Ohio").items
    assert not match_item("iowa", ohio)  # too short for a slip
    (number,) = spec_from_strings("1500").items
    assert match_item("1500", number, lambda k: False)
    assert match_item("1 500", number, lambda k: k == "1 500")
    assert not match_item("1 600", number, lambda k: False)
    assert not match_item("1 500", number)  # a number is never fuzzy-matched
