"""The rule judge at the edges of its rules: which rule decides, on real-looking answers.

Written against the survivors of `make mutation` (group rubric_judge) among the mutants of `_judge_number`,
`_candidates`, `_find_mention` and `_judge_text` first checked on 1 December 2026 (docs/mutation.md). Each
case asserts the verdict and the rule that decided it (the rationale stored with every judgment).
"""

from __future__ import annotations

import pytest
from livetab.rubric import RuleVerdict, judge_text


def decided(v: RuleVerdict) -> tuple[str, str]:
    """The verdict and the rule, without the extraction method ("number matches [whole]")."""
    return v.verdict, v.rationale.rsplit(" [", 1)[0]


LIST_ITEM = "the answer states the gold as one item of a list"
STATES = "the answer states the gold"
NEGATION = "the answer contains a negation"


@pytest.mark.parametrize(("response", "gold", "question", "verdict", "why"), [
    # a zero gold: only a zero word answers it, not any word
    ("Several.", "0", "How many titles did they win?", "incorrect", "no number in the answer"),
    ("Unknown", "0", "", "incorrect", "no number in the answer"),
    ("None.", "0", "How many titles did they win?", "correct", "zero stated in words"),
    # a "cannot answer" phrase decides only beside zero or one number: here it is about something else
    ("5 goals in total (5 in the league); the table does not provide enough information on assists.", "5", "",
     "correct", "number matches"),
    ("5 goals; the table does not provide enough information.", "5", "", "uncertain",
     "gives the number but also says the table cannot answer"),
    # a year gold: the other numbers of the sentence are context, at both ends of the year window
    ("It was founded in 1000, with 12 monks.", "1000", "In which year was the abbey founded?", "correct",
     "number matches"),
    ("The treaty runs until 2100 and covers 4 states.", "2100", "Until which year does the treaty run?", "correct",
     "number matches"),
])
def test_number_edges(response: str, gold: str, question: str, verdict: str, why: str) -> None:
    assert decided(judge_text(response, gold, question=question)) == (verdict, why)


@pytest.mark.parametrize(("response", "gold", "verdict", "why"), [
    # the whole answer is the gold up to a slip: a word split in two, a letter dropped in a long gold
    ("New castle", "Newcastle", "correct", "text matches up to a minor spelling slip"),
    ("Unitd States of America", "United States of America", "correct", "text matches up to a minor spelling slip"),
    # a slip inside a sentence is found where it stands: the negation before it, the list around it
    ("Not Barcelonna but Madrid.", "Barcelona", "uncertain", NEGATION),
    ("Madrid, Sevilla and Barcelonna", "Barcelona", "uncertain", LIST_ITEM),
    ("Lyon, Nice and Pariss", "Paris", "uncertain", LIST_ITEM),
    # the first mention of the gold is the answer: here it opens a list
    ("Paris, Lyon and Nice are big; the capital is Paris.", "Paris", "uncertain", LIST_ITEM),
    ("Paris, Lyon and Nice host games, and the final is in Paris.", "Paris", "uncertain", LIST_ITEM),
    # a negation before a whole-answer mention (a season range; both values of a two-value cell)
    ("Not 1936–37.", "1936/37", "uncertain", NEGATION),
    ("Not Ali and Omar.", "Ali / Omar", "uncertain", NEGATION),
    ("Ali Hassan and Omar", "Ali Hassan / Omar", "correct", STATES),
    # a two-value cell whose first value has two words, named as items of a longer comma list
    ("Ali Hassan, Omar, Sami", "Ali Hassan / Omar", "uncertain", LIST_ITEM),
    ("Sami, Ali Hassan, Omar", "Ali Hassan / Omar", "uncertain", LIST_ITEM),
    ("Omar, Sami, Ali Hassan", "Ali Hassan / Omar", "uncertain", LIST_ITEM),
    ("Omar and Ali Hassan, Sami", "Ali Hassan / Omar", "uncertain", LIST_ITEM),
])
def test_text_mention_edges(response: str, gold: str, verdict: str, why: str) -> None:
    assert decided(judge_text(response, gold)) == (verdict, why)


