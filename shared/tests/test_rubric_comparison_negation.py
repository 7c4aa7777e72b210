"""A comparative answer to a "more or less" question ("Is Ann older or younger than Bob?"), English and Arabic:

* negated by the word that opens the answer: "Not older than Bob." points the other way, as "Ann is not
  older than Bob." does (the negation is read from the first word of the answer on);
* a negation five words or more before the comparative belongs to another clause ("No doubt: Ann is much
  older than Bob.", "لا شك في ذلك، أحمد أكبر من علي"): the comparative keeps its direction;
* the question's "than" side named right after the comparative ("Ann is older, Bob is younger."): the first
  comparative is the answer's, the second only restates it from the other side.
"""

from __future__ import annotations

import pytest
from livetab.rubric import judge_text

EN_Q = "Is Ann older or younger than Bob?"
AR_Q = "هل أحمد أكبر أم أصغر من علي؟"


@pytest.mark.parametrize(("response", "gold", "language", "question", "verdict", "rationale"), [
    ("Not older than Bob.", "younger", "en", EN_Q, "correct",
     "the answer's comparative ('older') has the gold's direction [whole]"),
    ("Not older than Bob.", "older", "en", EN_Q, "incorrect",
     "the answer's comparative ('older') has the opposite direction [whole]"),
    ("Ann is not older than Bob.", "younger", "en", EN_Q, "correct",
     "the answer's comparative ('older') has the gold's direction [whole]"),
    ("ليس أكبر من علي", "أصغر", "ar", AR_Q, "correct",
     "the answer's comparative ('اكبر') has the gold's direction [whole]"),
    ("ليس أكبر من علي", "أكبر", "ar", AR_Q, "incorrect",
     "the answer's comparative ('اكبر') has the opposite direction [whole]"),
])
def test_a_negation_opening_the_answer_turns_its_comparative(response: str, gold: str, language: str, question: str,
                                                             verdict: str, rationale: str) -> None:
    v = judge_text(response, gold, language=language, question=question)
    assert (v.verdict, v.rationale) == (verdict, rationale)


@pytest.mark.parametrize(("response", "gold", "language", "question"), [
    ("No doubt: Ann is much older than Bob.", "older", "en", EN_Q),
    ("It was not Bob, but Ann is older than Bob.", "older", "en", EN_Q),
    ("لا شك في ذلك، أحمد أكبر من علي", "أكبر", "ar", AR_Q),
    ("لا يوجد شك أن أحمد أكبر من علي", "أكبر", "ar", AR_Q),
])
def test_a_negation_of_another_clause_does_not_turn_the_comparative(response: str, gold: str, language: str,
                                                                    question: str) -> None:
    v = judge_text(response, gold, language=language, question=question)
    assert v.verdict == "correct" and v.rationale.endswith("has the gold's direction [whole]")


@pytest.mark.parametrize(("response", "gold", "language", "question", "verdict"), [
    ("Ann is older, Bob is younger.", "older", "en", EN_Q, "correct"),
    ("Ann is older, Bob is younger.", "younger", "en", EN_Q, "incorrect"),
    ("Older, Bob is the younger one.", "older", "en", EN_Q, "correct"),
    ("أكبر، علي أصغر منه", "أكبر", "ar", AR_Q, "correct"),
    ("أكبر، علي أصغر منه", "أصغر", "ar", AR_Q, "incorrect"),
])
def test_the_other_side_named_right_after_the_comparative(response: str, gold: str, language: str, question: str,
                                                          verdict: str) -> None:
    v = judge_text(response, gold, language=language, question=question)
    direction = "the gold's direction" if verdict == "correct" else "the opposite direction"
    assert (v.verdict, v.rationale.endswith(f"has {direction} [whole]")) == (verdict, True)


@pytest.mark.parametrize(("response", "gold", "verdict"), [
    ("It is less recent than Bad.", "earlier", "correct"),
    ("It is less recent than Bad.", "later", "incorrect"),
    ("It is more recent than Bad.", "later", "correct"),
])
def test_more_or_less_with_a_comparative_reads_as_one(response: str, gold: str, verdict: str) -> None:
    # "less recent" is "earlier": "less" turns the direction of the comparative after it
    v = judge_text(response, gold, question="Was Thriller released earlier or later than Bad?")
    direction = "the gold's direction" if verdict == "correct" else "the opposite direction"
    assert (v.verdict, v.rationale.endswith(f"has {direction} [whole]")) == (verdict, True)
