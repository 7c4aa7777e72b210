"""livetab.numbers: the one reader of numbers in table cells, every case written out by hand."""

from __future__ import annotations

import csv
import math
from decimal import Decimal
from fractions import Fraction

import pytest
from livetab.numbers import (
    SEPARATORS,
    NumberReading,
    decimals_in,
    exact_number,
    first_decimal,
    format_number,
    parse_number,
    read_decimal,
    read_number,
)
from livetab.paths import shared_data


@pytest.mark.parametrize(("text", "value"), [
    ("1,234", 1234.0), ("12,345,678.5", 12345678.5), ("3.63", 3.63), (".5", 0.5), ("12.", 12.0), (" 22 ", 22.0),
    ("0", 0.0), ("007", 7.0),
    # signs: hyphen, Unicode minus, en dash, figure dash, plus; a space after the sign
    ("-3", -3.0), ("−3", -3.0), ("–3", -3.0), ("‒3", -3.0), ("+7", 7.0), ("- 5", -5.0), ("+ 0.48", 0.48),
    # percentages keep the number shown
    ("45%", 45.0), ("45 %", 45.0), ("-2.5%", -2.5),
    # thousands grouped by spaces (plain, no-break, thin, narrow no-break) or "'"
    ("1 234", 1234.0), ("1\u00a0234\u00a0567", 1234567.0), ("7\u2009000", 7000.0), ("7\u202f000.5", 7000.5),
    ("1'234'567.5", 1234567.5),
])
def test_english_and_international_forms(text: str, value: float) -> None:
    assert parse_number(text) == value


@pytest.mark.parametrize(("text", "value"), [
    ("87[1]", 87.0), ("12[a][b]", 12.0), ("12 [3]", 12.0), ("12*", 12.0), ("12†", 12.0), ("1,234‡", 1234.0),
    ("12§", 12.0), ("12²", 12.0), ("66'", 66.0), ("5%[2]", 5.0), ("12.5*[3]", 12.5),
])
def test_footnote_remnants_are_dropped(text: str, value: float) -> None:
    assert parse_number(text) == value


@pytest.mark.parametrize(("text", "value"), [
    ("٣٤٥", 345.0), ("١٢٫٥", 12.5), ("٢٬٥٠٠", 2500.0), ("٤٥٪", 45.0), ("۱۲", 12.0), ("−١٢", -12.0),
])
def test_arabic_indic_digits_and_separators(text: str, value: float) -> None:
    assert parse_number(text) == value
    assert parse_number(text, "ar") == value


@pytest.mark.parametrize("text", [
    "", "   ", "N/A", "abc", "-", ".", "%", "٪٤٥",
    # ranges, dates, fractions, two numbers in one cell
    "1-2", "12–14", "2004–05", "3/4", "12 May", "12 (3)", "1 2", "2009 2009", "0011 0000", "1,234 567",
    # separators out of place for English
    "1,23", "1,5", "1.5.3", "1.234,5", "12,5",
    # what Python's float() would take but a table does not say
    "1e5", "inf", "nan", "0x10", "5-",
    # units need units=True
    "$5", "5 €", "3 million", "120k",
])
def test_not_exactly_one_number(text: str) -> None:
    assert parse_number(text) is None


@pytest.mark.parametrize(("text", "language", "value"), [
    ("1.234,5", "de", 1234.5), ("1.234", "de", 1234.0), ("12,5", "de", 12.5), ("1.234.567", "nl", 1234567.0),
    ("0,5", "es", 0.5), ("1 234,5", "fr", 1234.5), ("1\u202f234,5", "fr", 1234.5), ("1\u00a0234", "ru", 1234.0),
    ("12,5", "sv", 12.5), ("1'234.5", "de-ch", 1234.5), ("1’234", "de-ch", 1234.0), ("1.234,5", "de-AT", 1234.5),
    ("1,234.5", "xx", 1234.5), ("1,234.5", "EN", 1234.5), ("−1.234,5", "de", -1234.5), ("87,5[1]", "de", 87.5),
])
def test_language_conventions(text: str, language: str, value: float) -> None:
    assert parse_number(text, language) == value


