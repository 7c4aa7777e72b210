"""Negation words of a language pack that its fold makes out of other words.

French "né" (born) folds into "ne": while "ne" and "n" were French negations, "Où est né Victor Hugo ?" read as a
negated question, so a negated answer ("Victor Hugo n'est pas né à Besançon.") was judged correct for the gold
"Besançon". French negations are read from "pas", "jamais", "aucun", "rien", … ("ne … que" is no negation).
"""

from __future__ import annotations

from livetab.questions import Gold, Question
from livetab.rubric import judge_answer


def _judge(question: str, gold: Gold, response: str) -> str:
    q = Question(id="fr-neg", table_id="t", family="direct", text=question, gold=gold, language="fr")
    return judge_answer(response, q).verdict


def test_a_question_about_birth_is_not_negated() -> None:
    gold = Gold(kind="text", text="Besançon")
    assert _judge("Où est né Victor Hugo ?", gold, "Victor Hugo est né à Besançon.") == "correct"
    assert _judge("Où est né Victor Hugo ?", gold, "Victor Hugo n'est pas né à Besançon.") == "uncertain"
    assert _judge("Où est né Victor Hugo ?", gold, "Il n'est jamais allé à Besançon.") == "uncertain"


def test_french_negations_still_flip_a_statement() -> None:
    true = Gold(kind="boolean", text="True", boolean=True)
    statement = "Vrai ou faux : Victor Hugo n'est pas né à Paris."
    assert _judge(statement, true, "Vrai") == "correct"
    assert _judge(statement, true, "Faux, il n'est pas né à Paris") == "incorrect"
