"""Per-language rubric data (number words, Boolean phrases, refusal phrases, months, markers).

The word lists live in `locales/<lang>.json` (one pack per language: adding a language is adding a
file); they are folded with `text.fold` when loaded so that lookups run on folded text. A pack may
`borrow` fields from another pack (`"borrow": {"en": ["true", "false", ...]}`): the other pack's
words are added to its own, so that a German answer written in English ("True", "insufficient
information") still reads. Separators are not in the packs: every language's decimal and thousands separators come from the
one table in `livetab.numbers` (`SEPARATORS`; `".'"` in German: 1.234,5 and 1'234,5; a space stands for
the no-break and narrow no-break spaces, which `fold` turns into spaces). Languages without a pack
borrow English words but keep their own separators.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from livetab.numbers import separators
from livetab.rubric.text import fold, key

__all__ = ["AnswerForms", "Locale", "answer_forms", "available_packs", "get_locale", "pack_section"]

log = logging.getLogger(__name__)

_BORROWABLE = frozenset({"units", "scales", "months", "true", "false", "answer_markers", "insufficient",
                         "contradictory", "option_words", "approx", "percent_words"})


@cache
def available_packs() -> frozenset[str]:
    """The languages with a rubric pack (`locales/<lang>.json`)."""
    folder = resources.files("livetab.rubric").joinpath("locales")
    return frozenset(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json"))


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
    date_fillers: frozenset[str] = frozenset()  # words between a date's parts ("17 de marzo de 2025")
    # words, as written (not folded), that fold into an "or" but are none: French "où" (where) -> "ou" (or)
    or_lookalikes: tuple[str, ...] = ()
    # the pack's "comparison": folded word -> (axis, direction) of each comparative ("older": ("time", 1)),
    # the words that turn a following comparative round ("more"/"less" recent), the nouns that give a
    # generic "greater" an axis ("a greater length"), the words of "than", and the negations that flip one
    comparatives: dict[str, tuple[str, int]] = field(default_factory=dict)
    more_less: dict[str, int] = field(default_factory=dict)
    axis_nouns: dict[str, str] = field(default_factory=dict)
    than_words: frozenset[str] = frozenset()
    comparison_negations: frozenset[str] = frozenset()
    name_endings: tuple[str, ...] = ()  # case endings of a name in an answer (ru "Бориса" for "Борис")
    # the pack's "relation": words putting their subject before / after their object, the verbs among
    # them that a following passive marker ("by", "von", "par") turns round, words skipped between a
    # relation word and its object, and words that may open a verb-first clause (Arabic)
    rel_before: frozenset[str] = frozenset()
    rel_after: frozenset[str] = frozenset()
    rel_verbs: frozenset[str] = frozenset()
    rel_passive: frozenset[str] = frozenset()
    rel_skip: frozenset[str] = frozenset()
    rel_openers: frozenset[str] = frozenset()
    rel_object_endings: frozenset[str] = frozenset()
    rel_agent_before_verb: frozenset[str] = frozenset()  # de "von X abgelöst", nl "door X opgevolgd"
    rel_fixed: tuple[tuple[str, ...], ...] = ()  # phrases whose relation word is none ("op een na")  # endings only an object has (ru accusative "-у", "-ю")

    @property
    def arabic(self) -> bool:
        return self.language == "ar"


def _load(name: str) -> dict[str, object]:
    data = resources.files("livetab.rubric").joinpath("locales").joinpath(f"{name}.json").read_text("utf-8")
    loaded: dict[str, object] = json.loads(data)
    borrow = loaded.get("borrow") or {}
    if not isinstance(borrow, dict):
        raise ValueError(f"locale {name}: 'borrow' must map a language to a list of fields")
    for other, fields in borrow.items():
        if other == name or other not in available_packs():
            raise ValueError(f"locale {name}: cannot borrow from {other!r}")
        lender = _load(str(other))
        for f in fields:
            if f not in _BORROWABLE:
                raise ValueError(f"locale {name}: field {f!r} cannot be borrowed")
            own, theirs = loaded.get(f), lender.get(f)
            if isinstance(own, dict) and isinstance(theirs, dict):
                loaded[f] = {**theirs, **own}
            elif isinstance(own, list) and isinstance(theirs, list):
                loaded[f] = own + [w for w in theirs if w not in own]
    return loaded


def pack_section(language: str, name: str) -> dict[str, list[str]]:
    """One section of `language`'s pack as written (not folded), {} where the language has no pack or the pack
    no such section: for readers of the packs' words outside the rubric (`livetab.total_labels`)."""
    if language not in available_packs():
        return {}
    raw = _load(language).get(name, {})
    if not isinstance(raw, dict) or not all(isinstance(v, list) for v in raw.values()):
        raise ValueError(f"locale {language}: {name!r} must map names to lists of words")
    return {str(k): [str(w) for w in v] for k, v in raw.items()}


