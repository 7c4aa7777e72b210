"""WikiTableQuestions' official exact-match criterion, reimplemented from its documented behaviour.

WTQ (Pasupat & Liang 2015) scores a prediction as correct when its list of values equals the gold
list as a set: same length, and every gold value matched by some predicted value. Values are
normalised strings (accents removed, quotes and dashes unified, trailing citations, trailing
parenthesised details and enclosing quotes removed, a final full stop removed, whitespace collapsed,
lower case); a value that parses as a plain number, or as a yyyy-mm-dd date (with xx for unknown
parts), is a number or date and matches another number (within 1e-6) or date with the same parts,
or any value with the same normalised string. Gold values carry WTQ's canonical form
(`target_canon`, one per answer, "|"-separated) beside the original string. The whole model response
is one predicted value, as WTQ's evaluator reads one prediction line.

This is the baseline the rule judge is compared with: strict string identity after light
normalisation, so verbose answers ("Nine websites ...") all fail it.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

__all__ = ["WtqValue", "wtq_match", "wtq_normalize", "wtq_value"]

_QUOTE1 = re.compile(r"[‘’´`]")
_QUOTE2 = re.compile(r"[“”]")
_DASH = re.compile(r"[‐‑‒–—−]")
_CITATION = re.compile(r"((?<!^)\[[^\]]*\]|\[\d+\]|[•♦†‡*#+])*$")
_PAREN = re.compile(r"(?<!^)( \([^)]*\))*$")
_OUTER_QUOTES = re.compile(r'^"([^"]*)"$')
_SPACES = re.compile(r"\s+")
_DATE = re.compile(r"^([0-9xX]{4}|-?\d+)-([0-9xX]{2}|\d{1,2})-([0-9xX]{2}|\d{1,2})$")


def wtq_normalize(text: str) -> str:
    x = "".join(c for c in unicodedata.normalize("NFKD", text) if unicodedata.category(c) != "Mn")
    x = _QUOTE1.sub("'", x)
    x = _QUOTE2.sub('"', x)
    x = _DASH.sub("-", x)
    while True:
        before = x
        x = _CITATION.sub("", x.strip())
        x = _PAREN.sub("", x.strip())
        x = _OUTER_QUOTES.sub(r"\1", x.strip())
        if x == before:
            break
    if x.endswith("."):
        x = x[:-1]
    return _SPACES.sub(" ", x).lower().strip()


@dataclass(frozen=True, slots=True)
class WtqValue:
    normalized: str
    number: float | None = None
    date: tuple[int, int, int] | None = None

    def matches(self, other: WtqValue) -> bool:
        if self.normalized == other.normalized:
            return True
        if self.number is not None and other.number is not None:
            return abs(self.number - other.number) < 1e-6
        if self.date is not None and other.date is not None:
            return self.date == other.date
        return False


def _as_number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return None if math.isnan(value) or math.isinf(value) else value


def _as_date(text: str) -> tuple[int, int, int] | None:
    m = _DATE.match(text.strip().lower())
    if m is None:
        return None
    parts = tuple(-1 if "x" in p else int(p) for p in m.groups())
    y, mo, d = parts
    if (mo != -1 and not 1 <= mo <= 12) or (d != -1 and not 1 <= d <= 31) or parts == (-1, -1, -1):
        return None
    return y, mo, d


def wtq_value(original: str, canon: str | None = None) -> WtqValue:
    """A value from its original string, typed by its canonical form when given (gold) or by itself."""
    normalized = wtq_normalize(original)
    source = canon if canon is not None else original
    number = _as_number(source)
    if number is not None:
        return WtqValue(normalized, number=number)
    date = _as_date(source)
    if date is not None:
        return WtqValue(normalized, date=date)
    return WtqValue(normalized)


def wtq_match(prediction: str | list[str], answers: list[str], canon: list[str] | None = None) -> bool:
    """WTQ's exact match: predicted values equal the gold values as a set."""
    preds = [prediction] if isinstance(prediction, str) else prediction
    if canon is not None and len(canon) != len(answers):
        canon = None
    targets = [wtq_value(a, canon[i] if canon else None) for i, a in enumerate(answers)]
    predicted = [wtq_value(p) for p in preds]
    if len(targets) != len(predicted):
        return False
    return all(any(t.matches(p) for p in predicted) for t in targets)
