"""Gold answers prepared for the rule judge (`rubric.gold`): the kind, keys, numbers, dates and parts the
rubric reads from a gold, from raw strings (WTQ) and from a question's typed gold, English and Arabic.

Written against the survivors of `make mutation` (group rubric_judge).
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict

import pytest
from livetab.questions import Gold, Question
from livetab.rubric import gold as gold_module
from livetab.rubric import judge_answer, judge_text
from livetab.rubric.gold import gold_item, prepare_gold, spec_from_strings
from livetab.rubric.locale import get_locale

EN, AR = get_locale("en"), get_locale("ar")


def test_keys_of_a_name_with_an_article_and_a_bracket() -> None:
    item = gold_item("The Beatles (band)", EN)
    assert item.keys == ("the beatles band", "beatles band", "the beatles")
    assert item.tokens == frozenset({"the", "beatles", "band"})
    assert (item.edits, item.number, item.date, item.arabic, item.duration, item.parts) == (2, None, None, False,
                                                                                             None, ())
    # a variant equal to the key, or empty, is not kept twice
    assert gold_item("Chile", EN).keys == ("chile",)
    assert gold_item("The Who", EN).keys == ("the who", "who")
    assert gold_item("12 (approx.)", EN).keys == ("12 approx", "12")
    assert gold_item("(2001)", EN).keys == ("2001",)


@pytest.mark.parametrize(("text", "value", "percent"), [
    ("3 783 069", 3783069.0, False),  # digits grouped by spaces
    ("+38.903", 38.903, False),
    ("12 km/h", 12.0, False),
    ("12 square km", 12.0, False),  # two words beside the number: still a quantity
    ("$1,200", 1200.0, False),
    ("$1,200 per month", 1200.0, False),
    ("~40 people", 40.0, False),
    ("25%", 25.0, True),
    ("415 pages", 415.0, False),
    ("12x", 12.0, False),
    ("٣٥٠ كم", 350.0, False),
])
def test_a_gold_that_is_a_quantity(text: str, value: float, percent: bool) -> None:
    item = gold_item(text, AR if text[0] == "٣" else EN)
    assert item.number is not None
    assert (item.number.value, item.number.percent) == (value, percent)
    assert (item.date, item.duration, item.parts, item.arabic) == (None, None, (), False)


@pytest.mark.parametrize("text", [
    "12 km per hour",  # three words beside the number: a phrase, not a quantity
    "Chapter 11", "No. 5", "Apollo 13", "E 4", "x12", "#1 pick",  # a name with a number in it
    "1 to 2", "10 - 12",  # two numbers
])
def test_a_gold_that_is_not_a_quantity(text: str) -> None:
    assert gold_item(text, EN).number is None
    assert spec_from_strings(text).kind == "text"


def test_dates_durations_and_parts() -> None:
    assert gold_item("March 4, 2006", EN).date == (2006, 3, 4)
    assert gold_item("March 4, 2006", EN).number is None  # a date, not the number 4
    assert gold_item("2006-03-04", EN).date == (2006, 3, 4)
    assert gold_item("May 2004", EN).date == (2004, 5, None)
    year = gold_item("2006", EN)  # a bare year is a number, not a date
    assert (year.date, year.number is not None) == (None, True)
    assert gold_item("1:47.61", EN).duration == pytest.approx(107.61)
    assert gold_item("5h 29' 10\"", EN).duration == 19750.0
    assert gold_item("2 h 5 min", EN).duration == 7500.0
    assert gold_item("5 hours", EN).duration is None  # a number: one value, no clock
    assert gold_item("Cataraqui Town Centre / St. Lawrence College", EN).parts == (
        "cataraqui town centre", "st lawrence college")
    assert gold_item("Ali / Omar", EN).parts == ("ali", "omar")
    assert gold_item("القاهرة/الجيزة", AR).parts == ("القاهره", "الجيزه")
    assert gold_item("Ali /", EN).parts == ()  # one part is no split
    assert gold_item("12 km/h", EN).parts == ()  # a quantity
    # the typed number of a question's gold wins over what its text reads as
    given = gold_item("March 4, 2006", EN, number=4.0)
    assert (given.number is not None and given.number.value, given.date) == (4.0, None)
    assert given.number is not None and given.number.percent is False
    assert gold_item("25", EN, number=25.0, percent=True).number.percent is True  # type: ignore[union-attr]
    assert gold_item("2006", EN, parse=False).number is None


def test_arabic_entities() -> None:
    assert gold_item("الرياض", AR).arabic is True
    assert gold_item("٣٥٠ كم", AR).arabic is False  # a quantity, not an entity
    assert gold_item("Riyadh", EN).arabic is False


@pytest.mark.parametrize(("gold", "language", "truth"), [
    ("yes", "en", True), ("No", "en", False), ("true", "en", True), ("False", "en", False),
    ("نعم", "ar", True), ("صحيح", "ar", True), ("خطأ", "ar", False), ("لا", "ar", False),
])
def test_boolean_golds(gold: str, language: str, truth: bool) -> None:
    spec = spec_from_strings(gold, language=language)
    assert (spec.kind, spec.boolean) == ("boolean", truth)


@pytest.mark.parametrize(("gold", "year_like"), [
    ("1000", True), ("2100", True), ("1936", True), ("999", False), ("2101", False), ("1999.5", False),
    ("Paris", False),
])
def test_year_like_golds(gold: str, year_like: bool) -> None:
    assert spec_from_strings(gold).year_like is year_like


def test_kinds_from_strings() -> None:
    assert spec_from_strings("2006").kind == "number"
    forced = spec_from_strings("2006", kind="text")
    assert (forced.kind, forced.items[0].number) == ("text", None)
    assert spec_from_strings("Paris", kind="free").kind == "free"
    listed = spec_from_strings(["2001", "2002"])
    assert (listed.kind, len(listed.items), listed.year_like) == ("list", 2, True)
    assert spec_from_strings(["Paris"]).kind == "text"
    with pytest.raises(ValueError, match=r"^gold answer is empty$"):
        spec_from_strings([])
    asked = spec_from_strings("12", question="Which team had 13 wins in 2004?")
    assert asked.context is not None
    assert [n.value for n in asked.question_numbers] == [13.0, 2004.0]
    assert spec_from_strings("12").context is None
    assert spec_from_strings("12").question_numbers == ()


def test_the_string_cache_keys_on_everything_the_spec_depends_on() -> None:
    assert spec_from_strings("2006").kind == "number"
    assert spec_from_strings("2006", kind="text").kind == "text"
    assert spec_from_strings("2006", language="ar").loc.arabic is True
    assert spec_from_strings("2006", question="Which year?").context is not None
    assert spec_from_strings(["2006"]).kind == "number"
    assert spec_from_strings("2006") is spec_from_strings("2006")


def test_the_caches_stay_bounded_and_drop_the_oldest(monkeypatch: pytest.MonkeyPatch) -> None:
    size = 8  # the bound (4096 in use) made small so that the test fills the caches quickly
    monkeypatch.setattr(gold_module, "_CACHE_SIZE", size)
    monkeypatch.setattr(gold_module, "_STR_CACHE", OrderedDict())
    monkeypatch.setattr(gold_module, "_CACHE", OrderedDict())
    first = spec_from_strings("gold 0")
    for i in range(1, size + 1):
        spec_from_strings(f"gold {i}")
    assert len(gold_module._STR_CACHE) == size
    assert ("gold 0", "en", None, "") not in gold_module._STR_CACHE
    assert (f"gold {size}", "en", None, "") in gold_module._STR_CACHE
    assert spec_from_strings("gold 0") is not first
    for i in range(size + 1):
        prepare_gold(_question(Gold(kind="text", text=f"gold {i}"), qid=f"q{i}"))
    assert len(gold_module._CACHE) == size
    assert not any(k[0] == "q0" for k in gold_module._CACHE)


# --- a question's typed gold ------------------------------------------------------------------------------

def _question(gold: Gold, *, qid: str = "q", lang: str = "en", text: str = "How many?",
              options: list[str] | None = None) -> Question:
    return Question(id=qid, table_id="t", family="fact", text=text, gold=gold, language=lang, options=options or [])


@pytest.mark.parametrize("unit", ["%", " Percent ", "٪"])
def test_a_percent_gold(unit: str) -> None:
    spec = prepare_gold(_question(Gold(kind="number", number=25.0, unit=unit, text="25")))
    assert spec.items[0].number is not None and spec.items[0].number.percent is True
    assert judge_answer("25%", _question(Gold(kind="number", number=25.0, unit=unit, text="25"))).verdict == "correct"
    assert judge_answer("0.25", _question(Gold(kind="number", number=25.0, unit=unit, text="25"))).verdict \
        == "correct"


def test_number_golds() -> None:
    spec = prepare_gold(_question(Gold(kind="number", number=1200.0, unit="km", text="1,200")))
    assert (spec.kind, spec.items[0].number.value, spec.items[0].number.percent) == (  # type: ignore[union-attr]
        "number", 1200.0, False)
    assert spec.items[0].keys == ("1 200",)
    bare = prepare_gold(_question(Gold(kind="number", number=7.5)))  # no text: the number written out
    assert bare.items[0].keys == ("7 5",)
    assert prepare_gold(_question(Gold(kind="number", number=1936.0, text="1936"))).year_like is True
    q = _question(Gold(kind="number", number=13.0, text="13"), text="How many wins did the team with 20 draws have?")
    spec = prepare_gold(q)
    assert spec.context is not None and [n.value for n in spec.question_numbers] == [20.0]
    assert spec.loc.language == "en"
    assert prepare_gold(_question(Gold(kind="number", number=13.0, text="13"), lang="ar")).loc.arabic is True


def test_list_boolean_and_text_golds() -> None:
    listed = prepare_gold(_question(Gold(kind="list", items=["Chile", "Peru"], text="Chile, Peru")))
    assert (listed.kind, [it.text for it in listed.items]) == ("list", ["Chile", "Peru"])
    single = prepare_gold(_question(Gold(kind="list", text="Chile")))  # no items: the text is the one item
    assert [it.text for it in single.items] == ["Chile"]
    yes = prepare_gold(_question(Gold(kind="boolean", boolean=True)))
    assert (yes.kind, yes.boolean, yes.items[0].text) == ("boolean", True, "true")
    no = prepare_gold(_question(Gold(kind="boolean", boolean=False)))
    assert (no.boolean, no.items[0].text) == (False, "false")
    worded = prepare_gold(_question(Gold(kind="boolean", boolean=False, text="No")))
    assert (worded.boolean, worded.items[0].text) == (False, "No")
    text = prepare_gold(_question(Gold(kind="text", text="Paris")))
    assert (text.kind, text.items[0].keys) == ("text", ("paris",))
    # a text gold that reads as another kind is judged as that kind
    assert prepare_gold(_question(Gold(kind="text", text="1936"))).kind == "number"
    assert prepare_gold(_question(Gold(kind="text", text="March 4, 2006"))).kind == "date"
    inferred = prepare_gold(_question(Gold(kind="text", text="Yes")))
    assert (inferred.kind, inferred.boolean) == ("boolean", True)
    assert prepare_gold(_question(Gold(kind="text", text="No"))).boolean is False


@pytest.mark.parametrize("kind", ["insufficient", "contradictory", "free"])
def test_imperfect_and_free_golds(kind: str) -> None:
    spec = prepare_gold(_question(Gold(kind=kind)))
    assert (spec.kind, spec.items[0].text, spec.items[0].number) == (kind, kind, None)
    worded = prepare_gold(_question(Gold(kind=kind, text="42 or 43")))
    assert (worded.items[0].text, worded.items[0].number) == ("42 or 43", None)


def test_option_golds() -> None:
    options = ["10 MHz", "-15 MHz", "20 MHz"]
    spec = prepare_gold(_question(Gold.for_option(options, 3), options=options))
    assert (spec.kind, spec.option, spec.option_keys) == ("option", 3, ("10 mhz", "minus 15 mhz", "20 mhz"))
    assert spec.items[0].text == "20 MHz" and spec.items[0].number is None
    for bad in (0, 4):
        with pytest.raises(ValueError, match=rf"^option gold {bad} is not a position in 1\.\.3$"):
            prepare_gold(_question(Gold(kind="option", option=bad, text="20 MHz"), options=options))
    unusable = judge_answer("Option 3", _question(Gold(kind="option", option=4, text="x"), options=options))
    assert (unusable.verdict, unusable.extracted) == ("uncertain", "")
    assert unusable.rationale == "gold unusable: option gold 4 is not a position in 1..3"
    with pytest.raises(ValueError, match=r"^unknown gold kind 'table'$"):
        prepare_gold(_question(Gold(kind="table", text="x")))


def test_the_question_cache_keys_on_everything_the_spec_depends_on() -> None:
    """A question regenerated under the same id with another gold is judged against the new gold."""
    options = ["Red", "Blue", "Green"]
    base = _question(Gold(kind="option", option=2, text="Blue"), qid="same", options=options)
    assert prepare_gold(base).option == 2
    changes: list[Question] = [
        dataclasses.replace(base, text="Which colour is second?"),
        dataclasses.replace(base, language="ar"),
        dataclasses.replace(base, options=["Red", "Blue", "Green", "Black"]),
        dataclasses.replace(base, gold=Gold(kind="option", option=3, text="Green")),
        dataclasses.replace(base, gold=Gold(kind="text", text="Blue")),
    ]
    first = prepare_gold(base)
    for changed in changes:
        assert prepare_gold(changed) != first
    num = _question(Gold(kind="number", number=12.0, text="12"), qid="n")
    assert prepare_gold(num).items[0].number.value == 12.0  # type: ignore[union-attr]
    assert prepare_gold(dataclasses.replace(num, gold=Gold(kind="number", number=13.0, text="12"))).items[
        0].number.value == 13.0  # type: ignore[union-attr]
    assert prepare_gold(dataclasses.replace(num, gold=Gold(kind="number", number=12.0, text="13"))).items[
        0].text == "13"
    assert prepare_gold(dataclasses.replace(num, gold=Gold(kind="number", number=12.0, text="12", unit="%"))).items[
        0].number.percent is True  # type: ignore[union-attr]
    lst = _question(Gold(kind="list", items=["a", "b"], text="a, b"), qid="l")
    assert len(prepare_gold(lst).items) == 2
    assert len(prepare_gold(dataclasses.replace(lst, gold=Gold(kind="list", items=["a", "b", "c"],
                                                                text="a, b"))).items) == 3
    yes = _question(Gold(kind="boolean", boolean=True, text="yes"), qid="b")
    assert prepare_gold(yes).boolean is True
    assert prepare_gold(dataclasses.replace(yes, gold=Gold(kind="boolean", boolean=False, text="yes"))).boolean is False
    assert prepare_gold(dataclasses.replace(yes, id="other")) == prepare_gold(yes)
    assert judge_text("yes", "yes").verdict == "correct"