@pytest.mark.parametrize(("text", "language"), [
    ("1.5", "de"), ("1,234.5", "de"), ("1.234", "ru"), ("1,5", "en"), ("1’234", "en"),
])
def test_separators_of_another_language_are_rejected(text: str, language: str) -> None:
    assert parse_number(text, language) is None


def test_the_same_cell_in_two_languages() -> None:
    assert parse_number("1.234") == 1.234
    assert parse_number("1.234", "de") == 1234.0
    assert parse_number("1,234") == 1234.0
    assert parse_number("1,234", "de") == 1.234


@pytest.mark.parametrize(("text", "language", "value"), [
    ("$5", "en", 5.0), ("$1,200", "en", 1200.0), ("US$ 3", "en", 3.0), ("3 USD", "en", 3.0), ("5 €", "de", 5.0),
    ("€ 1.234,50", "de", 1234.5), ("-$5", "en", -5.0), ("−€2,5", "de", -2.5), ("Rs. 100", "en", 100.0),
    ("100 ريال", "ar", 100.0), ("kr 5", "sv", 5.0),
    ("3 million", "en", 3e6), ("-3 million", "en", -3e6), ("£3.2 billion", "en", 3.2e9), ("1.5bn", "en", 1.5e9),
    ("3 thousand", "en", 3e3), ("120k", "en", 120e3), ("$5m", "en", 5e6), ("€1,5 Mio.", "de", 1.5e6),
    ("2 Mrd.", "de", 2e9), ("2 млн", "ru", 2e6), ("٣ مليون", "ar", 3e6), ("٢ مليار", "ar", 2e9),
    ("$2.5 million[4]", "en", 2.5e6), ("1,234", "en", 1234.0), ("12.5%", "en", 12.5),
])
def test_units_currency_and_scale(text: str, language: str, value: float) -> None:
    assert parse_number(text, language, units=True) == pytest.approx(value)


@pytest.mark.parametrize("text", ["5 m", "4.60 m", "100 m", "million", "$", "$ million", "10 km", "5 kg", "$5-$7"])
def test_units_refuse_what_is_not_an_amount(text: str) -> None:
    assert parse_number(text, units=True) is None


def test_reading_says_how_the_number_was_written() -> None:
    assert read_number("$1,234.50", units=True) == NumberReading(1234.5, decimals=2, currency="$")
    assert read_number("12.5%") == NumberReading(12.5, decimals=1, percent=True)
    assert read_number("3 million", units=True) == NumberReading(3e6, scale=1e6)
    assert read_number("1.234,75", "de") == NumberReading(1234.75, decimals=2)
    assert read_number("12.") == NumberReading(12.0, decimals=0)
    assert read_number("12.5[3]") == NumberReading(12.5, decimals=1)
    assert read_number("$5") is None  # currency only with units=True


@pytest.mark.parametrize(("value", "expected"), [(7, 7.0), (2.5, 2.5), (float("nan"), None), (True, None), (None, None)])
def test_values_that_are_already_numbers(value: object, expected: float | None) -> None:
    assert parse_number(value) == expected


def test_formatted_numbers_read_back() -> None:
    assert format_number(1234.75, digits="arabic_indic") == "١٢٣٤٫٧٥"
    assert parse_number(format_number(1234.75, digits="arabic_indic")) == 1234.75
    assert parse_number(format_number(-0.25)) == -0.25


def test_units_only_add_to_the_strict_reading_on_real_cells() -> None:
    """On every WikiTableQuestions cell the strict reader takes, units=True gives the same value."""
    read = 0
    for path in sorted((shared_data() / "wtq" / "csv").glob("*-csv/*.csv")):
        with path.open(encoding="utf-8", newline="") as f:
            for row in csv.reader(f, escapechar="\\"):
                for cell in row:
                    strict = parse_number(cell)
                    if strict is not None:
                        read += 1
                        lenient = parse_number(cell, units=True)
                        assert lenient is not None and math.isclose(lenient, strict), cell
    assert read > 5000  # the tables are mostly numbers: the check ran on real cells


