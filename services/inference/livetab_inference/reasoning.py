"""Keep a reasoning model's thinking apart from its final answer.

Reasoning models return their thinking either in a separate field (`reasoning_content` / `reasoning`,
already in `Completion.reasoning`) or inline as `<think>...</think>` blocks (also `<thinking>`,
`<reasoning>`). Some chat templates open the block in the prompt, so the output starts mid-thought
and only a closing tag appears; an output cut off by `max_tokens` may open a block and never close it.
In every case the final answer is what remains outside the blocks.
"""

from __future__ import annotations

import re
from dataclasses import replace

from livetab.models.base import Completion

__all__ = ["split_completion", "split_reasoning"]

_BLOCK = re.compile(r"<(think|thinking|reasoning)>(.*?)</\1>", re.DOTALL | re.IGNORECASE)
_OPEN = re.compile(r"<(think|thinking|reasoning)>", re.IGNORECASE)
_CLOSE = re.compile(r"</(think|thinking|reasoning)>", re.IGNORECASE)


def split_reasoning(text: str, reasoning: str = "") -> tuple[str, str]:
    """Return (answer, reasoning): `<think>` blocks moved out of `text` and joined after `reasoning`."""
    thoughts: list[str] = [reasoning.strip()] if reasoning.strip() else []
    # Output that starts mid-thought: everything before a first closing tag with no opening tag before it.
    first_close = _CLOSE.search(text)
    first_open = _OPEN.search(text)
    if first_close and (first_open is None or first_close.start() < first_open.start()):
        thoughts.append(text[: first_close.start()].strip())
        text = text[first_close.end():]
    for m in _BLOCK.finditer(text):
        thoughts.append(m.group(2).strip())
    text = _BLOCK.sub("", text)
    # A block opened and never closed (cut off by max_tokens): the rest is thinking, not an answer.
    dangling = _OPEN.search(text)
    if dangling:
        thoughts.append(text[dangling.end():].strip())
        text = text[: dangling.start()]
    return text.strip(), "\n\n".join(t for t in thoughts if t)


def split_completion(c: Completion) -> Completion:
    """The completion with its text reduced to the final answer and all thinking in `reasoning`."""
    if "<" not in c.text:
        return c
    answer, reasoning = split_reasoning(c.text, c.reasoning)
    if answer == c.text and reasoning == c.reasoning:
        return c
    return replace(c, text=answer, reasoning=reasoning)
