"""Thinking kept apart from the final answer."""

from __future__ import annotations

import pytest
from livetab.models.base import Completion
from livetab_inference.reasoning import split_completion, split_reasoning


@pytest.mark.parametrize(("text", "answer", "reasoning"), [
    ("42", "42", ""),
    ("<think>rows 3 and 5 match</think>\n\n2", "2", "rows 3 and 5 match"),
    ("<THINK>a</THINK> x <thinking>b</thinking> y", "x  y", "a\n\nb"),
    ("the template opened it, so only the close shows</think>Paris", "Paris", "the template opened it, so only the close shows"),
    ("<think>cut off by max_tokens, never closed", "", "cut off by max_tokens, never closed"),
    ("Answer: 5 <reasoning>sum of column</reasoning>", "Answer: 5", "sum of column"),
    ("a < b and c > d", "a < b and c > d", ""),
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
