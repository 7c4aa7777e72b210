"""Math word problems (GSM8K JSONL) passed through, typed, for the math-table generator.

Each line holds `question`, `answer` (the worked solution ending in `#### <number>`) and optionally
`final_answer` and `test_index`. The final answer is checked against the `####` line and must be a
number; a line that is not JSON or lacks these fields becomes a `Failure` naming the line.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from livetab.ids import content_id
from livetab.numbers import exact_number
from livetab.paths import shared_data

from livetab_scraper.sources.base import Failure, Fetched, Item, SourceConfig, SourceMeta, register_source

__all__ = ["GSM8KConfig", "GSM8KSource", "MathProblem", "default_gsm8k_path", "read_gsm8k"]

log = logging.getLogger(__name__)

_FINAL = re.compile(r"####\s*(.+?)\s*$", re.S)
LICENCE = "MIT"
ATTRIBUTION = "GSM8K, Cobbe et al. 2021 (openai/grade-school-math), MIT licence"


def default_gsm8k_path() -> Path:
    return shared_data() / "gsm8k" / "test_sample.jsonl"


@dataclass(frozen=True)
class MathProblem:
    id: str
    question: str
    answer_text: str
    final_answer: str

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
    return MathProblem(id=pid, question=question.strip(), answer_text=answer.strip(), final_answer=final)


def iter_gsm8k(path: str | Path) -> Iterator[MathProblem | Failure]:
    p = Path(path)
    try:
        handle = p.open(encoding="utf-8")
    except OSError as e:
        yield Failure(str(p), f"cannot open the problems file: {e.strerror or e}", "gsm8k")
        return
    with handle:
        try:
            for lineno, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                where = f"{p}:{lineno}"
                try:
                    yield _problem(json.loads(line), p.name, lineno)
                except json.JSONDecodeError as e:
                    yield Failure(where, f"not valid JSON: {e.msg} at column {e.colno}", "gsm8k")
                except ValueError as e:
                    yield Failure(where, str(e), "gsm8k")
        except UnicodeDecodeError as e:
            yield Failure(str(p), f"the file is not UTF-8 ({e.reason} at byte {e.start}); the rest was skipped",
                          "gsm8k")


def read_gsm8k(path: str | Path | None = None) -> tuple[list[MathProblem], list[Failure]]:
    """All problems of a JSONL file (default: the shared GSM8K test sample), and the lines that failed."""
    problems: list[MathProblem] = []
    failures: list[Failure] = []
    for item in iter_gsm8k(path or default_gsm8k_path()):
        (problems if isinstance(item, MathProblem) else failures).append(item)  # type: ignore[arg-type]
    return problems, failures


class GSM8KConfig(SourceConfig):
    location: str = ""
    language: str = "en"
    limit: int | None = None


class GSM8KSource:
    name = "gsm8k"

    def __init__(self, config: GSM8KConfig) -> None:
        self.config = config
        self.path = Path(config.location) if config.location else default_gsm8k_path()

    def fetch(self, limit: int | None = None) -> Iterator[Item]:
        limit = limit or self.config.limit
        produced = 0
        for item in iter_gsm8k(self.path):
            if limit is not None and produced >= limit:
                return
            if isinstance(item, Failure):
                yield item
                continue
            produced += 1
            meta = SourceMeta(kind=self.name, uri=f"gsm8k:{item.id}", title=item.question[:80],
                              revision=content_id("rev", item.question, item.answer_text), licence=LICENCE,
                              attribution=ATTRIBUTION)
            yield Fetched(meta=meta, language=self.config.language, domain="other", problem=item, format="jsonl")


@register_source("gsm8k", config=GSM8KConfig)
def _build(config: GSM8KConfig) -> GSM8KSource:
    return GSM8KSource(config)
