"""Answer extraction at the edges of its input: a response of markdown marks only, markers followed by a
fullwidth colon (which `fold` makes a plain one), a one-word marker without its colon."""

from __future__ import annotations

import pytest
from livetab.rubric import judge_text
from livetab.rubric.extract import extract_answer
from livetab.rubric.locale import get_locale
from livetab.rubric.text import fold


@pytest.mark.parametrize(("response", "gold", "language"), [
    ("***", ["Paris"], "en"), ("**\n##", ["Paris"], "en"), ("***", ["الرياض"], "ar"), ("# ", ["الرياض"], "ar"),
])
def test_a_response_of_markdown_marks_only_is_no_answer(response: str, gold: list[str], language: str) -> None:
    # the marks are stripped and nothing is left: no line to take the answer from
    assert extract_answer(fold(response), get_locale(language)) == ("", "whole")
    v = judge_text(response, gold, language=language)
    assert (v.verdict, v.extracted, v.rationale) == ("incorrect", "", "no answer (whole)")


@pytest.mark.parametrize(("response", "gold", "language", "span"), [
    ("Answer：Paris", ["Paris"], "en", "paris"), ("Final answer：Paris", ["Paris"], "en", "paris"),
    ("الإجابة：الرياض", ["الرياض"], "ar", "الرياض"),
])
def test_a_marker_with_a_fullwidth_colon_is_a_marker(response: str, gold: list[str], language: str,
                                                       span: str) -> None:
    assert extract_answer(fold(response), get_locale(language)) == (span, "marker")
    v = judge_text(response, gold, language=language)
    assert (v.verdict, v.rationale) == ("correct", "text matches [marker]")


@pytest.mark.parametrize(("response", "language", "expected"), [
    ("Answer Paris", "en", ("answer paris", "whole")),  # a one-word marker alone is no marker
    ("Answer: Paris", "en", ("paris", "marker")), ("Answer : Paris", "en", ("paris", "marker")),
    ("The answer is Paris", "en", ("paris", "marker")),
    ("الإجابة: الرياض", "ar", ("الرياض", "marker")), ("الإجابة هي الرياض", "ar", ("الرياض", "marker")),
])
def test_one_word_markers_need_their_colon(response: str, language: str, expected: tuple[str, str]) -> None:
    assert extract_answer(fold(response), get_locale(language)) == expected
