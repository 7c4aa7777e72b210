"""The rule judge on list golds: which rule decides, for bare lists and for sentences, English and Arabic.

Written against the survivors of `make mutation` (group rubric_judge). Each case asserts the verdict and the
rule that decided it (the rationale, stored with every judgment): a bare list is compared item by item, a
sentence by containment with a check for extra short items.
"""

from __future__ import annotations

import pytest
from livetab.questions import Gold, Question
from livetab.rubric import RuleVerdict, judge_answer, judge_text

WINNERS = ["Chile", "Peru"]


def rule(v: RuleVerdict) -> str:
    """The rationale without the extraction method ("list matches as a set [whole]" -> "list matches as a set")."""
    return v.rationale.rsplit(" [", 1)[0]


@pytest.mark.parametrize(("response", "gold", "verdict", "why"), [
    # a bare list: item by item, as sets
    ("Chile, Peru", WINNERS, "correct", "list matches as a set"),
    ("Peru and Chile", WINNERS, "correct", "list matches as a set"),
    ("Chile, Peru, Brazil", WINNERS, "incorrect", "list has items not in the gold"),
    # an extra item of three words beside one-word gold items is still an item of the bare list
    ("Chile, Peru, New South Wales", WINNERS, "incorrect", "list has items not in the gold"),
    ("Chile", WINNERS, "incorrect", "list misses 1 of 2 gold items"),
    ("Chile, Brazil", ["Chile", "Peru", "Bolivia"], "incorrect", "list misses 2 of 3 gold items"),
    ("Brazil, Argentina", WINNERS, "incorrect", "list misses 2 of 2 gold items"),
    ("Brazil", WINNERS, "incorrect", "no gold item in the answer"),
    # numbers in words match numeric gold items; a different number is a miss
    ("three and twelve", ["3", "12"], "correct", "list matches as a set"),
    ("12, 16", ["12", "15"], "incorrect", "list misses 1 of 2 gold items"),
    # a long description after the names is no item of the list
    ("Lewis Hamilton and Max Verstappen, two Formula One world champions", ["Lewis Hamilton", "Max Verstappen"],
     "correct", "the answer states every gold item"),
    # a sentence: every gold item contained, no extra short item
    ("The winners were Chile and Peru.", WINNERS, "correct", "the answer states every gold item"),
    ("The winners were Chile and Peru, tied on points.", WINNERS, "correct", "the answer states every gold item"),
    ("The winners were Chile, Peru, New Zealand", WINNERS, "incorrect",
     "the answer lists items not in the gold ('new zealand')"),
    ("The winners were Peru and Chille.", WINNERS, "correct", "the answer states every gold item"),
    ("The winners were Peru and Chile (second).", WINNERS, "correct", "the answer states every gold item"),
    ("The winners were Chile and Brazil.", WINNERS, "incorrect", "the answer states 1 of 2 gold items"),
    ("The winners were Brazil and Argentina.", WINNERS, "incorrect", "no gold item in the answer"),
    ("Insufficient information to list them.", WINNERS, "incorrect", "declined an answerable question"),
    ("Chile and Peru did not win", WINNERS, "uncertain", "the answer contains a negation"),
    # Arabic entities must be answered in Arabic
    ("سانتياغو، ليما", ["سانتياغو", "ليما"], "correct", "list matches as a set"),
    ("Santiago, Lima", ["سانتياغو", "ليما"], "incorrect", "Arabic entities answered in another script"),
    ("كانت الفرق الفائزة تشيلي والبيرو.", ["تشيلي", "البيرو"], "correct", "the answer states every gold item"),
    ("كانت الفرق الفائزة تشيلي والبيرو ونيوزيلندا.", ["تشيلي", "البيرو"], "incorrect",
     "the answer lists items not in the gold ('نيوزيلندا')"),
])
def test_list_rules(response: str, gold: list[str], verdict: str, why: str) -> None:
    v = judge_text(response, gold, language="ar" if any("\u0600" <= c <= "\u06ff" for c in gold[0]) else "en")
    assert (v.verdict, rule(v)) == (verdict, why)


def test_a_negated_question_allows_the_negation() -> None:
    v = judge_text("Chile and Peru did not qualify", WINNERS, question="Which countries did not qualify?")
    assert (v.verdict, rule(v)) == ("correct", "the answer states every gold item")


@pytest.mark.parametrize("response", ["three and about twelve", "They scored 3 and about 12."])
def test_list_numbers_use_the_judges_tolerances(response: str) -> None:
    gold = ["3", "12.4"]
    assert judge_text(response, gold).verdict == "incorrect"
    assert judge_text(response, gold, tolerance=0.5, relative_tolerance=0.0).verdict == "correct"
    assert judge_text(response, gold, tolerance=0.0, relative_tolerance=0.05).verdict == "correct"


@pytest.mark.parametrize(("response", "gold", "language", "question", "verdict", "why"), [
    # the question relates the answer to an anchor: every item must stand on the asked side of it
    ("Peru and Bolivia finished after Chile.", ["Peru", "Bolivia"], "en", "Which teams finished after Chile?",
     "correct", "the answer states every gold item"),
    ("Peru and Bolivia finished before Chile.", ["Peru", "Bolivia"], "en", "Which teams finished after Chile?",
     "incorrect", "the answer puts the gold on the other side of the anchor"),
    ("بيرو وبوليفيا أنهتا بعد تشيلي.", ["بيرو", "بوليفيا"], "ar", "ما الفرق التي أنهت بعد تشيلي؟",
     "correct", "the answer states every gold item"),
    ("بيرو وبوليفيا أنهتا قبل تشيلي.", ["بيرو", "بوليفيا"], "ar", "ما الفرق التي أنهت بعد تشيلي؟",
     "incorrect", "the answer puts the gold on the other side of the anchor"),
    # a negation anywhere in the sentence, its first word too
    ("Not Brazil: the winners were Chile and Peru.", WINNERS, "en", "", "uncertain", "the answer contains a negation"),
])
def test_list_sentences_against_the_question(response: str, gold: list[str], language: str, question: str,
                                             verdict: str, why: str) -> None:
    v = judge_text(response, gold, language=language, question=question)
    assert (v.verdict, rule(v)) == (verdict, why)


def test_a_list_question_keeps_its_context() -> None:
    q = Question(id="not-qualified", table_id="t", family="fact", text="Which countries did not qualify?",
                 gold=Gold(kind="list", items=WINNERS, text="Chile, Peru"), language="en")
    v = judge_answer("Chile and Peru did not qualify", q)
    assert (v.verdict, rule(v)) == ("correct", "the answer states every gold item")
