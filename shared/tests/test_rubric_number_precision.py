"""Numbers, the finer points: the precision a number is written with, approximation words in every
language pack, number words in sequence and in compounds, and the exact edges of the tolerance."""

from __future__ import annotations

import math

import pytest
from livetab.rubric import judge_text
from livetab.rubric.locale import get_locale
from livetab.rubric.numbers import NumberMention, find_numbers, number_from_float, numbers_equal, significant_digits
from livetab.rubric.text import fold


def read(text: str, lang: str = "en") -> list[NumberMention]:
    return list(find_numbers(fold(text), get_locale(lang)))


def values(text: str, lang: str = "en") -> list[float]:
    return [n.value for n in read(text, lang)]


@pytest.mark.parametrize(("digits", "expected"), [
    ("1.889", (4, 0.001)),
    ("0.25", (2, 0.01)),  # leading zeros are not significant
    ("0.050", (2, 0.001)),  # trailing zeros after the point are
    ("100.50", (5, 0.01)),
    ("0.5", (1, 0.1)),
    ("0.0", (1, 0.1)),
    ("-3.5", (2, 0.1)),
    ("+40", (1, 10.0)),
    ("3783069", (7, 1.0)),
    ("38000", (2, 1000.0)),  # trailing zeros of a whole number are not
    ("0", (1, 1.0)),
    ("000", (1, 1.0)),
])
def test_significant_digits(digits: str, expected: tuple[int, float]) -> None:
    sig, place = significant_digits(digits)
    assert (sig, place) == (expected[0], pytest.approx(expected[1]))


@pytest.mark.parametrize(("value", "sig", "place"), [
    (1.889, 4, 0.001),
    (40.0, 1, 10.0),  # a float gold "40.0" is the whole number 40
    (3783069.0, 7, 1.0),
    (-3.5, 2, 0.1),
    (1e-07, 1, 1e-07),  # repr in exponent notation: read from the fixed-point digits
    (2.5e-05, 2, 1e-06),
])
def test_gold_precision_from_float(value: float, sig: int, place: float) -> None:
    assert number_from_float(value) == NumberMention(value, 0, 0, False, sig, pytest.approx(place))
    assert number_from_float(value, percent=True).percent is True


def test_approximation_marks_the_number_read_after_it() -> None:
    assert [n.rounded for n in read("In 2010 about 3.8 million")] == [False, True]
    assert [n.rounded for n in read("3,780,000, or about 3.8 million")] == [False, True]
    assert [n.rounded for n in read("In 2010 around 3,780,000 people")] == [False, True]
    assert [(n.rounded, n.sig, n.place) for n in read("population ~3,780,000")] == [(True, 3, 10000.0)]
    assert [n.rounded for n in read("~3,780,000")] == [True]
    assert [n.rounded for n in read("~ 3,780,000")] == [True]
    assert [n.rounded for n in read("≈3,780,000")] == [True]
    assert [n.rounded for n in read("close to 3,780,000")] == [True]
    assert [n.rounded for n in read("3,780,000 fans, close to the record")] == [False]


@pytest.mark.parametrize(("answer", "lang", "verdict"), [
    ("around 3,780,000", "en", "correct"),  # 3 significant digits, the gold rounded to them
    ("close to 3,780,000", "en", "correct"),
    ("3,780,000", "en", "incorrect"),  # written exactly, so it must be exact
    ("around 3,700,000", "en", "incorrect"),  # not the gold rounded
    ("about three million eight hundred thousand", "en", "correct"),
    ("etwa 3.780.000", "de", "correct"),
    ("3.780.000", "de", "incorrect"),
    ("cerca de 3.780.000", "es", "correct"),
    ("más o menos 3.780.000", "es", "correct"),  # a three-word approximation phrase
    ("en torno a 3.780.000", "es", "correct"),
    ("à peu près 3 780 000", "fr", "correct"),
    ("environ 3 780 000", "fr", "correct"),
    ("ongeveer 3.780.000", "nl", "correct"),
    ("около 3 780 000", "ru", "correct"),
    ("ungefär 3 780 000", "sv", "correct"),
    ("حوالي ٣٧٨٠٠٠٠", "ar", "correct"),
    ("ما يقارب 3780000", "ar", "correct"),
    ("~ ٣٧٨٠٠٠٠", "ar", "correct"),  # the sign, apart from the number (the Arabic pack has no "~" word)
    ("٣٧٨٠٠٠٠", "ar", "incorrect"),
])
def test_approximate_answers_in_every_pack(answer: str, lang: str, verdict: str) -> None:
    assert judge_text(answer, "3783069", language=lang).verdict == verdict