def _words(data: dict[str, object], field: str) -> list[str]:
    raw = data.get(field, [])
    if not isinstance(raw, list):
        raise ValueError(f"locale field {field!r} must be a list")
    return [fold(str(w)) for w in raw]


def _raw_words(data: dict[str, object], field: str) -> list[str]:
    raw = data.get(field, [])
    if not isinstance(raw, list):
        raise ValueError(f"locale field {field!r} must be a list")
    return [str(w) for w in raw]


def _mapping(data: dict[str, object], field: str) -> dict[str, float]:
    raw = data.get(field, {})
    if not isinstance(raw, dict):
        raise ValueError(f"locale field {field!r} must be an object")
    return {fold(str(k)): float(v) for k, v in raw.items()}


# "comparison" lists: (axis, direction) of each; "earlier" is the direction of "older"
_COMPARATIVE_LISTS = {"greater": ("amount", 1), "smaller": ("amount", -1), "earlier": ("time", 1),
                      "later": ("time", -1), "longer": ("size", 1), "shorter": ("size", -1),
                      # es "mayor" / "menor": greater or older, smaller or younger
                      "greater_or_older": ("amount_or_time", 1), "smaller_or_younger": ("amount_or_time", -1)}


def _section(data: dict[str, object], name: str) -> dict[str, list[str]]:
    raw = data.get(name, {})
    if not isinstance(raw, dict) or not all(isinstance(v, list) for v in raw.values()):
        raise ValueError(f"locale field {name!r} must map names to lists of words")
    return {str(k): [fold(str(w)) for w in v] for k, v in raw.items()}


def _comparison(data: dict[str, object]) -> dict[str, object]:
    comp = _section(data, "comparison")
    lexicon: dict[str, tuple[str, int]] = {}
    for name, found in _COMPARATIVE_LISTS.items():
        for w in comp.get(name, []):
            lexicon.setdefault(w, found)
    return {
        "comparatives": lexicon,
        "more_less": {**dict.fromkeys(comp.get("less", []), -1), **dict.fromkeys(comp.get("more", []), 1)},
        "axis_nouns": {**dict.fromkeys(comp.get("time_nouns", []), "time"),
                       **dict.fromkeys(comp.get("size_nouns", []), "size")},
        "than_words": frozenset(comp.get("than", [])),
        "comparison_negations": frozenset(comp.get("negations", [])),
        "name_endings": tuple(comp.get("name_endings", [])),
    }


def _relation(data: dict[str, object]) -> dict[str, object]:
    rel = _section(data, "relation")
    out: dict[str, object] = {f"rel_{k}": frozenset(rel.get(k, [])) for k in
                               ("before", "after", "verbs", "passive", "skip", "openers", "object_endings",
                                "agent_before_verb")}
    out["rel_fixed"] = tuple(tuple(key(p).split()) for p in rel.get("fixed_phrases", []))
    return out


@dataclass(frozen=True)
class AnswerForms:
    """How a model answers in one language (a pack's `answer_forms`, as written, not folded): the phrasings
    the scripted oracle / anti-oracle use (livetab.models.scripted), which the pack's own word lists must read.
    `true` / `false` / `insufficient` / `contradictory`: (short form, sentence form)."""

    language: str
    sentence: str  # "According to the table, it is {v}."
    answer_is: str  # "The answer is {v}."
    option_number: str  # "Option {n}"
    join: str  # between list items
    true: tuple[str, str]
    false: tuple[str, str]
    insufficient: tuple[str, str]
    contradictory: tuple[str, str]


@cache
def answer_forms(language: str) -> AnswerForms:
    """The answer phrasings of `language`'s pack (English where the language has no pack)."""
    lang = (language or "en").lower().split("-")[0].split("_")[0]
    lang = lang if lang in available_packs() else "en"
    raw = _load(lang).get("answer_forms")
    if not isinstance(raw, dict):
        if lang == "en":
            raise ValueError("the English pack must have answer_forms")
        return answer_forms("en")

    def pair(field: str) -> tuple[str, str]:
        short, sentence = raw[field]
        return str(short), str(sentence)

    return AnswerForms(language=lang, sentence=str(raw["sentence"]), answer_is=str(raw["answer_is"]),
                       option_number=str(raw["option_number"]), join=str(raw["join"]), true=pair("true"),
                       false=pair("false"), insufficient=pair("insufficient"), contradictory=pair("contradictory"))


@cache
def get_locale(language: str) -> Locale:
    """The rubric data for `language` (an ISO 639-1 code; unknown codes fall back to English words)."""
    lang = (language or "en").lower().split("-")[0].split("_")[0]
    has_pack = lang in available_packs()
    words = _load(lang if has_pack else "en")
    decimal, group = separators(lang)  # the one table (livetab.numbers): every thousands separator
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
        approx=tuple(_words(words, "approx")), date_fillers=frozenset(_words(words, "date_fillers")),
        or_lookalikes=tuple(w.lower() for w in _raw_words(words, "or_lookalikes")),
        **_comparison(words), **_relation(words),  # type: ignore[arg-type]
    )
