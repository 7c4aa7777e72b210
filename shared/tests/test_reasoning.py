"""Thinking kept apart from the final answer (livetab.reasoning: inference, the rule judge and the LLM judges)."""

from __future__ import annotations

import pytest
from livetab.models.base import Completion
from livetab.reasoning import split_completion, split_reasoning, strip_thinking


@pytest.mark.parametrize(("text", "answer", "reasoning"), [
    ("42", "42", ""),
    ("<think>rows 3 and 5 match</think>\n\n2", "2", "rows 3 and 5 match"),
    ("<THINK>a</THINK> x <thinking>b</thinking> y", "x  y", "a\n\nb"),
    ("the template opened it, so only the close shows</think>Paris", "Paris", "the template opened it, so only the close shows"),
    ("<think>cut off by max_tokens, never closed", "", "cut off by max_tokens, never closed"),
    ("Answer: 5 <reasoning>sum of column</reasoning>", "Answer: 5", "sum of column"),
    ("a < b and c > d", "a < b and c > d", ""),
    # every closing tag without an opening one ends thinking: the answer is after the last
    ("30?</think>no, 40?</think>Answer: 40", "Answer: 40", "30?\n\nno, 40?"),
    ("maybe true</think>False", "False", "maybe true"),  # an LLM judge's reply; its label is False
    ("40<think>check</think>5", "40 5", "check"),  # two numbers around a block do not merge into 405
    ("<think>a <think>b</think> c", "c", "a\n\nb"),
])
def test_split_reasoning(text: str, answer: str, reasoning: str) -> None:
    assert split_reasoning(text) == (answer, reasoning)


def test_a_reasoning_field_comes_first() -> None:
    assert split_reasoning("<think>inline</think>ok", "from the field") == ("ok", "from the field\n\ninline")


def test_split_completion_keeps_token_counts() -> None:
    c = Completion(text="<think>t</think>True", prompt_tokens=9, completion_tokens=4, latency_ms=3.0)
    out = split_completion(c)
    assert (out.text, out.reasoning, out.prompt_tokens, out.completion_tokens) == ("True", "t", 9, 4)
    plain = Completion(text="False")
    assert split_completion(plain) is plain


def test_strip_thinking_is_the_answer_alone() -> None:
    assert strip_thinking("  plain answer ") == "plain answer"
    assert strip_thinking("<think>never finished 40") == ""
    assert strip_thinking("<THINKING>x</THINKING>True") == "True"
