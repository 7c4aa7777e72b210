"""The validator's rubric and the TabFact agreement measurement (arithmetic checked with scripted raters;
the real local model's figure comes from test_validator_model.py / `python -m livetab_qagen.validator`)."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from livetab.models.base import Completion, GenerateRequest
from livetab.questions import Gold, Question
from livetab.rubric import judge_answer
from livetab.tables import Source, Table
from livetab_qagen.validator import (
    answers_match,
    cohen_kappa,
    load_tabfact,
    measure_tabfact_agreement,
    parse_verdict,
    validator_trials,
)


@pytest.mark.parametrize("pred, gold, ok", [
    ("around 40", Gold(kind="number", number=40.0), True),
    ("1.883", Gold(kind="number", number=1.889), True),
    ("25%", Gold(kind="number", number=0.25), True),
    ("41", Gold(kind="number", number=40.0), False),
    ("The answer is England.", Gold(kind="text", text="England"), True),
    ("english", Gold(kind="text", text="England"), False),
    ("Yes", Gold(kind="boolean", boolean=True), True),
    ("False, it is not", Gold(kind="boolean", boolean=True), False),
    ("Bo, Ann", Gold(kind="list", items=["Ann", "Bo"]), True),
    ("The table is missing that value.", Gold(kind="insufficient"), True),
    ("The rows contradict each other", Gold(kind="contradictory"), True),
    ("12", Gold(kind="insufficient"), False),
])
def test_answers_match(pred: str, gold: Gold, ok: bool) -> None:
    assert answers_match(pred, gold) is ok


@pytest.mark.parametrize("pred, gold, ok", [
    ("٤٠", Gold(kind="number", number=40.0), True),
    ("أربعون", Gold(kind="number", number=40.0), True),
    ("الإجابة هي ٣٫٥", Gold(kind="number", number=3.5), True),
    ("٤١", Gold(kind="number", number=40.0), False),
    ("نعم", Gold(kind="boolean", boolean=True), True),
    ("القاهرة", Gold(kind="text", text="القاهره"), True),  # taa marbuta written as haa
])
def test_arabic_trial_answers_are_judged_as_the_judge_would(pred: str, gold: Gold, ok: bool) -> None:
    """The validator judges with the shared rubric, so Arabic number words, the Arabic decimal separator and
    spelling variants count (its former English-only matcher failed "أربعون", "٣٫٥" and "القاهرة")."""
    assert answers_match(pred, gold, language="ar") is ok
    question = Question(id="q", table_id="t", family="lookup", text="?", gold=gold, language="ar")
    assert (judge_answer(pred, question).verdict == "correct") is ok


def test_options_are_counted_from_one_as_the_judge_counts_them() -> None:
    options = ["Ann", "Bo", "Cy"]
    assert answers_match("B", Gold(kind="option", option=2), options=options)
    assert answers_match("Bo", Gold(kind="option", option=2), options=options)
    assert not answers_match("b) ", Gold(kind="option", option=1), options=options)


def test_parse_verdict() -> None:
    assert parse_verdict("True") is True and parse_verdict("The statement is false.") is False
    assert parse_verdict("صح") is True and parse_verdict("I am not sure about it at all") is None


def test_cohen_kappa_known_values() -> None:
    assert cohen_kappa([(True, True), (False, False)] * 5) == 1.0
    assert cohen_kappa([(True, True), (False, True)] * 5) == 0.0
    # 20 items: 15 agree; human 10/10, model 12 True/8 False -> pe = .5*.6 + .5*.4 = .5, kappa = (.75-.5)/.5
    pairs = [(True, True)] * 9 + [(False, False)] * 6 + [(False, True)] * 3 + [(True, False)] * 1 + [(False, True)]
    assert abs(cohen_kappa(pairs) - 0.5) < 1e-9


def test_tabfact_statements_load_balanced() -> None:
    items = load_tabfact()
    assert len(items) == 302 and Counter(i.label for i in items) == {True: 151, False: 151}
    assert all(len(r) == len(i.columns) for i in items for r in i.rows)
    first40 = load_tabfact(40)
    assert first40 == items[:40] and 12 <= sum(i.label for i in first40) <= 28


class Constant:
    """A rater that always says the same thing: measurement scaffolding with a known expected result."""

    def __init__(self, text: str) -> None:
        self.name = f"constant-{text}"
        self.text = text

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        assert request.messages[0].role == "system"
        return [Completion(text=self.text)] * max(1, request.sampling.n)


def test_agreement_measurement_arithmetic() -> None:
    report = measure_tabfact_agreement(Constant("True"))
    assert report.n == 302 and report.accuracy == 0.5 and report.kappa == 0.0
    assert report.confusion == {"human_false__model_true": 151, "human_true__model_true": 151}
    unsure = measure_tabfact_agreement(Constant("maybe"), limit=10)
    assert unsure.unparsed == 10 and unsure.accuracy == 0.0


def test_validator_trials_count_right_answers() -> None:
    table = Table(id="t", source=Source(kind="test"), header=[["name", "score"]], rows=[["Ann", "3"], ["Bo", "5"]])
    res = asyncio.run(validator_trials(Constant("5"), table, "What is Bo's score?", Gold(kind="number", number=5),
                                       k=4))
    assert (res.correct, res.trials) == (4, 4)
