"""A reasoning model's thinking kept apart from its final answer: the one place that reads think tags.

Reasoning models return their thinking either in a separate field (`reasoning_content` / `reasoning`,
already in `Completion.reasoning`) or inline as `<think>...</think>` blocks (also `<thinking>`,
`<reasoning>`, any case). Some chat templates open the block in the prompt, so the output starts
mid-thought and only a closing tag appears: everything before the last unmatched closing tag is
thinking. An output cut off by `max_tokens` may open a block and never close it: everything after that
opening tag is thinking, and such an output has no answer. The answer is what remains outside.

Used by the inference service (the completion it records), the rule judge (`livetab.rubric.extract`)
and the LLM judges (their replies).
"""

from __future__ import annotations

import re
from dataclasses import replace

from livetab.models.base import Completion

__all__ = ["split_completion", "split_reasoning", "strip_thinking"]

_TAG = re.compile(r"<(/?)(?:think|thinking|reasoning)>", re.IGNORECASE)


def _join(parts: list[str]) -> str:
    """The answer's pieces around removed blocks, a space kept between two that would otherwise touch."""
    out = ""
    for p in parts:
        if out and p and not out[-1].isspace() and not p[0].isspace():
            out += " "
        out += p
    return out


def split_reasoning(text: str, reasoning: str = "") -> tuple[str, str]:
    """(answer, reasoning): the thinking in `text` moved out and joined after `reasoning`, in order."""
    thoughts: list[str] = [reasoning.strip()] if reasoning.strip() else []
    if "<" not in text or _TAG.search(text) is None:
        return text.strip(), "\n\n".join(thoughts)
    answer: list[str] = []
    inside = False
    pos = 0
    for m in _TAG.finditer(text):
        segment = text[pos:m.start()]
        pos = m.end()
        closing = m.group(1) == "/"
        if inside:
            if closing:
                thoughts.append(segment.strip())
                inside = False
            else:  # a nested opening tag is part of the thought
                thoughts.append(segment.strip())
        elif closing:  # no block open: everything so far was thinking (the template opened the block)
            thoughts.append(_join([*answer, segment]).strip())
            answer = []
        else:
            answer.append(segment)
            inside = True
    rest = text[pos:]
    if inside:
        thoughts.append(rest.strip())  # opened and never closed: cut off while thinking
    else:
        answer.append(rest)
    return _join(answer).strip(), "\n\n".join(t for t in thoughts if t)


def strip_thinking(text: str) -> str:
    """The final answer alone ('' when the thinking never ended)."""
    if "<" not in text:
        return text.strip()
    return split_reasoning(text)[0]


def split_completion(c: Completion) -> Completion:
    """The completion with its text reduced to the final answer and all thinking in `reasoning`."""
    if "<" not in c.text:
        return c
    answer, reasoning = split_reasoning(c.text, c.reasoning)
    if answer == c.text and reasoning == c.reasoning:
        return c
    return replace(c, text=answer, reasoning=reasoning)
