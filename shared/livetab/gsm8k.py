"""GSM8K math word problems (JSONL): the one reader, shared by the scraper's gsm8k source and qagen's
math-over-tables generator, and the problem's message form (`livetab.v1.MathProblem`, on
livetab.problems.v1) in both directions.

Each line holds `question`, `answer` (the worked solution ending in `#### <number>`) and optionally
`final_answer` and `test_index`. The final answer is checked against the `####` line and must be a
number, read exactly by `livetab.numbers.exact_number`; a line that is not JSON or lacks these fields
is reported with its location and the reason, never dropped silently.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from livetab.ids import content_id
from livetab.numbers import exact_number
from livetab.paths import shared_data
from livetab.v1 import math_pb2

__all__ = ["MathProblem", "default_gsm8k_path", "from_message", "iter_problems", "to_message"]

_FINAL = re.compile(r"####\s*(.+?)\s*$", re.S)


def default_gsm8k_path() -> Path:
    return shared_data() / "gsm8k" / "test_sample.jsonl"


@dataclass(frozen=True)
class MathProblem:
    id: str
    question: str
    answer_text: str
    final_answer: str  # as written ("10,800")
    index: int = 0  # GSM8K's test_index, or the line number when the file has none

    @property
    def final_value(self) -> Fraction:
        return exact_number(self.final_answer)


def _problem(record: object, origin: str, lineno: int) -> MathProblem:
    if not isinstance(record, dict):
        raise ValueError("the line is not a JSON object")
    question, answer = record.get("question"), record.get("answer")
    if not isinstance(question, str) or not question.strip():
        raise ValueError("no 'question' text")
    if not isinstance(answer, str) or not answer.strip():
        raise ValueError("no 'answer' text")
    m = _FINAL.search(answer)
    marked = m.group(1).strip() if m else ""
    final = str(record.get("final_answer") or marked).strip()
    if not final:
        raise ValueError("no final answer: neither 'final_answer' nor a '#### <number>' line")
    value = exact_number(final)
    if marked and exact_number(marked) != value:
        raise ValueError(f"final_answer {final!r} disagrees with the solution's '#### {marked}'")
    index = record.get("test_index")
    pid = f"gsm8k-{index}" if isinstance(index, int) else content_id("gsm8k", origin, lineno, question)
    return MathProblem(id=pid, question=question.strip(), answer_text=answer.strip(), final_answer=final,
                       index=index if isinstance(index, int) else lineno)


def iter_problems(path: str | Path | None = None) -> Iterator[tuple[str, MathProblem | str]]:
    """(location, problem) for every line of the file (default: the shared GSM8K test sample), or
    (location, reason) for a line, or the whole file, that cannot be read."""
    p = Path(path) if path else default_gsm8k_path()
    try:
        handle = p.open(encoding="utf-8")
    except OSError as e:
        yield str(p), f"cannot open the problems file: {e.strerror or e}"
        return
    with handle:
        try:
            for lineno, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                where = f"{p}:{lineno}"
                try:
                    yield where, _problem(json.loads(line), p.name, lineno)
                except json.JSONDecodeError as e:
                    yield where, f"not valid JSON: {e.msg} at column {e.colno}"
                except ValueError as e:
                    yield where, str(e)
        except UnicodeDecodeError as e:
            yield str(p), f"the file is not UTF-8 ({e.reason} at byte {e.start}); the rest was skipped"


def to_message(p: MathProblem, *, release: str = "", language: str = "en", created_at: str = "", uri: str = "",
               revision: str = "", retrieved_at: str = "", licence: str = "", attribution: str = ""
               ) -> math_pb2.MathProblem:
    """The problem as the message the scraper publishes on livetab.problems.v1."""
    return math_pb2.MathProblem(
        id=p.id, text=p.question, answer=math_pb2.MathAnswer(final=p.final_answer, solution=p.answer_text),
        source=math_pb2.ProblemSource(kind="gsm8k", uri=uri or f"gsm8k:{p.id}", index=p.index, revision=revision,
                                      retrieved_at=retrieved_at, licence=licence, attribution=attribution),
        release=release, language=language, created_at=created_at)


def from_message(m: math_pb2.MathProblem) -> MathProblem:
    """The problem a message carries, checked as a line of the file is (text, solution, a numeric final answer
    agreeing with the solution's '#### ' line); ValueError says what is wrong."""
    record = {"question": m.text, "answer": m.answer.solution, "final_answer": m.answer.final,
              "test_index": m.source.index}
    p = _problem(record, m.source.uri or m.id, m.source.index)
    return MathProblem(id=m.id or p.id, question=p.question, answer_text=p.answer_text, final_answer=p.final_answer,
                       index=p.index)
