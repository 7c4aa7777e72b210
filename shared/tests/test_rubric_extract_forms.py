"""Final-answer extraction in the forms models write it (equations, golf scores, nested \\boxed, JSON of
every shape, markers in several languages, bullet lists), and the text primitives the judge compares with."""

from __future__ import annotations

import pytest
from livetab.rubric import judge_text
from livetab.rubric.arabic import has_arabic, has_latin
from livetab.rubric.extract import extract_answer
from livetab.rubric.locale import get_locale
from livetab.rubric.text import (
    allowed_edits,
    contains_phrase,
    find_fuzzy,
    fold,
    has_digit,
    strip_leading_article,
    within_edits,
)


def extracted(response: str, lang: str = "en") -> tuple[str, str]:
    ex = extract_answer(fold(response), get_locale(lang))
    return ex.text, ex.method


@pytest.mark.parametrize(("response", "span", "method"), [
    ("The total: 12 + 30 = 42", "42", "equation"),
    ("6 × 7 = 42", "42", "equation"),
    ("84 ÷ 2 = 42", "42", "equation"),
    ("2.5 × 4 = 10", "10", "equation"),
    ("10 - 2 × 3 = 4", "4", "equation"),  # products first, then the signed sum
    ("Thus 100 - 24 = 76 goals.", "76 goals", "equation"),
    # "=" joining the parts of one value, not stating a result: the whole line stays
    ("Score 79-75-72-80=306", "score 79-75-72-80=306", "whole"),
    ("10 - 2 × 3 = 24", "10 - 2 × 3 = 24", "whole"),
    ("10/0 = 5", "10/0 = 5", "whole"),
    ("2.5 × 4 = 10.5", "2.5 × 4 = 10.5", "whole"),  # off by a half: no result either
    ("-19 (65-67-67-70=269)", "-19 (65-67-67-70=269)", "whole"),
    ("\\boxed{\\frac{1}{2}}", "\\frac{1}{2}", "boxed"),
    ("\\boxed{12", "12", "boxed"),  # never closed: the rest of the text
    ("first \\boxed{3} then \\boxed{4}", "4", "boxed"),
    ("\\boxed {\\textbf{Chile}}", "chile", "boxed"),
    ("{x} so \\boxed 12", "{x} so \\boxed 12", "whole"),  # no brace after \\boxed: nothing boxed
    ('{"final_answer": "Chile"}', "chile", "json"),
    ('{"answer": true}', "true", "json"),
    ('{"answer": false}', "false", "json"),
    ('{"answer": 42}', "42", "json"),
    ('{"reason": "x", "answer": "y"}', "y", "json"),
    ('{"ANSWER": "Lima"}', "lima", "json"),
    ('{"a": 1} then {"answer": "Quito"}', "quito", "json"),
    ("{'answer': 'x'}", "{'answer': 'x'}", "whole"),  # not JSON
    ("The answer is Paris", "paris", "marker"),
    ("Answer:\nParis", "paris", "marker"),
    ("Answer: Isabella", "isabella", "marker"),  # "is" only as a word of its own
    ("The answer is: **Paris**", "paris", "marker"),
    ("Answer： Lima", "lima", "marker"),  # full-width colon
    ("Let me answer carefully.\nParis", "paris", "last_line"),  # the word alone is no marker
    ("Let me answer this.\nAnswer: Paris", "paris", "marker"),  # ... and does not hide a later one
    ("Therefore, the correct answer is Paris.", "paris.", "marker"),
    ("Answer: my_table", "my_table", "marker"),  # no markdown: underscores stay
    ("Answer Paris", "answer paris", "whole"),
    ("The answer is", "the answer is", "whole"),
    ("Here are the teams:\n- Spain\n- Italy", "- spain\n- italy", "list_block"),
    ("Teams:\n1. Spain\n2) Italy", "1. spain\n2) italy", "list_block"),
    ("Teams:\n* Spain\n* Italy", "-  spain\n-  italy", "list_block"),
    ("Teams:\n- Spain", "- spain", "last_line"),  # one bullet is just the last line
    ("Teams:\n  * Spain\n  * Italy", "-    spain\n-    italy", "list_block"),  # indented markdown bullets
    ("Total =", "total =", "whole"),  # nothing after the "="
    ("12 + 30 = 42 (goals)", "42 (goals)", "equation"),  # a closed bracket in the tail
    ("x\n\n\ny", "y", "last_line"),
    ("**Paris**", "paris", "whole"),
    ("# Paris", "paris", "whole"),
])
def test_extraction_forms(response: str, span: str, method: str) -> None:
    assert extracted(response) == (span, method)


@pytest.mark.parametrize(("response", "lang", "span"), [
    ("Ответ: Москва", "ru", "москва"),
    ("Antwort: Berlin", "de", "berlin"),
    ("La respuesta es ISBN 978", "es", "isbn 978"),
    ('{"الإجابة": "الرياض"}', "ar", "الرياض"),
])
def test_extraction_in_other_languages(response: str, lang: str, span: str) -> None:
    assert extracted(response, lang)[0] == span
    assert extracted("Я могу ответить\nМосква", "ru") == ("москва", "last_line")