def test_rounding_needs_fewer_digits_than_the_gold() -> None:
    # "about 10" is 9.95 rounded to one significant digit; "about 10.0" claims three, as many as the
    # gold's, and 9.95 is not 10.0 within the band
    assert judge_text("about 10", "9.95").verdict == "correct"
    assert judge_text("about 10.0", "9.95").verdict == "incorrect"


@pytest.mark.parametrize(("text", "lang", "expected"), [
    ("two and three", "en", [2.0, 3.0]),
    ("twenty and five", "en", [20.0, 5.0]),  # "and" between two whole numbers lists them
    ("twenty fifteen", "en", [20.0, 15.0]),
    ("twenty ten", "en", [20.0, 10.0]),
    ("twenty hundred", "en", [2000.0]),
    ("nineteen hundred", "en", [1900.0]),
    ("a million people", "en", [1000000.0]),
    ("two million three hundred thousand", "en", [2300000.0]),
    ("خمسة و عشرون", "ar", [25.0]),  # the joiner written apart still joins in Arabic
    ("واحد وعشرون", "ar", [21.0]),
    ("واحدة", "ar", [1.0]),  # a number word that itself starts with "و"
    ("فاز وخمسة لاعبين", "ar", [5.0]),  # the only number word has "و" written onto it
    ("cent vingt et un", "fr", [121.0]),
    ("deux cent vingt et un", "fr", [221.0]),
    ("quatre-vingt-dix-sept", "fr", [97.0]),
    ("soixante et onze", "fr", [71.0]),
    ("doscientos treinta y uno", "es", [231.0]),
])
def test_number_word_runs(text: str, lang: str, expected: list[float]) -> None:
    assert values(text, lang) == expected


def test_word_numbers_marked_rounded_have_their_precision() -> None:
    (n,) = read("about three million eight hundred thousand")
    assert (n.value, n.rounded, n.sig, n.place) == (3800000.0, True, 2, 100000.0)
    (n,) = read("about forty")
    assert (n.rounded, n.sig, n.place) == (True, 1, 10.0)


def test_default_tolerances() -> None:
    en = get_locale("en")
    assert not numbers_equal(number_from_float(138.2), find_numbers("138.0", en)[0])
    assert numbers_equal(number_from_float(1.889), find_numbers("1.883", en)[0])
    # the relative tolerance (1%) bounds rounding: "4 million" is 3,783,069 rounded but 5.7% off
    assert not numbers_equal(number_from_float(3783069.0), find_numbers("about 4 million", en)[0])
    assert numbers_equal(number_from_float(3783069.0), find_numbers("about 3.8 million", en)[0])


def test_zero_tolerance_still_absorbs_float_noise() -> None:
    en = get_locale("en")
    # a gold summed from two cells carries binary noise; written to the cent it is the same number
    gold = number_from_float(sum([2500000.15, 1283069.2]))
    assert numbers_equal(gold, find_numbers("3,783,069.35", en)[0], tolerance=0.0)
    assert not numbers_equal(gold, find_numbers("3,783,069.36", en)[0], tolerance=0.0)
    assert numbers_equal(number_from_float(1.883), find_numbers("1.883", en)[0], tolerance=0.0)
    # below 1, noise up to 1e-9 in absolute terms
    assert numbers_equal(number_from_float(0.3), find_numbers("0.3000000005", en)[0], tolerance=0.0)
    assert not numbers_equal(number_from_float(0.3), find_numbers("0.3000000015", en)[0], tolerance=0.0)


def test_percent_against_fraction_both_ways() -> None:
    en = get_locale("en")
    assert not numbers_equal(number_from_float(0.25), find_numbers("0.0025", en)[0])
    assert numbers_equal(number_from_float(0.25), find_numbers("25%", en)[0])
    assert numbers_equal(number_from_float(25.0, percent=True), find_numbers("0.25", en)[0])
    assert not numbers_equal(number_from_float(25.0, percent=True), find_numbers("0.26", en)[0])


def test_rounding_band_is_half_a_unit_of_the_last_written_digit() -> None:
    en = get_locale("en")

    def rounds_to(gold: NumberMention, answer: str) -> bool:
        return numbers_equal(gold, find_numbers(answer, en)[0])

    gold = number_from_float(1234567.0)
    assert rounds_to(gold, "about 1,230,000")
    assert not rounds_to(gold, "about 1,240,000")  # 0.44% off, but not the gold rounded to 3 digits
    # exactly half a unit either way is still the gold rounded (half up or half down)
    assert rounds_to(number_from_float(1235000.0), "about 1,230,000")
    assert rounds_to(number_from_float(1235000.0), "about 1,240,000")
    # a gold one unit of binary noise above the half-way point rounds the same
    assert rounds_to(number_from_float(math.nextafter(12345000.0, math.inf)), "about 12,340,000")
    # a fraction answering a percent gold: its last digit is worth a hundred times more in percent
    assert rounds_to(number_from_float(25.2, percent=True), "about 0.25")
    assert not rounds_to(number_from_float(25.2, percent=True), "about 0.26")
    # exactly a hundred times: "5.0" rounds 495%..505%, not 505.03%
    assert rounds_to(number_from_float(504.97, percent=True), "about 5.0")
    assert not rounds_to(number_from_float(505.03, percent=True), "about 5.0")


