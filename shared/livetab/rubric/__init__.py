"""AraTable's human rubric as code: the rule judge.

`judge_answer(response, question)` -> `RuleVerdict(verdict, extracted, rationale)` with verdict
"correct", "incorrect" or "uncertain". `judge_text(response, gold_strings)` does the same for raw
gold strings (WikiTableQuestions-style lists).
"""

from livetab.rubric.judge import RuleVerdict, judge_answer, judge_spec, judge_text

__all__ = ["RuleVerdict", "judge_answer", "judge_spec", "judge_text"]
