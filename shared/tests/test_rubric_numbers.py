"""Numbers: separators per language, Arabic-Indic and Persian digits, words, units, percents, tolerance."""

from __future__ import annotations

import pytest
from livetab.rubric import judge_text
from livetab.rubric.locale import get_locale
from livetab.rubric.numbers import find_numbers, number_from_float, numbers_equal
from livetab.rubric.text import fold


def values(text: str, lang: str = "en") -> list[float]:
    return [n.value for n in find_numbers(fold(text), get_locale(lang))]


@pytest.mark.parametrize(("text", "lang", "expected"), [
    ("1,234.5", "en", [1234.5]),
    ("1.234,5", "de", [1234.5]),
    ("1 234,5", "fr", [1234.5]),
    ("٣٨٬٠٠٠٫٥", "ar", [38000.5]),
    ("۱۲۳", "ar", [123.0]),
    ("forty", "en", [40.0]),
    ("twenty-one", "en", [21.0]),
    ("two hundred", "en", [200.0]),
    ("one hundred and five", "en", [105.0]),
    ("two thousand five hundred", "en", [2500.0]),
    ("3.78 million", "en", [3780000.0]),
    ("أربعون", "ar", [40.0]),
    ("ثلاثة", "ar", [3.0]),
    ("خمسة وعشرون", "ar", [25.0]),
    ("ثلاثة عشر", "ar", [13.0]),
    ("مائة وخمسة وعشرون", "ar", [125.0]),
    ("ثلاثة آلاف", "ar", [3000.0]),
    ("38 ألف", "ar", [38000.0]),
    ("65-75", "en", [65.0, 75.0]),
    ("-3 degrees", "en", [-3.0]),
    ("19th", "en", [19.0]),
    ("two three", "en", [2.0, 3.0]),
])
def test_number_reading(text: str, lang: str, expected: list[float]) -> None:
    assert values(text, lang) == expected


def test_percent_marks() -> None:
    loc = get_locale("en")
    assert [n.percent for n in find_numbers("25% and 30 percent", loc)] == [True, True]
    assert find_numbers(fold("25 بالمئة"), get_locale("ar"))[0].percent


@pytest.mark.parametrize(("answer", "gold", "verdict"), [
    ("around 40", "40", "correct"),
    ("40", "40", "correct"),
    ("forty years", "40", "correct"),
    ("about forty", "40", "correct"),
    ("41", "40", "incorrect"),
    ("25%", "0.25", "correct"),
    ("0.25", "25%", "correct"),
    ("26%", "0.25", "incorrect"),
    ("$1,500", "1500", "correct"),
    ("1500 USD", "1500", "correct"),
    ("2060", "2061", "incorrect"),
    ("138.0", "138.2", "incorrect"),
    ("3.78 million", "3783069", "correct"),
    ("4 million", "3783069", "incorrect"),
    ("3,783,069", "3 783 069", "correct"),
])
def test_numeric_answers_en(answer: str, gold: str, verdict: str) -> None:
    assert judge_text(answer, gold).verdict == verdict


@pytest.mark.parametrize(("answer", "gold", "verdict"), [
    ("38 ألف", "38000", "correct"),
    ("٣٨٠٠٠", "38000", "correct"),
    ("حوالي أربعين عاما", "40", "correct"),
    ("أربعون", "40", "correct"),
    ("خمسة وعشرون", "25", "correct"),
    ("٢٥٪", "0.25", "correct"),
    ("ثلاثة", "4", "incorrect"),
    ("١٫٨٨٣", "1.889", "correct"),
])
def test_numeric_answers_ar(answer: str, gold: str, verdict: str) -> None:
    assert judge_text(answer, gold, language="ar").verdict == verdict


def test_tolerance_band_reading_of_aratable() -> None:
    """AraTable accepts 1.883 for 1.889 (difference 0.006) while saying 'within ±0.005': the band of
    ±0.005 around each number overlaps. A literal |a-b| <= 0.005 is tolerance=0.0025."""
    gold = number_from_float(1.889)
    answer = find_numbers("1.883", get_locale("en"))[0]
    assert numbers_equal(gold, answer, tolerance=0.005)
    assert not numbers_equal(gold, answer, tolerance=0.0025)
    assert not numbers_equal(gold, find_numbers("1.878", get_locale("en"))[0], tolerance=0.005)
    assert judge_text("1.883", "1.889").verdict == "correct"
    assert judge_text("1.883", "1.889", tolerance=0.0025).verdict == "incorrect"


def test_relative_tolerance_only_for_visible_rounding() -> None:
    assert judge_text("about 3.8 million", "3783069").verdict == "correct"
    assert judge_text("about 3.8 million", "3783069", relative_tolerance=0.0).verdict == "incorrect"
    assert judge_text("3800000", "3783069").verdict == "incorrect"  # written exactly, so it must be exact


def test_sentence_numbers() -> None:
    q = "what is the total number of skoda cars sold in the year 2005?"
    assert judge_text("In the year 2005, 492,111 Skoda cars were sold.", "492,111", question=q).verdict == "correct"
    assert judge_text("451,675 Skoda cars were sold in the year 2005.", "492,111", question=q).verdict == "incorrect"
    assert judge_text("Between 2001 and 2009 they won 4 and 7 titles.", "4").verdict == "uncertain"
    assert judge_text("There are no German flags.", "0").verdict == "correct"
    assert judge_text("There are no German flags.", "1").verdict == "incorrect"