@pytest.mark.parametrize(("text", "read_as"), [
    ("-3 degrees", [(-3.0, 0, 2)]),
    ("temperature -3", [(-3.0, 12, 14)]),  # the sign is part of the mention
    ("1, -3", [(1.0, 0, 1), (-3.0, 3, 5)]),
    ("low of -12.5", [(-12.5, 7, 12)]),
    ("65-75", [(65.0, 0, 2), (75.0, 3, 5)]),  # a dash between numbers is no sign
    ("type a-3", [(3.0, 7, 8)]),
    ("1.-3", [(1.0, 0, 1), (3.0, 3, 4)]),
    ("x_-3", [(3.0, 3, 4)]),
    ("5--3", [(5.0, 0, 1), (3.0, 3, 4)]),
])
def test_minus_sign_or_dash(text: str, read_as: list[tuple[float, int, int]]) -> None:
    assert [(n.value, n.start, n.end) for n in read(text)] == read_as


def test_rounded_mentions_keep_percent_and_scaled_precision() -> None:
    assert [(n.value, n.percent, n.sig, n.place, n.rounded) for n in read("about 25%")] == [(25.0, True, 2, 1.0, True)]
    assert [(n.value, n.sig, n.place, n.rounded) for n in read("3.78 million")] == [(3780000.0, 3, 10000.0, True)]
    # a number written exactly carries no precision (sig and place 0: only rounded mentions are read so)
    assert read("25%") == [NumberMention(25.0, 0, 3, True, 0, 0.0, False)]


@pytest.mark.parametrize(("text", "lang", "mentions"), [
    ("forty", "en", [NumberMention(40.0, 0, 5, False, 0, 0.0, False)]),
    ("twenty-five percent", "en", [NumberMention(25.0, 0, 19, True, 0, 0.0, False)]),
    ("خمسة وعشرون بالمئة", "ar", [NumberMention(25.0, 0, 18, True, 0, 0.0, False)]),
    # two numbers in one run of words: the first ends where the run starts, the last carries the percent
    ("two and three percent", "en", [NumberMention(2.0, 0, 0, False, 0, 0.0, False),
                                     NumberMention(3.0, 0, 21, True, 0, 0.0, False)]),
    ("forty or 38", "en", [NumberMention(40.0, 0, 5, False, 0, 0.0, False),
                           NumberMention(38.0, 9, 11, False, 0, 0.0, False)]),  # in order of appearance
    ("38 and forty", "en", [NumberMention(38.0, 0, 2, False, 0, 0.0, False),
                            NumberMention(40.0, 7, 12, False, 0, 0.0, False)]),
    ("in twenty years about forty", "en", [NumberMention(20.0, 3, 9, False, 0, 0.0, False),
                                           NumberMention(40.0, 22, 27, False, 1, 10.0, True)]),
    # the scale word of a digit number is read with it, the number words after it on their own
    ("3.78 million and forty", "en", [NumberMention(3780000.0, 0, 12, False, 3, 10000.0, True),
                                      NumberMention(40.0, 17, 22, False, 0, 0.0, False)]),
    ("5 million people and forty cars", "en", [NumberMention(5000000.0, 0, 9, False, 1, 1000000.0, True),
                                               NumberMention(40.0, 21, 26, False, 0, 0.0, False)]),
    ("38 ألف", "ar", [NumberMention(38000.0, 0, 6, False, 2, 1000.0, True)]),
])
def test_word_number_mentions(text: str, lang: str, mentions: list[NumberMention]) -> None:
    assert read(text, lang) == mentions


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "40 per cent"), ("en", "40 percent"), ("de", "40 Prozent"), ("es", "40 por ciento"),
    ("fr", "40 pour cent"), ("nl", "40 procent"), ("sv", "40 procent"), ("ar", "40 بالمائة"),
    # Russian writes the word in three case forms, and "проц" short: the mention takes the whole word
    ("ru", "40 процентов"), ("ru", "40 процента"), ("ru", "40 процент"), ("ru", "40 проц"),
])
def test_a_percent_word_is_read_whole(lang: str, text: str) -> None:
    (n,) = find_numbers(fold(text), get_locale(lang))
    assert (n.value, n.percent, n.start, n.end) == (40.0, True, 0, len(text))
