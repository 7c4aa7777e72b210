"""WikiTableQuestions' official exact-match criterion, as reimplemented in rubric/wtq.py."""

from __future__ import annotations

import pytest
from livetab.rubric.wtq import WtqValue, wtq_match, wtq_normalize, wtq_value


def test_normalisation() -> None:
    assert wtq_normalize("Jürgen") == "jurgen"
    assert wtq_normalize("“Hog”") == "hog"  # quotes unified, then the enclosing pair removed
    assert wtq_normalize('"Hog"') == "hog"
    assert wtq_normalize("United States (USA)") == "united states"
    assert wtq_normalize("Officer[1]") == "officer"
    assert wtq_normalize("Paris.") == "paris"
    assert wtq_normalize("A  –  B") == "a - b"


def test_numbers_and_dates() -> None:
    assert wtq_match("492111", ["492,111"], ["492111.0"])
    assert wtq_match("492,111", ["492,111"], ["492111.0"])  # same original string
    assert not wtq_match("492111.5", ["492,111"], ["492111.0"])
    assert wtq_match("2006-03-04", ["March 4, 2006"], ["2006-03-04"])
    assert wtq_match("March 4, 2006", ["March 4, 2006"], ["2006-03-04"])


def test_sets_and_lengths() -> None:
    assert wtq_match(["Ecuador", "Chile"], ["Chile", "Ecuador"], ["Chile", "Ecuador"])
    assert not wtq_match(["Chile"], ["Chile", "Ecuador"], ["Chile", "Ecuador"])
    assert not wtq_match("Chile and Ecuador", ["Chile", "Ecuador"], ["Chile", "Ecuador"])


def test_verbose_answers_fail_exact_match() -> None:
    assert not wtq_match("Nine websites do not have any advertising.", ["9"], ["9.0"])
    assert wtq_match("Warriors", ["Warriors"], ["Warriors"])


# Written against the survivors of `make mutation` (docs/mutation.md, 1 December 2026): WTQ's value
# typing at its edges — month 1 and 12, day 1 and 31 are dates, 0, 13 and 32 are not; "xx" parts are
# unknown (-1), all three unknown is no date; "nan" and "inf" are no numbers; numbers match within 1e-6.
@pytest.mark.parametrize(("text", "date"), [
    ("2004-01-01", (2004, 1, 1)), ("2004-12-31", (2004, 12, 31)), ("2004-11-01", (2004, 11, 1)),
    ("2004-13-01", None), ("2004-00-05", None), ("2004-12-32", None), ("2004-05-00", None),
    ("xxxx-xx-xx", None), ("2004-xx-xx", (2004, -1, -1)), ("2004-xx-05", (2004, -1, 5)),
    ("xxxx-xx-13", (-1, -1, 13)),
])
def test_wtq_date_edges(text: str, date: tuple[int, int, int] | None) -> None:
    assert wtq_value(text).date == date


def test_wtq_number_edges_and_quotes() -> None:
    assert wtq_value("nan").number is None and wtq_value("inf").number is None
    assert wtq_value("-inf").number is None and wtq_value("2.5").number == 2.5
    assert not WtqValue("a", number=0.0).matches(WtqValue("b", number=1e-6))  # within 1e-6, strictly
    assert WtqValue("a", number=0.0).matches(WtqValue("b", number=9e-7))
    assert wtq_normalize("Rock ’n’ Roll") == "rock 'n' roll"
    assert wtq_match("2", ["2"]) and not wtq_match("2", ["3"])  # no canonical forms given
    assert wtq_match(["a", "b"], ["a", "b"], canon=["a"])  # a canonical list of another length is ignored
