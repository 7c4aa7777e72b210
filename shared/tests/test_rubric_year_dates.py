"""Gold dates with parts unknown, in WikiTableQuestions' normalised form: with only its year known
("2006-xx-xx") a gold is judged as the year, a number (the rationale says "number", not "date"); with its
month known ("2006-05-xx") or only its day ("xxxx-xx-13", the 13th of any month) it is a date. A day-only
gold was judged as the text "xxxx xx 13", which no answer states: "May 13" and "في 13 مايو" were wrong."""

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


@pytest.mark.parametrize(("response", "language", "verdict", "rationale"), [
    ("May 13", "en", "correct", "date matches [whole]"),
    ("It was on 13 May 2005.", "en", "correct", "date matches [whole]"),
    ("14 May 2005", "en", "incorrect", "date differs [whole]"),
    ("في 13 مايو", "ar", "correct", "date matches [whole]"),
    ("في 14 مايو", "ar", "incorrect", "date differs [whole]"),
])
def test_a_day_only_gold_date_is_a_date(response: str, language: str, verdict: str, rationale: str) -> None:
    v = judge_text(response, ["xxxx-xx-13"], language=language)
    assert (v.verdict, v.rationale) == (verdict, rationale)


def test_a_gold_date_with_no_part_known_is_no_date() -> None:
    # "xxxx-xx-xx" (no part known, no digit): no date is read from it, it stays the text it is
    v = judge_text("May 13", ["xxxx-xx-xx"])
    assert (v.verdict, v.rationale) == ("incorrect", "the gold is not in the answer [whole]")