def test_arabic_json_answer_decides() -> None:
    # the answer field says Jeddah; the explanation names the gold (Riyadh): the answer field decides
    response = '{"التفسير": "الرياض هي العاصمة", "الإجابة": "جدة"}'
    assert judge_text(response, "الرياض", language="ar").verdict == "incorrect"
    assert judge_text(response, "جدة", language="ar").verdict == "correct"


@pytest.mark.parametrize(("text", "folded"), [
    ("Hello `World`", "hello 'world'"),
    ("HELLO", "hello"),
    ("\u201cQuoted\u201d \u2013 \u00dcn\u00efcode\u00a0x", '"quoted" - unicode x'),
    ("\u200fالقاهرة", "القاهره"),
    ("Ελλάδα", "ελλαδα"),
    ("Jürgen\u2019s \u00abcar\u00bb", "jurgen's \"car\""),
])
def test_fold(text: str, folded: str) -> None:
    assert fold(text) == folded


@pytest.mark.parametrize(("k", "stripped"), [
    ("the st louis cardinals", "st louis cardinals"),
    ("a team", "team"),
    ("an apple", "apple"),
    ("theatre royal", "theatre royal"),
    ("ال رياض", "ال رياض"),  # Arabic ال is a prefix, kept
])
def test_strip_leading_article(k: str, stripped: str) -> None:
    assert strip_leading_article(k) == stripped


@pytest.mark.parametrize(("k", "edits"), [
    ("abcd", 0), ("abcde", 1), ("abcdefghij", 1), ("abcdefghijk", 2), ("a" * 20, 2), ("a" * 21, 3),
    ("route 66", 0),
])
def test_allowed_edits_boundaries(k: str, edits: int) -> None:
    assert allowed_edits(k) == edits


@pytest.mark.parametrize(("a", "b", "limit", "within"), [
    ("zakarpatia", "zakarpattia", 1, True),
    ("zakarpatia", "zakarpattia", 0, False),
    ("zakarpattia", "zakarpattia", 0, True),
    ("ukrain", "ukraine", 1, True),
    ("ukra", "ukraine", 2, False),  # lengths further apart than the limit
    ("kiev oblats", "kiev oblast", 2, True),  # a swap of two letters is one edit in its word
    ("kiev oblats", "kiev oblast", 1, False),
    ("hotel a", "hotel b", 1, False),  # a short word replaced outright
    ("hotel cat", "hotel cot", 1, False),  # three letters are short
    ("grand hotel roma", "grand hotel rome", 2, True),  # four are not: one slip
    ("فندق ا", "فندق ب", 1, False),
    ("route 66", "route 67", 1, False),
    ("المناطق الحضرية القارية", "المناطق الريفية القارية", 3, False),  # urban is not rural
    ("zakarpatia oblast", "zakarpattia oblast", 2, True),
])
def test_within_edits(a: str, b: str, limit: int, within: bool) -> None:
    assert within_edits(a, b, limit) is within


def test_script_tests() -> None:
    assert has_latin("Riyadh") and has_latin("Ümit") and not has_latin("الرياض")
    assert has_arabic("الرياض") and not has_arabic("Riyadh")


def test_contains_phrase_is_token_bounded() -> None:
    assert contains_phrase("the fastest is ukraine", "ukraine")
    assert contains_phrase("ukraine is the fastest", "ukraine")
    assert not contains_phrase("the fastest is ukrainex", "ukraine")
    assert not contains_phrase("ukraine", "")
    assert has_digit("route 66") and not has_digit("route")


def test_find_fuzzy_windows() -> None:
    tokens = "the winner was zakarpatia oblast in the end".split()
    assert find_fuzzy(tokens, "zakarpattia oblast", 2) == "zakarpatia oblast"
    assert find_fuzzy(tokens, "zakarpattia oblast", 0) is None
    assert find_fuzzy([], "zakarpattia oblast", 2) is None
    assert find_fuzzy("the winner was zakarpattia".split(), "zakarpattia", 0) is None  # no slips: no fuzzy match
    assert find_fuzzy(["x"], "ab", 3) is None  # never an empty window
    # a word split in two, or two words merged, is still found
    assert find_fuzzy("it was zakar pattia".split(), "zakarpattia", 1) == "zakar pattia"
    assert find_fuzzy("it was newyork city".split(), "new york city", 2) == "newyork city"
    assert find_fuzzy("the winner was zakarpattia".split(), "zakarpattia", 1) == "zakarpattia"
    assert find_fuzzy("zakarpatia".split(), "zakarpattia", 1) == "zakarpatia"
    # windows with digits are never fuzzy matches
    assert find_fuzzy(["route67"], "route66", 2) is None
    assert find_fuzzy(["the", "route67"], "route66", 2) is None
    assert find_fuzzy("the winner was ukraina".split(), "zakarpattia", 2) is None
