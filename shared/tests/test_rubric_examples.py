"""AraTable's own rubric examples, through judge_answer."""

from __future__ import annotations

import pytest
from livetab.questions import Gold, Question
from livetab.rubric import RuleVerdict, judge_answer


def ask(gold: Gold, response: str, lang: str = "en", **kw: float) -> RuleVerdict:
    q = Question(id=f"ex-{gold.kind}-{gold.text}", table_id="t", family="direct", text="", gold=gold, language=lang)
    return judge_answer(response, q, **kw)


@pytest.mark.parametrize("response", ["around 40", "40", "forty years"])
def test_around_40(response: str) -> None:
    assert ask(Gold(kind="number", number=40.0, text="40"), response).verdict == "correct"


def test_1883_for_1889() -> None:
    """Difference 0.006: accepted under the band reading of "±0.005" (see numbers.py); a strict
    reading (tolerance=0.0025, i.e. |a-b| <= 0.005) rejects it."""
    gold = Gold(kind="number", number=1.889, text="1.889")
    assert ask(gold, "1.883").verdict == "correct"
    assert ask(gold, "1.883", tolerance=0.0025).verdict == "incorrect"
    assert ask(gold, "1.87").verdict == "incorrect"


def test_25_percent() -> None:
    assert ask(Gold(kind="number", number=0.25, text="0.25"), "25%").verdict == "correct"


def test_38000_is_38_thousand() -> None:
    assert ask(Gold(kind="number", number=38000.0, text="38000"), "38 ألف", lang="ar").verdict == "correct"


def test_hotels_as_a_set() -> None:
    gold = Gold(kind="list", items=["فندق ب", "فندق أ"], text="فندق ب، فندق أ")
    assert ask(gold, "فندق أ و فندق ب", lang="ar").verdict == "correct"


def test_true_and_false_synonyms() -> None:
    for word in ("True", "Yes", "صح", "نعم", "بيان صحيح"):
        assert ask(Gold(kind="boolean", boolean=True, text="True"), word, lang="ar").verdict == "correct"
    for word in ("False", "No", "خطأ", "غير صحيح", "بيان كاذب"):
        assert ask(Gold(kind="boolean", boolean=False, text="False"), word, lang="ar").verdict == "correct"


def test_arabic_entity_in_latin_is_wrong() -> None:
    gold = Gold(kind="text", text="جامعة الملك سعود")
    assert ask(gold, "King Saud University", lang="ar").verdict == "incorrect"
    assert ask(gold, "جامعة الملك سعود", lang="ar").verdict == "correct"
