"""The judge service: the rule judge (AraTable's rubric as code, `livetab.rubric`), LLM judges with
Assisted Self-Deliberation, insight judging and metrics."""

from livetab.rubric import RuleVerdict, judge_answer, judge_text

__all__ = ["RuleVerdict", "judge_answer", "judge_text"]
