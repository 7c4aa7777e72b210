"""Per-language rubric data (number words, Boolean phrases, refusal phrases, months, markers).

The word lists live in `locales/<lang>.json`; they are folded with `text.fold` when loaded so that
lookups run on folded text. Languages without their own file borrow English words but keep their
own thousands/decimal separators (1.234,5 in German, 1 234,5 in French), taken from `livetab.numbers`.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from livetab.numbers import SEPARATORS
from livetab.rubric.text import fold

__all__ = ["Locale", "get_locale"]

log = logging.getLogger(__name__)

_WORD_FILES = ("en", "ar")


def _alternation(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


@dataclass(frozen=True, eq=False)
class Locale:
    language: str
    group: str
    decimal: str
    units: dict[str, float]
    scales: dict[str, float]
    teen_words: frozenset[str]
    number_joiners: frozenset[str]
    months: dict[str, int]
    true_phrases: tuple[str, ...]
    false_phrases: tuple[str, ...]
    answer_markers: tuple[str, ...]
    insufficient: tuple[str, ...]
    contradictory: tuple[str, ...]
    negations: frozenset[str]
    relational: tuple[str, ...]
    hedges: frozenset[str]
    conjunctions: tuple[str, ...]
    or_words: frozenset[str]
    stopwords: frozenset[str]
    option_words: tuple[str, ...]
    month_alt: str  # regex alternation of month names, longest first
    percent_alt: str  # regex alternation of percent words
    approx: tuple[str, ...]  # words that mark a number as rounded ("around 40", "حوالي")

    @property
    def arabic(self) -> bool:
        return self.language == "ar"


def _load(name: str) -> dict[str, object]:
    data = resources.files("livetab.rubric").joinpath("locales").joinpath(f"{name}.json").read_text("utf-8")
    loaded: dict[str, object] = json.loads(data)
    return loaded


def _words(data: dict[str, object], field: str) -> list[str]:
    raw = data.get(field, [])
    if not isinstance(raw, list):
        raise ValueError(f"locale field {field!r} must be a list")
    return [fold(str(w)) for w in raw]


def _mapping(data: dict[str, object], field: str) -> dict[str, float]:
    raw = data.get(field, {})
    if not isinstance(raw, dict):
        raise ValueError(f"locale field {field!r} must be an object")
    return {fold(str(k)): float(v) for k, v in raw.items()}


@cache
def get_locale(language: str) -> Locale:
    """The rubric data for `language` (an ISO 639-1 code; unknown codes fall back to English words)."""
    lang = (language or "en").lower().split("-")[0].split("_")[0]
    words = _load(lang if lang in _WORD_FILES else "en")
    if lang in SEPARATORS and lang not in _WORD_FILES:  # the shared table (livetab.numbers), printed group first
        decimal, groups = SEPARATORS[lang]
        group = groups[:1] or " "
    else:
        group, decimal = str(words["group"]), str(words["decimal"])
    months = {k: int(v) for k, v in _mapping(words, "months").items()}
    percent = _words(words, "percent_words")
    return Locale(
        language=lang, group=group, decimal=decimal,
        units=_mapping(words, "units"), scales=_mapping(words, "scales"),
        teen_words=frozenset(_words(words, "teen_words")),
        number_joiners=frozenset(_words(words, "number_joiners")),
        months=months,
        true_phrases=tuple(_words(words, "true")), false_phrases=tuple(_words(words, "false")),
        answer_markers=tuple(_words(words, "answer_markers")),
        insufficient=tuple(_words(words, "insufficient")), contradictory=tuple(_words(words, "contradictory")),
        negations=frozenset(_words(words, "negations")), relational=tuple(_words(words, "relational")),
        hedges=frozenset(_words(words, "hedges")), conjunctions=tuple(_words(words, "conjunctions")),
        or_words=frozenset(_words(words, "or_words")), stopwords=frozenset(_words(words, "stopwords")),
        option_words=tuple(_words(words, "option_words")),
        month_alt=_alternation(list(months)), percent_alt=_alternation(percent),
        approx=tuple(_words(words, "approx")),
    )
