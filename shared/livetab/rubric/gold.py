"""Gold answers prepared once per question: the kind the rubric applies, keys, numbers, dates.

`GoldSpec` holds everything about the gold and the question that does not depend on the response,
so that judging many responses to one question normalises the gold once (`prepare_gold` caches by
question id and gold content).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass

from livetab.questions import Question
from livetab.rubric.arabic import has_arabic
from livetab.rubric.context import QuestionContext, question_context
from livetab.rubric.dates import Ymd, parse_iso_like
from livetab.rubric.durations import find_durations
from livetab.rubric.locale import Locale, get_locale
from livetab.rubric.mcq import option_key
from livetab.rubric.numbers import NumberMention, find_numbers, number_from_float
from livetab.rubric.text import allowed_edits, fold, key, strip_leading_article

__all__ = ["GoldItem", "GoldSpec", "gold_item", "infer_kind", "prepare_gold", "spec_from_strings"]

_PAREN_TAIL = re.compile(r"\s*\([^()]*\)\s*$")
_SPACE_GROUPED = re.compile(r"^[+-]?\d{1,3}(?: \d{3})+(?:[.,]\d+)?$")
_BOOL_TRUE = frozenset({"yes", "true", "نعم", "صح", "صحيح"})
_BOOL_FALSE = frozenset({"no", "false", "لا", "خطا", "خطأ"})
_YEAR_LIKE = (1000.0, 2100.0)
_CACHE: OrderedDict[tuple[object, ...], GoldSpec] = OrderedDict()
_STR_CACHE: OrderedDict[tuple[object, ...], GoldSpec] = OrderedDict()
_CACHE_SIZE = 4096


@dataclass(frozen=True, slots=True)
class GoldItem:
    text: str
    keys: tuple[str, ...]  # comparison keys: full, without a leading article, without a trailing "(...)"
    tokens: frozenset[str]
    edits: int
    number: NumberMention | None
    date: Ymd | None
    arabic: bool
    duration: float | None = None  # seconds, for golds like "5h 29' 10\"" or "1:47.61"
    parts: tuple[str, ...] = ()  # keys of a gold written as "a/b" (two values in one cell)


@dataclass(frozen=True, slots=True)
class GoldSpec:
    kind: str  # number | date | text | list | boolean | option | insufficient | contradictory | free
    loc: Locale
    items: tuple[GoldItem, ...]  # one for number/date/text, several for list
    boolean: bool | None = None
    option: int = 0
    option_keys: tuple[str, ...] = ()
    context: QuestionContext | None = None
    question_numbers: tuple[NumberMention, ...] = ()
    year_like: bool = False


def _bare_number(folded: str, loc: Locale) -> NumberMention | None:
    """The number a short gold string denotes ("415 pages", "+38.903", "3 783 069", "25%"), if any."""
    s = folded.strip()
    if _SPACE_GROUPED.match(s):
        s = s.replace(" ", "")
    nums = find_numbers(s, loc)
    if len(nums) != 1:
        return None
    rest = (s[:nums[0].start] + " " + s[nums[0].end:]).strip()
    if any(c.isdigit() for c in rest) or len(key(rest).split()) > 2:
        return None
    if rest and nums[0].start > 0 and not re.fullmatch(r"[$€£¥+~≈ ]*", s[:nums[0].start]):
        return None  # "Chapter 11", "Apollo 13": a name, not a quantity
    return number_from_float(nums[0].value, nums[0].percent)  # with its precision, for rounding checks


def gold_item(text: str, loc: Locale, *, number: float | None = None, percent: bool = False,
              parse: bool = True) -> GoldItem:
    folded = fold(text)
    k = key(folded)
    keys = [k]
    for variant in (strip_leading_article(k), key(_PAREN_TAIL.sub("", folded))):
        if variant and variant not in keys:
            keys.append(variant)
    num = number_from_float(number, percent) if number is not None else (_bare_number(folded, loc) if parse else None)
    date_m = parse_iso_like(folded, loc) if parse and number is None else None
    date = date_m.readings[0] if date_m is not None else None
    if date is not None and (date[1] is not None or date[2] is not None):
        num = None  # "March 4, 2006" is a date, not the number 4; "xxxx-xx-13" (a day of any month) a date too
    elif date is not None:
        date = None  # "xxxx-xx-xx": no part of the date known
    duration = None
    if num is None and date is None and any(c.isdigit() for c in folded):
        durations = find_durations(folded)
        if len(durations) == 1 and (":" in folded or len(re.findall(r"\d+", folded)) > 1):
            duration = durations[0]
    parts: tuple[str, ...] = ()
    if "/" in folded and num is None and date is None:
        parts = tuple(p for p in (key(x) for x in folded.split("/")) if p)
        parts = parts if len(parts) > 1 else ()
    return GoldItem(text, tuple(keys), frozenset(k.split()), allowed_edits(k), num, date,
                    has_arabic(text) and num is None, duration, parts)


def infer_kind(item: GoldItem) -> str:
    if item.date is not None:
        return "date"
    if item.number is not None:
        return "number"
    if item.keys[0] in _BOOL_TRUE or item.keys[0] in _BOOL_FALSE:
        return "boolean"
    return "text"


def _finish(kind: str, loc: Locale, items: list[GoldItem], question_text: str, **extra: object) -> GoldSpec:
    ctx = None
    q_numbers: tuple[NumberMention, ...] = ()
    if question_text:
        qf = fold(question_text)
        ctx = question_context(key(qf), qf, loc, question_text)
        q_numbers = tuple(find_numbers(qf, loc))
    year_like = any(it.number is not None and it.number.value == int(it.number.value)
                    and _YEAR_LIKE[0] <= it.number.value <= _YEAR_LIKE[1] for it in items)
    return GoldSpec(kind, loc, tuple(items), context=ctx, question_numbers=q_numbers, year_like=year_like,
                    **extra)  # type: ignore[arg-type]


def spec_from_strings(gold: str | list[str], *, language: str = "en", kind: str | None = None,
                      question: str = "") -> GoldSpec:
    """A spec from raw gold strings (WTQ gives a list of strings); `kind` None means infer it. Cached."""
    cache_key = (gold if isinstance(gold, str) else tuple(gold), language, kind, question)
    spec = _STR_CACHE.get(cache_key)
    if spec is None:
        spec = _spec_from_strings(gold, language=language, kind=kind, question=question)
        _STR_CACHE[cache_key] = spec
        if len(_STR_CACHE) > _CACHE_SIZE:
            _STR_CACHE.popitem(last=False)
    return spec


def _spec_from_strings(gold: str | list[str], *, language: str, kind: str | None, question: str) -> GoldSpec:
    loc = get_locale(language)
    texts = [gold] if isinstance(gold, str) else list(gold)
    if not texts:
        raise ValueError("gold answer is empty")
    items = [gold_item(t, loc) for t in texts]
    if len(items) > 1:
        return _finish("list", loc, items, question)
    item = items[0]
    k = kind or infer_kind(item)
    if k == "boolean":
        return _finish(k, loc, items, question, boolean=item.keys[0] in _BOOL_TRUE)
    if k == "text" and kind == "text":
        item = gold_item(texts[0], loc, parse=False)
    return _finish(k, loc, [item], question)


def _spec_from_question(q: Question) -> GoldSpec:
    g = q.gold
    loc = get_locale(q.language)
    kind = g.kind
    if kind == "number":
        item = gold_item(g.text or repr(g.number), loc, number=g.number,
                         percent=g.unit.strip().lower() in ("%", "percent", "٪"))
        return _finish(kind, loc, [item], q.text)
    if kind == "list":
        return _finish(kind, loc, [gold_item(t, loc) for t in (g.items or [g.text])], q.text)
    if kind == "boolean":
        return _finish(kind, loc, [gold_item(g.text or ("true" if g.boolean else "false"), loc)], q.text,
                       boolean=g.boolean)
    if kind == "option":
        if not 1 <= g.option <= len(q.options):  # the contract: positions count from 1, 0 is unset
            raise ValueError(f"option gold {g.option} is not a position in 1..{len(q.options)}")
        keys = tuple(option_key(o) for o in q.options)
        text = g.option_text(q.options)
        return _finish(kind, loc, [gold_item(text, loc, parse=False)], q.text, option=g.option,
                       option_keys=keys)
    if kind in ("insufficient", "contradictory", "free"):
        return _finish(kind, loc, [gold_item(g.text or kind, loc, parse=False)], q.text)
    if kind == "text":
        item = gold_item(g.text, loc)
        inferred = infer_kind(item)
        if inferred == "boolean":
            return _finish(inferred, loc, [item], q.text, boolean=item.keys[0] in _BOOL_TRUE)
        return _finish(inferred, loc, [item], q.text)
    raise ValueError(f"unknown gold kind {kind!r}")




def prepare_gold(q: Question) -> GoldSpec:
    """The prepared gold of `q`, cached by question id and gold content."""
    g = q.gold
    cache_key = (q.id, q.text, q.language, g.kind, g.text, tuple(g.items), g.number, g.boolean, g.option, g.unit,
                 tuple(q.options))
    spec = _CACHE.get(cache_key)
    if spec is None:
        spec = _spec_from_question(q)
        _CACHE[cache_key] = spec
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return spec
