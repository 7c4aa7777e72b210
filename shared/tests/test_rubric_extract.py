"""Final-answer extraction: markers, boxed, JSON, last line, thinking removed, in English and Arabic."""

from __future__ import annotations

import pytest
from livetab.reasoning import strip_thinking
from livetab.rubric import judge_text
from livetab.rubric.extract import extract_answer
from livetab.rubric.locale import get_locale
from livetab.rubric.text import fold


@pytest.mark.parametrize(("response", "lang", "span", "method"), [
    ("Let me add them up.\nThe answer is 42.", "en", "42.", "marker"),
    ("Reasoning...\nAnswer: Paris", "en", "paris", "marker"),
    ("Final answer: 7", "en", "7", "marker"),
    ("so the sum is \\boxed{12}", "en", "12", "boxed"),
    ("\\boxed{\\text{Option 3}}", "en", "option 3", "boxed"),
    ('Here you go: {"answer": "Chile"}', "en", "chile", "json"),
    ('{"answer": ["a", "b"]}', "en", "a, b", "json"),
    ("row 1: 10\nrow 2: 14\n24", "en", "24", "last_line"),
    ("24 (Goals) - 100 (Caps) = 76", "en", "76", "equation"),
    ("بعد الجمع\nالإجابة هي ٤٢", "ar", "42", "marker"),
    ("الجواب: الرياض", "ar", "الرياض", "marker"),
    ("", "en", "", "empty"),
])
def test_extraction(response: str, lang: str, span: str, method: str) -> None:
    ex = extract_answer(fold(response), get_locale(lang))
    assert (ex.text, ex.method) == (span, method)


def test_thinking_removed() -> None:
    assert strip_thinking("<think>maybe 30</think>The total is 40.").strip() == "The total is 40."
    assert strip_thinking("maybe 30</think>The total is 40.") == "The total is 40."
    assert strip_thinking("<think>never finished 40") == ""
    assert judge_text("<think>it could be 30</think>The total is forty.", "40").verdict == "correct"
    assert judge_text("<think>it is 40</think>", "40").verdict == "incorrect"
    assert judge_text("<think>30 or 40? 40.</think>\nAnswer: 30", "40").verdict == "incorrect"


def test_empty_and_blank_responses_are_incorrect() -> None:
    assert judge_text("", "40").verdict == "incorrect"
    assert judge_text("   \n ", "Paris").verdict == "incorrect"
    assert judge_text("...", "Paris").verdict == "incorrect"


def test_marker_answer_decides_over_the_explanation() -> None:
    assert judge_text("Rows 3 and 5 give 12 and 30. The answer is 42.", "42").verdict == "correct"
    assert judge_text("Rows 3 and 5 give 12 and 42. The answer is 30.", "42").verdict == "incorrect"
