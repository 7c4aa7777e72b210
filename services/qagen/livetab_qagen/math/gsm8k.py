"""GSM8K problems and the arithmetic their solutions spell out in calculator annotations.

A GSM8K solution writes each step as ``<<16-3-4=9>>``: an expression over numbers named in the
problem, results of earlier steps and a few constants, then its result. This module reads the
problems, the numbers mentioned in the question text (with their character spans) and the annotated
steps; turning them into a formal model is `formalise.py`'s job.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from livetab.gsm8k import iter_problems
from livetab.numbers import exact_number, number_pattern

__all__ = [
    "AnnotatedStep",
    "GSM8KProblem",
    "Mention",
    "annotated_steps",
    "load_problems",
    "question_mentions",
]

log = logging.getLogger(__name__)

_ANNOTATION = re.compile(r"<<([^<>]*)>>")
# A number as written in prose (the shared digit-number pattern): 1,200 / 3.5 / .25 / 1,234.5; a leading $
# or a trailing % is kept apart; not part of a word ("5th") or a time ("3:45").
_MENTION = re.compile(rf"(?<![\w.:])({number_pattern('.', ',')})(?![\w:])")


@dataclass(frozen=True)
class Mention:
    """A number written with digits in the question text."""

    value: Fraction
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class AnnotatedStep:
    """One calculator annotation: the expression as written and the result the solution states."""

    expression: str
    result: Fraction
    raw: str


@dataclass
class GSM8KProblem:
    index: int
    question: str
    answer: str
    final_answer: Fraction
    raw_final: str = ""
    extra: dict[str, str] = field(default_factory=dict)


def load_problems(path: Path | None = None, limit: int | None = None) -> list[GSM8KProblem]:
    """GSM8K problems read by the shared reader (`livetab.gsm8k`; default: the shared sample). Lines that
    cannot be read are logged and skipped."""
    problems: list[GSM8KProblem] = []
    for where, item in iter_problems(path):
        if isinstance(item, str):
            log.warning("gsm8k %s skipped: %s", where, item)
            continue
        problems.append(GSM8KProblem(index=item.index, question=item.question, answer=item.answer_text,
                                     final_answer=item.final_value, raw_final=item.final_answer))
        if limit is not None and len(problems) >= limit:
            break
    return problems


def question_mentions(question: str) -> list[Mention]:
    """Every number written with digits in the question, in order of appearance."""
    out: list[Mention] = []
    for m in _MENTION.finditer(question):
        try:
            out.append(Mention(value=exact_number(m.group(1)), start=m.start(1), end=m.end(1), text=m.group(1)))
        except ValueError:  # pragma: no cover - the pattern only matches plain numbers
            continue
    return out


def annotated_steps(answer: str) -> list[AnnotatedStep]:
    """The ``<<expr=result>>`` annotations in order. Raises ValueError on one that cannot be read."""
    steps: list[AnnotatedStep] = []
    for m in _ANNOTATION.finditer(answer):
        body = m.group(1)
        if body.count("=") != 1:
            raise ValueError(f"annotation without exactly one '=': <<{body}>>")
        expr, result = body.split("=")
        try:
            value = exact_number(result)
        except ValueError:
            raise ValueError(f"annotation result is not a number: <<{body}>>") from None
        steps.append(AnnotatedStep(expression=expr.strip(), result=value, raw=body))
    return steps