def test_exact_readings_agree_with_the_float_reading() -> None:
    assert read_decimal("24.30") == Decimal("24.30")  # the decimals as written: claims compare at that precision
    assert read_decimal("$1.47 billion", units=True) == Decimal("1470000000")
    assert read_decimal("٣٫٥") == Decimal("3.5") and read_decimal("−4") == -4
    assert read_decimal("1.234,5", "de") == Decimal("1234.5")
    assert read_decimal("12 km") is None
    assert exact_number("$10,800") == Fraction(10800) and exact_number(".25") == Fraction(1, 4)
    with pytest.raises(ValueError):
        exact_number("many")


@pytest.mark.parametrize(("value", "language", "expected"), [
    ("12 km", "en", "12"), ("24.3 (est.)", "en", "24.3"), ("(872,454)", "en", "872454"), ("–6", "en", "-6"),
    (".274", "en", "0.274"), ("1 130 710", "ru", "1130710"), ("0.5", "ru", "0.5"), ("$27,426,395", "fr", "27426395"),
    ("1.026", "nl", "1026"), ("١٢٫٥ %", "ar", "12.5"), (7, "en", "7"), (2.5, "en", "2.5"),
    ("MP3", "en", None), ("01.05.1988", "en", None), ("n/a", "en", None), (True, "en", None),
])
def test_first_decimal_reads_the_first_number_of_a_value(value: object, language: str, expected: str | None) -> None:
    got = first_decimal(value, language)
    assert got == (None if expected is None else Decimal(expected))


def test_numbers_mentioned_in_text() -> None:
    assert decimals_in("١٨٫٤ و 1,200") == [Decimal("18.4"), Decimal("1200")]
    assert decimals_in("من 8,5 إلى 4,0 أطفال وفي 2007", "ar") == [Decimal("8.5"), Decimal("4.0"), Decimal("2007")]
    assert decimals_in("between 65-75 and 1,200,000 (2.5%)") == [Decimal(65), Decimal(75), Decimal(1200000),
                                                                Decimal("2.5")]


def test_one_separator_table_for_cells_and_the_rubric() -> None:
    from livetab.rubric.locale import get_locale

    for language, (decimal, groups) in SEPARATORS.items():
        if "-" in language:
            continue
        loc = get_locale(language)
        assert (loc.decimal, loc.group) == (decimal, groups), language


@pytest.mark.parametrize(("text", "value", "cell"), [
    ("1,234.5", 1234.5, True), ("٣٫٥", 3.5, True), ("12.5%", 12.5, True), ("−4", -4.0, True),
    ("(872,454)", 872454.0, False),  # a cell in brackets is no plain number: TAT-QA's loss, WTQ's "(18)" grid slot
])
def test_the_same_text_reads_the_same_in_cells_claims_and_answers(text: str, value: float, cell: bool) -> None:
    """Cell reader, exact readers and the rubric's mention finder share the digit table, separators and
    digit-number pattern of livetab.numbers."""
    from livetab.rubric.locale import get_locale
    from livetab.rubric.numbers import find_numbers
    from livetab.rubric.text import fold

    mentions = find_numbers(fold(text), get_locale("en"))
    assert [m.value for m in mentions] == [value]
    assert mentions[0].percent == text.endswith("%")
    exact = first_decimal(text)
    assert exact is not None and float(exact) == value
    assert decimals_in(text) == [exact]
    reading = read_number(text)
    assert (reading.value if reading else None) == (value if cell else None)


@pytest.mark.parametrize(("text", "value"), [
    ("(872,454)", -872454.0), ("$(1,234)", -1234.0), ("($1,234)", -1234.0), ("(3.2)%", -3.2), ("(14.1%)", -14.1),
    ("$ (26.8)", -26.8), ("$1,193,066", 1193066.0), ("12.5%", 12.5), ("(-5)", None), ("((5))", None), ("—", None),
])
def test_accounting_negatives_are_read_only_when_asked(text: str, value: float | None) -> None:
    """Annual reports print losses in parentheses; on a web page "(18)" is a note, so it is no number there."""
    assert parse_number(text, units=True, accounting=True) == value
    if text.startswith(("(", "$ (", "$(")):
        assert parse_number(text, units=True) is None
