"""A comparative answer to a two-way comparison ("Is Ann older or younger than Bob?") negated by the word
that opens the answer: "Not older than Bob." points the other way, as "Ann is not older than Bob." does.
The negation is read from the first word of the answer on (English and Arabic)."""

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
