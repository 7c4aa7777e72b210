"""The judges' vocabulary, shared by the judge service (which writes it) and the reporter (which counts it).

A judgment's verdict is one of `VERDICTS`. `NOT_JUDGED` is neither right nor wrong: it marks an answer that
no configured judge can decide (today: an `insight` answer when no insight judge is configured), and a
leaderboard never counts it as wrong. Each insight of an insight answer gets one of `INSIGHT_LABELS` and,
when not factual, one of FreshTab's `ERROR_CATEGORIES`.
"""

from __future__ import annotations

__all__ = [
    "CORRECT",
    "ERROR",
    "ERROR_CATEGORIES",
    "FACTUAL",
    "INCORRECT",
    "INSIGHT_FAMILY",
    "INSIGHT_LABELS",
    "NOT_FACTUAL",
    "NOT_JUDGED",
    "UNCERTAIN",
    "UNDECIDED",
    "VERDICTS",
    "is_insight_family",
]

CORRECT = "correct"
INCORRECT = "incorrect"
UNCERTAIN = "uncertain"
ERROR = "error"  # the model call failed: counted as wrong, shown apart
NOT_JUDGED = "not_judged"
VERDICTS = (CORRECT, INCORRECT, UNCERTAIN, ERROR, NOT_JUDGED)

# The table-to-text task (FreshTab): judged insight by insight for factuality, reported apart from QA accuracy.
INSIGHT_FAMILY = "insight"
FACTUAL = "factual"
NOT_FACTUAL = "not_factual"
UNDECIDED = "undecided"
INSIGHT_LABELS = (FACTUAL, NOT_FACTUAL, UNDECIDED)
ERROR_CATEGORIES = ("incorrect", "not_checkable", "misleading", "other")


def is_insight_family(family: str) -> bool:
    return family == INSIGHT_FAMILY
