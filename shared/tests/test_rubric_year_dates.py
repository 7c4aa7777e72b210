"""A gold date with only its year known ("2006-xx-xx", the normalised form of WikiTableQuestions' year-only
dates) is judged as the year, a number: the rationale says "number", not "date". A gold with its month known
("2006-05-xx") is a date."""

from __future__ import annotations

import pytest

from livetab.rubric import judge_text


@pytest.mark.parametrize(("response", "language", "verdict", "rationale"), [
    ("2006", "en", "correct", "number matches [whole]"),
    ("It was in 2006.", "en", "correct", "number matches [whole]"),
    ("2007", "en", "incorrect", "number differs (2007 vs 2006) [whole]"),
    ("في عام ٢٠٠٦", "ar", "correct", "number matches [whole]"),
    ("٢٠٠٧", "ar", "incorrect", "number differs (2007 vs 2006) [whole]"),
])
def test_a_year_only_gold_date_is_judged_as_its_year(response: str, language: str, verdict: str,
                                                     rationale: str) -> None:
    v = judge_text(response, ["2006-xx-xx"], language=language)
    assert (v.verdict, v.rationale) == (verdict, rationale)


@pytest.mark.parametrize(("response", "verdict", "rationale"), [
    ("May 3, 2006", "correct", "date matches [whole]"),
    ("June 2006", "incorrect", "date differs [whole]"),
])
def test_a_gold_date_with_its_month_is_a_date(response: str, verdict: str, rationale: str) -> None:
    v = judge_text(response, ["2006-05-xx"])
    assert (v.verdict, v.rationale) == (verdict, rationale)
