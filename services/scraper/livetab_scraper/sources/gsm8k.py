"""Math word problems (GSM8K JSONL) passed through, typed, for the math-table generator.

The file is read by `livetab.gsm8k`, the one GSM8K reader (qagen's math generator shares it); a line
that is not JSON, lacks a field or whose final answer is no number becomes a `Failure` naming the line.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

from livetab.gsm8k import MathProblem, default_gsm8k_path, iter_problems
from livetab.ids import content_id

from livetab_scraper.sources.base import Failure, Fetched, Item, SourceConfig, SourceMeta, register_source

__all__ = ["GSM8KConfig", "GSM8KSource", "iter_gsm8k", "read_gsm8k"]

log = logging.getLogger(__name__)

LICENCE = "MIT"
ATTRIBUTION = "GSM8K, Cobbe et al. 2021 (openai/grade-school-math), MIT licence"


def iter_gsm8k(path: str | Path) -> Iterator[MathProblem | Failure]:
    for where, item in iter_problems(path):
        yield item if isinstance(item, MathProblem) else Failure(where, item, "gsm8k")


def read_gsm8k(path: str | Path | None = None) -> tuple[list[MathProblem], list[Failure]]:
    """All problems of a JSONL file (default: the shared GSM8K test sample), and the lines that failed."""
    problems: list[MathProblem] = []
    failures: list[Failure] = []
    for item in iter_gsm8k(path or default_gsm8k_path()):
        if isinstance(item, MathProblem):
            problems.append(item)
        else:
            failures.append(item)
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
