"""Multiple choice: the forms a response names an option in, read by `rubric.mcq` and judged by the rule judge.

Written against the survivors of `make mutation` (group rubric_judge): each case is a response a model gives
to a real-looking multiple-choice question, English and Arabic.
"""

from __future__ import annotations

import pytest
from livetab.questions import Gold, Question
from livetab.rubric import judge_answer
from livetab.rubric.locale import get_locale
from livetab.rubric.mcq import chosen_options, option_key, read_choice
from livetab.rubric.text import fold

EN, AR = get_locale("en"), get_locale("ar")
BANDWIDTH = ["10 MHz", "15 MHz", "20 MHz", "5 MHz"]
BLOOD = ["Type A", "Type AB", "Type B", "Type O"]


def mcq(options: list[str], position: int, *, lang: str = "en", text: str = "Which option is right?") -> Question:
    return Question(id=f"mcq-{position}-{options[0]}", table_id="t", family="fact", text=text,
                    gold=Gold.for_option(options, position), language=lang, options=options)


def keys(options: list[str]) -> list[str]:
    return [option_key(o) for o in options]


def test_two_letters_are_no_option_label() -> None:
    # "ab" is a substring of the alphabet, not a letter: it once read as option a ("Type A"), a false accept
    assert read_choice("ab", keys(BLOOD), EN).options == frozenset()
    assert judge_answer("AB", mcq(BLOOD, 1)).verdict == "incorrect"
    assert judge_answer("Type AB", mcq(BLOOD, 2)).verdict == "correct"
    assert judge_answer("B", mcq(BLOOD, 2)).verdict == "correct"


def test_a_letter_past_the_last_option_points_at_none() -> None:
    assert read_choice("e", keys(BANDWIDTH), EN).options == frozenset()
    assert read_choice("5", keys(BANDWIDTH), EN).options == frozenset()
    assert read_choice("d", keys(BANDWIDTH), EN).options == frozenset({4})
    # a label past the options is no second choice beside the right one
    assert judge_answer("Option 2 (option 7 is not listed)", mcq(BANDWIDTH, 2)).verdict == "correct"


def test_chosen_options_are_the_positions_read() -> None:
    assert chosen_options("c", keys(BANDWIDTH), EN) == {3}
    assert chosen_options("either option 2 or option 3", keys(BANDWIDTH), EN) == {2, 3}
    assert chosen_options("i cannot tell", keys(BANDWIDTH), EN) == set()
    assert chosen_options(fold("الخيار ب"), keys(["أحمر", "أزرق", "أخضر"]), AR) == {2}


def test_an_option_text_that_is_a_number_is_the_option_not_a_position() -> None:
    years = ["1990", "1", "3", "2"]
    assert judge_answer("1", mcq(years, 2)).verdict == "correct"
    assert judge_answer("3", mcq(years, 3)).verdict == "correct"
    assert judge_answer("1", mcq(years, 1)).verdict == "incorrect"


@pytest.mark.parametrize("response", ["Option 3:", "Option (c):", "(c)", "C."])
def test_a_label_with_nothing_after_it(response: str) -> None:
    assert judge_answer(response, mcq(BANDWIDTH, 3)).verdict == "correct"
    assert judge_answer(response, mcq(BANDWIDTH, 2)).verdict == "incorrect"


def test_an_option_text_inside_a_sentence() -> None:
    assert judge_answer("The channel is 20 MHz wide", mcq(BANDWIDTH, 3)).verdict == "correct"
    assert judge_answer("The channel is 20 MHz wide", mcq(BANDWIDTH, 4)).verdict == "incorrect"
    # "5 MHz" inside "15 MHz" is no second choice
    assert read_choice("it uses 15 mhz", keys(BANDWIDTH), EN).options == frozenset({2})
    assert judge_answer("القناة بعرض ٢٠ ميغاهرتز", mcq(["١٠ ميغاهرتز", "٢٠ ميغاهرتز"], 2, lang="ar")).verdict \
        == "correct"
