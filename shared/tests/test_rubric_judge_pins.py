"""The rule judge on names that carry a number: which rule decides, English and Arabic.

Written against survivors of `make mutation` (group rubric_judge) re-triaged on 1 December 2026
(docs/mutation.md): a film, a race or a song whose name holds a number and a unit word is a name, not a
quantity. Each case asserts the verdict and the rule that decided it (the rationale stored with every
judgment).
"""

from __future__ import annotations

import pytest
from livetab.rubric import RuleVerdict, judge_text


def decided(v: RuleVerdict) -> tuple[str, str]:
    """The verdict and the rule, without the extraction method ("number matches [whole]")."""
    return v.verdict, v.rationale.rsplit(" [", 1)[0]


STATES = "the answer states the gold"
RESTATES = "the answer restates the question's condition with another number"
PART = "the answer names part of the gold"


@pytest.mark.parametrize(("response", "gold", "question", "language", "verdict", "why"), [
    # the gold's own number stands before the question's unit word: it is the name, not a restated condition
    ("90 Minutes in Heaven runs 121 minutes.", "90 Minutes in Heaven", "Which film runs 121 minutes?", "en",
     "correct", STATES),
    ("فيلم 90 دقيقة في الجنة مدته 121 دقيقة.", "90 دقيقة في الجنة", "ما الفيلم الذي مدته 121 دقيقة؟", "ar",
     "correct", STATES),
    # the same sentence shape with a gold without a number: another number before the unit word is doubted
    ("Heaven runs 120 minutes.", "Heaven", "Which film runs 121 minutes?", "en", "uncertain", RESTATES),
    # a race named for its length is no duration: another 24-hour race is not the gold
    ("24 Hours of Le Mans", "24 Hours of Daytona", "Which race did Ford win in 1966?", "en", "uncertain", PART),
    ("He won the 24 Hours of Le Mans.", "24 Hours of Daytona", "Which race did he win in 1966?", "en",
     "uncertain", PART),
    ("سباق لومان 24 ساعة", "دايتونا 24 ساعة", "أي سباق فاز به عام 1966؟", "ar", "uncertain", PART),
])
def test_names_holding_a_number(response: str, gold: str, question: str, language: str, verdict: str,
                                why: str) -> None:
    assert decided(judge_text(response, gold, question=question, language=language)) == (verdict, why)


@pytest.mark.parametrize(("response", "gold", "question", "language", "verdict", "why"), [
    # a year gold beside a count beyond the year window (1000 to 2100): the count is context, not a rival year
    ("It was founded in 1998 and has 2101 members.", "1998", "In which year was the club founded?", "en",
     "correct", "number matches"),
    ("تأسس النادي عام 1998 ويضم 2101 عضو.", "1998", "في أي عام تأسس النادي؟", "ar", "correct", "number matches"),
    # a second number inside the window may be a year: the answer is not read as stating one year
    ("The club, founded in 1998, had 2101 members in 2005.", "1998", "In which year was the club founded?", "en",
     "uncertain", "the answer names several numbers, not all equal to the gold"),
])
def test_year_gold_beside_other_numbers(response: str, gold: str, question: str, language: str, verdict: str,
                                        why: str) -> None:
    assert decided(judge_text(response, gold, question=question, language=language)) == (verdict, why)
