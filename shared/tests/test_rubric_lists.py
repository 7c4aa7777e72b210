"""Lists: sets regardless of order, separators and conjunctions."""

from __future__ import annotations

import pytest
from livetab.rubric import judge_text


@pytest.mark.parametrize(("answer", "gold", "lang", "verdict"), [
    ("فندق أ و فندق ب", ["فندق ب", "فندق أ"], "ar", "correct"),
    ("فندق أ وفندق ب", ["فندق ب", "فندق أ"], "ar", "correct"),
    ("فندق أ، فندق ب", ["فندق ب", "فندق أ"], "ar", "correct"),
    ("فندق أ", ["فندق ب", "فندق أ"], "ar", "incorrect"),
    ("Ecuador and Chile", ["Chile", "Ecuador"], "en", "correct"),
    ("Chile, Ecuador", ["Chile", "Ecuador"], "en", "correct"),
    ("Chile & Ecuador", ["Chile", "Ecuador"], "en", "correct"),
    ("Chile; Ecuador", ["Chile", "Ecuador"], "en", "correct"),
    ("- Chile\n- Ecuador", ["Chile", "Ecuador"], "en", "correct"),
    ("Chile, Ecuador and Peru", ["Chile", "Ecuador"], "en", "incorrect"),
    ("Chile", ["Chile", "Ecuador"], "en", "incorrect"),
    ("4220 m, 13,845 ft", ["4220 m", "13,845 ft"], "en", "correct"),
    ("In addition to Peru, Chile and Ecuador also earned 2 bronze medals.", ["Chile", "Ecuador"], "en", "correct"),
    ("The countries are Chile, Ecuador and Brazil.", ["Chile", "Ecuador"], "en", "incorrect"),
])
def test_lists(answer: str, gold: list[str], lang: str, verdict: str) -> None:
    assert judge_text(answer, gold, language=lang).verdict == verdict
