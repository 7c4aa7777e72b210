"""The rule judge beside WikiTableQuestions' own exact match, on WTQ's real verbose model answers.

`shared_data()/wtq/questions.jsonl` holds 300 WTQ test questions with gold answers and free-form
answers from GPT-4 and Llama-2-70B (no correctness labels). `compare` judges every answer both ways
and counts, per model: both correct, both wrong, rule-only correct, WTQ-only correct, and rule
"uncertain" (split by WTQ's verdict). The rule judge gets each question's table (`wtq/csv/...`, body
rows), as the judge service gets the question's table from the store.
"""

from __future__ import annotations

import csv
import json
import logging
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from livetab.paths import shared_data
from livetab.rubric.columns import TableView
from livetab.rubric.judge import RuleVerdict, judge_text
from livetab.rubric.wtq import wtq_match

__all__ = ["WtqCase", "WtqJudged", "compare", "judge_case", "load_cases", "load_wtq_table"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class WtqCase:
    id: str
    model: str
    question: str
    answers: tuple[str, ...]
    canon: tuple[str, ...]
    response: str
    table_csv: str = ""  # relative to the questions file's folder


@dataclass(frozen=True, slots=True)
class WtqJudged:
    case: WtqCase
    rule: RuleVerdict
    wtq: bool

    @property
    def agreement(self) -> str:
        if self.rule.verdict == "uncertain":
            return "uncertain"
        rule_ok = self.rule.verdict == "correct"
        if rule_ok and self.wtq:
            return "both_correct"
        if not rule_ok and not self.wtq:
            return "both_wrong"
        return "rule_only" if rule_ok else "wtq_only"


def load_cases(path: Path | None = None) -> list[WtqCase]:
    """Every (question, model answer) pair; malformed lines are logged and skipped."""
    path = path or shared_data() / "wtq" / "questions.jsonl"
    cases: list[WtqCase] = []
    with path.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            try:
                row = json.loads(line)
                canon = tuple(str(row.get("target_canon", "")).split("|"))
                for model, response in sorted(row["llm_outputs"].items()):
                    cases.append(WtqCase(row["id"], model, row["question"], tuple(row["answers"]), canon,
                                         str(response), str(path.parent / row["table_csv"])
                                         if row.get("table_csv") else ""))
            except (ValueError, KeyError, TypeError) as exc:
                log.warning("%s:%d skipped: %s", path, lineno, exc)
    return cases


@lru_cache(maxsize=512)
def load_wtq_table(path: str) -> TableView | None:
    """The body rows of a WTQ table csv (first row the header; `\\"` and `\\\\` escaped), as a view."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f, escapechar="\\"))
    except OSError as exc:
        log.warning("table %s unreadable: %s", path, exc)
        return None
    return TableView(rows[1:])


def judge_case(case: WtqCase) -> WtqJudged:
    table = load_wtq_table(case.table_csv) if case.table_csv else None
    rule = judge_text(case.response, list(case.answers), question=case.question, table=table)
    return WtqJudged(case, rule, wtq_match(case.response, list(case.answers), list(case.canon)))


def compare(cases: list[WtqCase]) -> tuple[list[WtqJudged], dict[str, dict[str, int]]]:
    """Judged cases and counts per model of each agreement class (plus WTQ's verdict on uncertain ones)."""
    judged = [judge_case(c) for c in cases]
    counts: dict[str, Counter[str]] = {}
    for j in judged:
        c = counts.setdefault(j.case.model, Counter())
        c[j.agreement] += 1
        if j.agreement == "uncertain":
            c["uncertain_wtq_correct" if j.wtq else "uncertain_wtq_wrong"] += 1
        c["rule_correct"] += j.rule.verdict == "correct"
        c["wtq_correct"] += j.wtq
        c["total"] += 1
    return judged, {m: dict(c) for m, c in sorted(counts.items())}
