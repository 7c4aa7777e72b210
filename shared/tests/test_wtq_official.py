"""WikiTableQuestions' official exact-match criterion, as reimplemented in rubric/wtq.py."""

from __future__ import annotations

from livetab.rubric.wtq import wtq_match, wtq_normalize


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
