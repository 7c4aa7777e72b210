"""The rule judge's published calibration on WikiTableQuestions (no model needed, under a second).

Two figures:

- rule judge vs people: the hand-checked table (`rubric/data/wtq_hand_checked.jsonl`, package data), real
  GPT-4 / Llama-2-70B answers to WTQ test questions, each read by a person who wrote down the verdict a
  careful human gives. The rule judge is run now and compared with that human verdict. The cases were
  chosen to cover every way the rule judge and WTQ's exact match can disagree, not drawn at random.
- rule judge vs WTQ's exact match on all 600 answers (WTQ's official criterion; verbose sentences fail
  it, so a low kappa here measures the exact match's strictness as much as the judge).

Kappa and agreement are over the answers the rule judge decided; the share it left undecided (handed to
the LLM judges in the cascade) is reported beside them, and so are the confusion counts they come from.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

from livetab.calibration import Figure
from livetab.metrics import cohen_kappa_detail
from livetab.rubric.wtq_eval import WtqCase, compare, judge_case, load_cases

__all__ = ["HAND_CHECKED", "WTQ_DATA", "WTQ_LICENCE", "rule_vs_human", "rule_vs_wtq"]

log = logging.getLogger(__name__)

HAND_CHECKED = Path(__file__).parent / "data" / "wtq_hand_checked.jsonl"
WTQ_DATA = "WikiTableQuestions test questions with GPT-4 and Llama-2-70B answers (shared/data/wtq)"
WTQ_LICENCE = "CC BY-SA 4.0"
UNCERTAIN = "uncertain"
RULE_JUDGE = "rule judge (livetab.rubric.judge_text, default tolerances)"


def _decided_figures(rule: list[str], reference: list[str]) -> tuple[dict[str, float], dict[str, int]]:
    """Kappa and agreement over the items the rule judge decided, the undecided share, and the counts
    ("rule/reference") over every item."""
    n = len(rule)
    confusion: dict[str, int] = {}
    for a, b in zip(rule, reference, strict=True):
        confusion[f"{a}/{b}"] = confusion.get(f"{a}/{b}", 0) + 1
    decided = [(a, b) for a, b in zip(rule, reference, strict=True) if a != UNCERTAIN]
    values: dict[str, float] = {"decided": float(len(decided)),
                                "undecided_share": (n - len(decided)) / n if n else float("nan")}
    if decided:
        d = cohen_kappa_detail([a for a, _ in decided], [b for _, b in decided])
        values.update(kappa=d.kappa, agreement=d.observed_agreement, expected_agreement=d.expected_agreement)
    else:
        values.update(kappa=float("nan"), agreement=float("nan"))
    values["disagreements"] = float(sum(1 for a, b in decided if a != b))
    return values, confusion


def rule_vs_human(path: Path | None = None) -> Figure:
    """The rule judge, run now, against the human verdicts of the hand-checked WTQ answers."""
    t0 = time.perf_counter()
    path = path or HAND_CHECKED
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    cases: dict[tuple[str, str], WtqCase] = {(c.id, c.model): c for c in load_cases()}
    rule: list[str] = []
    human: list[str] = []
    missing = 0
    for r in rows:
        case = cases.get((str(r["id"]), str(r["model"])))
        if case is None:
            missing += 1
            log.warning("hand-checked case %s/%s is not in the WTQ data", r["id"], r["model"])
            continue
        rule.append(judge_case(case).rule.verdict)
        human.append(str(r["human"]))
    values, confusion = _decided_figures(rule, human)
    return Figure(
        key="rule_vs_human_wtq", compares="rule judge vs a person's verdict on real model answers to WTQ questions",
        method="Cohen's kappa and agreement over the answers the rule judge decided; undecided share; "
               "disagreements (decided against the person)",
        data=f"{WTQ_DATA}, hand-checked verdicts ({path.name})", licence=WTQ_LICENCE, judge=RULE_JUDGE,
        n=len(rule), values=values, confusion=confusion, seconds=time.perf_counter() - t0,
        note=("Hand-picked cases covering every way the rule judge and WTQ's exact match disagree, not a random "
              "sample, and the rule judge's tests require it to match them: an upper bound on its agreement "
              "with people, not an estimate. An undecided answer goes to the LLM judges in the cascade."
              + (f" {missing} hand-checked case(s) not found in the data were left out." if missing else "")))


def rule_vs_wtq() -> Figure:
    """The rule judge against WTQ's official exact match on every model answer in the data."""
    t0 = time.perf_counter()
    judged, _ = compare(load_cases())
    rule = [j.rule.verdict for j in judged]
    wtq = ["correct" if j.wtq else "incorrect" for j in judged]
    values, confusion = _decided_figures(rule, wtq)
    by: dict[str, dict[str, float]] = {}
    for model in sorted({j.case.model for j in judged}):
        idx = [i for i, j in enumerate(judged) if j.case.model == model]
        sub, _ = _decided_figures([rule[i] for i in idx], [wtq[i] for i in idx])
        by[model] = {"n": float(len(idx)), **sub,
                     "rule_correct": float(sum(rule[i] == "correct" for i in idx)),
                     "wtq_correct": float(sum(wtq[i] == "correct" for i in idx))}
    return Figure(
        key="rule_vs_wtq_exact_match", compares="rule judge vs WTQ's official exact match on the same model answers",
        method="Cohen's kappa and agreement over the answers the rule judge decided; undecided share; "
               "disagreements",
        data=WTQ_DATA, licence=WTQ_LICENCE, judge=RULE_JUDGE, n=len(judged), values=values, confusion=confusion,
        by=by, seconds=time.perf_counter() - t0,
        note=("WTQ's exact match rejects any answer written as a sentence, so disagreement here is mostly the "
              "rule judge accepting verbose answers that state the gold value; it is not a human verdict."))