def test_a_gold_with_a_number_is_no_restated_condition() -> None:
    """The gold's own number before the question's unit word ("24 Hours" for a question about 6 hours) is
    part of the name, not the question's condition restated with another number."""
    v = judge_text("It was the 24 Hours of Le Mans.", "24 Hours of Le Mans",
                   question="Which endurance race was stopped after 6 hours?")
    assert decided(v) == ("correct", STATES)
    v = judge_text("The United States had 12 wins.", "United States", question="Which nationality had 13 wins?")
    assert decided(v) == ("uncertain", "the answer restates the question's condition with another number")


MEDALS = [["1", "France"], ["2", "Italy"], ["3", "Spain"]]
MEDALS_AR = [["1", "فرنسا"], ["2", "إيطاليا"], ["3", "إسبانيا"]]


@pytest.mark.parametrize(("response", "gold", "lang", "table", "other"), [
    # the gold first in the answer, another value of its column after it
    ("Italy and Spain won gold.", "Italy", "en", MEDALS, "spain"),
    ("فازت إيطاليا وإسبانيا بالذهب.", "إيطاليا", "ar", MEDALS_AR, "اسبانيا"),
    ("وإيطاليا وإسبانيا", "إيطاليا", "ar", MEDALS_AR, "اسبانيا"),
])
def test_the_gold_first_then_another_value_of_its_column(response: str, gold: str, lang: str,
                                                         table: list[list[str]], other: str) -> None:
    v = judge_text(response, gold, language=lang, table=table)
    assert decided(v) == ("incorrect", f"the answer lists {other!r}, another value of the asked column, with the gold")


@pytest.mark.parametrize(("response", "gold", "lang"), [
    # the last item after "or" / "and", with or without a serial comma, and the gold at either end
    ("Paris, Lyon or Nice", "Paris", "en"),
    ("Lyon, Nice or Paris", "Paris", "en"),
    ("Lyon, Nice, or Paris", "Paris", "en"),
    ("Lyon, Nice, and Paris", "Paris", "en"),
    ("Paris, Lyon, and Nice", "Paris", "en"),
    # items joined by semicolons: once a false accept ("Spain; Italy; France" was correct for Italy)
    ("Spain; Italy; France", "Italy", "en"),
    ("إسبانيا؛ إيطاليا؛ فرنسا", "إيطاليا", "ar"),
])
def test_the_gold_as_one_item_of_a_list(response: str, gold: str, lang: str) -> None:
    assert decided(judge_text(response, gold, language=lang)) == ("uncertain", LIST_ITEM)


def test_a_semicolon_that_ends_a_sentence_is_no_list() -> None:
    assert decided(judge_text("Italy; it won the most golds.", "Italy")) == ("correct", STATES)


def test_each_table_is_judged_by_its_own_view() -> None:
    """The views of tables are cached by table id, release and size: two tables judged one after the other
    never share a view (a cache under one key would judge the second answer against the first table)."""
    from livetab.tables import Source, Table

    medals = Table(id="t-medals", source=Source(kind="test"), header=[["Rank", "Nation"]], rows=MEDALS)
    cities = Table(id="t-cities", source=Source(kind="test"), header=[["Rank", "City"]],
                   rows=[["1", "Rome"], ["2", "Milan"], ["3", "Spain Street"]])
    assert decided(judge_text("Italy and Spain won gold.", "Italy", table=medals)) == (
        "incorrect", "the answer lists 'spain', another value of the asked column, with the gold")
    assert decided(judge_text("Rome and Milan are the biggest.", "Rome", table=cities)) == (
        "incorrect", "the answer lists 'milan', another value of the asked column, with the gold")
    assert judge_text("Italy and Spain won gold.", "Italy", table=cities).verdict != "incorrect"


@pytest.mark.parametrize("response", [
    "Cataraqui Town Centre and St. Lawrence College are its stops.",  # the joined mention inside a sentence
    "From Cataraqui it goes on: Cataraqui Town Centre and St. Lawrence College.",  # the first word seen before
])
def test_a_cell_of_two_names_answered_with_and(response: str) -> None:
    """WTQ's flattened two-line cell, answered as two names joined by "and" (rubric/cellparts.py)."""
    assert decided(judge_text(response, "Cataraqui Town Centre St. Lawrence College")) == ("correct", STATES)
