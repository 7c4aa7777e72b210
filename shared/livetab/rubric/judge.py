"""The rule judge: AraTable's human rubric applied to one response.

`judge_answer(response, question)` returns a `RuleVerdict` — "correct", "incorrect" or
"uncertain" (the rules cannot decide; a cascade sends these to LLM judges) — with the extracted
final answer and a one-line rationale naming the rule that decided.

Every entry point takes the question's table when there is one (`table=`: a `Table`, its body rows, or
a `columns.TableView`): a value the answer gives that belongs to another row of the asked column is
then wrong rather than uncertain, and part of a name is enough when no other cell of the column has it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

from livetab.questions import Question
from livetab.rubric.arabic import has_arabic, has_latin
from livetab.rubric.booleans import content_polarity, leading_polarity_end, polarity
from livetab.rubric.cellparts import joined_parts
from livetab.rubric.columns import TableView, table_view
from livetab.rubric.commas import adjacent_in_list, listed_doubt, listed_with, tokens_of
from livetab.rubric.comparisons import compare_alternatives
from livetab.rubric.context import entity_doubt, sentence_doubt
from livetab.rubric.dates import DateMention, date_matches, find_dates
from livetab.rubric.durations import find_durations
from livetab.rubric.extract import extract_answer
from livetab.rubric.gold import GoldItem, GoldSpec, prepare_gold, spec_from_strings
from livetab.rubric.imperfect import refusal_kind
from livetab.rubric.lists import match_item, split_items
from livetab.rubric.mcq import read_choice
from livetab.rubric.numbers import NumberMention, find_numbers, numbers_equal, within_band
from livetab.rubric.ranges import find_ranges, gold_range
from livetab.rubric.text import allowed_edits, contains_phrase, find_fuzzy, fold, key, within_edits
from livetab.tables import Table

__all__ = ["RuleVerdict", "judge_answer", "judge_spec", "judge_text"]

log = logging.getLogger(__name__)

CORRECT, INCORRECT, UNCERTAIN = "correct", "incorrect", "uncertain"
_STRUCTURED = frozenset({"json", "boxed", "marker", "equation"})
_ZERO_WORDS = frozenset({"no", "none", "zero", "nobody", "nothing", "لا", "لايوجد"})
_WORD_CHAR = re.compile(r"[^\W_]")
_NAME_WORDS = frozenset({"the", "a", "an", "of", "and", "or", "in", "on", "at", "for", "de", "ال", "في", "من"})
_YEAR_CUES = ("in ", "year ", "since ", "from ", "until ", "of ", "season ", "on ", "عام ", "سنه ", "في ")


@dataclass(frozen=True, slots=True)
class RuleVerdict:
    verdict: str  # "correct" | "incorrect" | "uncertain"
    extracted: str
    rationale: str


@dataclass(frozen=True, slots=True)
class _Tolerance:
    absolute: float
    relative: float


_DEFAULT_PAIR = (0.005, 0.01)
_DEFAULT_TOLERANCE = _Tolerance(*_DEFAULT_PAIR)


TableLike = Table | TableView | Sequence[Sequence[str]] | None


def judge_answer(response: str, question: Question, *, tolerance: float = 0.005,
                 relative_tolerance: float = 0.01, table: TableLike = None) -> RuleVerdict:
    """Judge `response` against `question.gold` with AraTable's rubric (see the package docs)."""
    try:
        spec = prepare_gold(question)
    except ValueError as exc:
        log.warning("question %s has an unusable gold: %s", question.id, exc)
        return RuleVerdict(UNCERTAIN, "", f"gold unusable: {exc}")
    return judge_spec(response, spec, tolerance=tolerance, relative_tolerance=relative_tolerance, table=table)


def judge_text(response: str, gold: str | list[str], *, language: str = "en", kind: str | None = None,
               question: str = "", tolerance: float = 0.005, relative_tolerance: float = 0.01,
               table: TableLike = None) -> RuleVerdict:
    """Judge against raw gold strings (one string, or a list for multi-value answers as in WTQ)."""
    spec = spec_from_strings(gold, language=language, kind=kind, question=question)
    return judge_spec(response, spec, tolerance=tolerance, relative_tolerance=relative_tolerance, table=table)


def judge_spec(response: str, spec: GoldSpec, *, tolerance: float = 0.005,
               relative_tolerance: float = 0.01, table: TableLike = None) -> RuleVerdict:
    if spec.kind == "free":
        return RuleVerdict(UNCERTAIN, "", "free-form gold: no rule applies")
    folded = fold(response or "")
    ex = extract_answer(folded, spec.loc)
    span = ex.text
    if not span or _WORD_CHAR.search(span) is None:
        return RuleVerdict(INCORRECT, span, f"no answer ({ex.method})")
    tol = _DEFAULT_TOLERANCE if (tolerance, relative_tolerance) == _DEFAULT_PAIR else _Tolerance(
        tolerance, relative_tolerance)
    kind = spec.kind
    view = table_view(table) if table is not None else None
    if kind in ("insufficient", "contradictory"):
        verdict, why = _judge_imperfect(span, spec, ex.method)
    elif kind == "boolean":
        verdict, why = _judge_boolean(span, spec)
    elif kind == "option":
        verdict, why = _judge_option(span, spec)
    elif kind == "number":
        verdict, why = _judge_number(span, spec, spec.items[0], tol, ex.method, view)
    elif kind == "date":
        verdict, why = _judge_date(span, spec, spec.items[0], view)
    elif kind == "list":
        verdict, why = _judge_list(span, spec, tol)
    else:
        verdict, why = _judge_text(span, spec, spec.items[0], tol, view)
    return RuleVerdict(verdict, span, f"{why} [{ex.method}]")


# --- numbers -------------------------------------------------------------------------------------------

def _candidates(span: str, spec: GoldSpec) -> list[NumberMention]:
    """Numbers in the span that could be the answer: not echoes of the question, not dates or years
    given as context (unless the gold is a year)."""
    nums = find_numbers(span, spec.loc)
    if not nums:
        return []
    dates = find_dates(span, spec.loc)
    year_like = spec.year_like
    out: list[NumberMention] = []
    for n in nums:
        if dates:
            in_date = next((d for d in dates if d.start <= n.start < d.end), None)
            if in_date is not None:
                year = in_date.readings[0][0]
                if year_like and year is not None and n.value == year:
                    out.append(n)
                continue
        value = n.value
        if (not year_like and 1000 <= value <= 2100 and value == int(value) and not n.percent
                and span[max(0, n.start - 8):n.start].endswith(_YEAR_CUES)):
            continue
        out.append(n)
    if spec.question_numbers:
        asked = {q.value for q in spec.question_numbers}  # == on floats: the same as comparing one by one
        echoes = [n for n in out if n.value in asked]
        if echoes and len(echoes) < len(out):
            out = [n for n in out if n not in echoes]
    if year_like:  # the answer is a year: other numbers in the sentence are context
        years = [n for n in out if n.value == int(n.value) and 1000 <= n.value <= 2100]
        out = years or out
    return out


def _judge_number(span: str, spec: GoldSpec, gold: GoldItem, tol: _Tolerance, method: str,
                  view: TableView | None = None) -> tuple[str, str]:
    assert gold.number is not None
    g = gold.number
    cands = _candidates(span, spec)
    refusal = refusal_kind(span, spec.loc) if len(cands) < 2 else None  # only decisive for 0 or 1 number
    if not cands:
        if g.value == 0 and any(t in _ZERO_WORDS for t in key(span).split()):
            return CORRECT, "zero stated in words"
        if refusal:
            return INCORRECT, f"declined ({refusal}) an answerable question"
        return INCORRECT, "no number in the answer"
    hits = [numbers_equal(g, n, tolerance=tol.absolute, relative_tolerance=tol.relative) for n in cands]
    if all(hits):
        if refusal:
            return UNCERTAIN, "gives the number but also says the table cannot answer"
        if spec.context is not None and method not in _STRUCTURED:
            doubt = entity_doubt(key(span).split(), frozenset(), spec.context, spec.loc,
                                 same_column=view.same_column if view is not None else None)
            if doubt:
                return doubt
        return CORRECT, "number matches"
    if not any(hits):
        return INCORRECT, f"number differs ({_fmt(cands[0].value)} vs {_fmt(g.value)})"
    if method in _STRUCTURED:
        return (CORRECT, "first number of the final answer matches") if hits[0] else (
            INCORRECT, "first number of the final answer differs")
    if view is not None and spec.year_like and g.value == int(g.value):
        year = int(g.value)
        cols = view.gold_columns((str(year),), year=year)
        others = view.other_years(cols, year) if cols else frozenset()
        right = [n for n, hit in zip(cands, hits, strict=True) if hit]
        listed = [n for n, hit in zip(cands, hits, strict=True) if not hit and n.value == int(n.value)
                  and int(n.value) in others and any(_adjacent(span, r, n, spec) for r in right)]
        if listed:
            return INCORRECT, f"the answer lists {_fmt(listed[0].value)}, a year of another row of the column, " \
                              "with the gold"
    return UNCERTAIN, "the answer names several numbers, not all equal to the gold"


def _adjacent(span: str, a: NumberMention | DateMention, b: NumberMention | DateMention, spec: GoldSpec) -> bool:
    """Are two values of the answer neighbours in one list ("2001, 2002 and 2009")?"""
    first, second = (a, b) if a.start < b.start else (b, a)
    return adjacent_in_list(span, first.end, second.start, spec.loc)


def _fmt(v: float) -> str:
    return str(int(v)) if v == int(v) else repr(v)


# --- dates ---------------------------------------------------------------------------------------------

def _judge_date(span: str, spec: GoldSpec, gold: GoldItem, view: TableView | None = None) -> tuple[str, str]:
    assert gold.date is not None
    dates = find_dates(span, spec.loc)
    q_dates = find_dates(spec.context.numbers_text, spec.loc) if spec.context is not None else []
    q_readings = {r for d in q_dates for r in d.readings}
    own = [d for d in dates if not set(d.readings) <= q_readings] or dates
    if not own:
        return (INCORRECT, f"declined ({refusal_kind(span, spec.loc)})") if refusal_kind(span, spec.loc) else (
            INCORRECT, "no date in the answer")
    results = [date_matches(gold.date, d) for d in own]
    if all(r is True for r in results):
        return CORRECT, "date matches"
    if all(r is False for r in results):
        return INCORRECT, "date differs"
    if any(r is None for r in results) and len(own) == 1:
        return UNCERTAIN, "ambiguous day/month order: only one reading matches"
    if view is not None and any(r is True for r in results):
        cols = view.gold_columns(gold.keys)
        others = set(view.other_names(cols, gold.keys)) if cols else set()
        right = [d for d, r in zip(own, results, strict=True) if r is True]
        listed = [d for d, r in zip(own, results, strict=True) if r is not True
                  and key(span[d.start:d.end]) in others and any(_adjacent(span, x, d, spec) for x in right)]
        if listed:
            return INCORRECT, (f"the answer lists {key(span[listed[0].start:listed[0].end])!r}, a date "
                               "of another row of the column, with the gold")
    return UNCERTAIN, "the answer names several dates, not all equal to the gold"


# --- text ----------------------------------------------------------------------------------------------

def _script_violation(span: str, gold: GoldItem) -> bool:
    """AraTable: Arabic entities must be answered in Arabic (a Latin transliteration is wrong)."""
    return gold.arabic and not has_arabic(span) and has_latin(span)


def _find_mention(tokens: list[str], span_key: str, gold: GoldItem) -> tuple[int, int] | None:
    for k in gold.keys:
        if contains_phrase(span_key, k):
            before = f" {span_key} ".index(f" {k} ")
            start = len(span_key[:before].split())
            return start, start + k.count(" ") + 1
    if gold.edits:
        for k in gold.keys:
            window = find_fuzzy(tokens, k, gold.edits)
            if window is not None:
                w = window.split()
                for i in range(len(tokens) - len(w) + 1):
                    if tokens[i:i + len(w)] == w:
                        return i, i + len(w)
    return None


def _judge_text(span: str, spec: GoldSpec, gold: GoldItem, tol: _Tolerance,
                view: TableView | None = None) -> tuple[str, str]:
    span_key = key(span)
    if span_key in gold.keys:
        return CORRECT, "text matches"
    if _script_violation(span, gold):
        return INCORRECT, "Arabic entity answered in another script"
    tokens = span_key.split()
    if gold.edits and len(tokens) <= gold.keys[0].count(" ") + 2:
        for k in gold.keys:
            if abs(len(k) - len(span_key)) <= gold.edits and find_fuzzy(tokens, k, gold.edits) == span_key:
                return CORRECT, "text matches up to a minor spelling slip"
    ctx = spec.context
    mention: tuple[int, int] | None = None
    rng = gold_range(fold(gold.text)) if any(c.isdigit() for c in gold.text) else None
    if rng is not None:
        ranges = find_ranges(span)
        if ranges:
            if rng not in ranges:
                return INCORRECT, "another year range than the gold's"
            if any(r != rng for r in ranges):
                if view is None:
                    return UNCERTAIN, "the answer names several year ranges"
            else:
                mention = (0, 0)
    if ctx is not None and ctx.competitor_sides:
        compared = compare_alternatives(tokens, gold.tokens, ctx, spec.loc)
        if compared is not None:
            return compared
    refusal = refusal_kind(span, spec.loc)
    partial = False
    if mention is None:
        mention = _find_mention(tokens, span_key, gold)
    listed_at: tuple[int, int] | None = None  # where a list check looks for the gold (a part of a two-value gold)
    if gold.parts and all(contains_phrase(span_key, p) for p in gold.parts):
        mention = (0, 0) if mention is None else mention
        # "Ali, Omar, Sami" for "Ali / Omar": the parts are named, but as items of a longer list
        before = f" {span_key} ".index(f" {gold.parts[0]} ")
        first = len(span_key[:before].split())
        listed_at = (first, first + gold.parts[0].count(" ") + 1)
    if mention is None:
        mention = joined_parts(tokens, gold, spec.loc)
    if mention is None and gold.duration is not None:
        # the numbers' band: "1:47.615" (a time given more precisely) states "1:47.61"
        if any(within_band(d, gold.duration, tol.absolute) for d in find_durations(span)):
            return CORRECT, "duration matches"
    if mention is None and view is not None and not refusal:
        lines = _cell_lines(span, tokens, gold, spec, view)
        if lines is not None:
            return lines
        mention = _unique_part(tokens, gold, spec, view)
        partial = mention is not None
    if mention is None:
        if refusal:
            return INCORRECT, f"declined ({refusal}) an answerable question"
        return _no_mention(tokens, spec, gold)
    if refusal:
        return UNCERTAIN, "names the gold but also says the table cannot answer"
    anchors_known = None
    named: list[str] = []
    if view is not None:
        where = view.gold(gold.keys, spec.loc.stopwords)
        named = [n for n in where.named_in(tokens)
                 if contains_phrase(span_key, n) or (spec.loc.arabic and contains_phrase(span_key, "و" + n))]
        if named and mention != (0, 0):
            words = tokens_of(span)
            at = _token_mention(words.words, tokens, mention)
            q = ctx.tokens if ctx is not None else frozenset()
            other = listed_with(words, at, named, q, spec.loc) if at else None
            if other is not None:
                return INCORRECT, f"the answer lists {other!r}, another value of the asked column, with the gold"
        anchors_known = view.words
    if (listed_at or mention) != (0, 0) and ("," in span or ";" in span):
        words = tokens_of(span)
        at = _token_mention(words.words, tokens, listed_at or mention)
        listed = listed_doubt(words, at, spec.loc, anchors_known or frozenset(), gold.tokens) if at else None
        if listed:
            return listed
    doubt = sentence_doubt(tokens, mention, gold.tokens, ctx, spec.loc, anchors_known=anchors_known,
                           near_anchor=view is not None and _names_only_question(named, view, gold, spec))
    if doubt:
        return doubt
    if spec.question_numbers and ctx is not None and not any(c.isdigit() for c in gold.keys[0]):
        # "which nationality had a total of 13 wins?" answered "The United States had 12 wins".
        qtext = ctx.numbers_text
        asked = {n.value: _word_after(qtext, n.end) for n in spec.question_numbers}
        for n in find_numbers(span, spec.loc):
            unit = _word_after(span, n.end)
            if n.value not in asked and unit and unit in asked.values():
                return UNCERTAIN, "the answer restates the question's condition with another number"
    if partial:
        return CORRECT, "the answer names part of the gold, which no other cell of its column has"
    return CORRECT, "the answer states the gold"


def _token_mention(words: tuple[str, ...], tokens: list[str], mention: tuple[int, int]) -> tuple[int, int] | None:
    """The mention (indexes into key tokens) as indexes into `commas.tokens_of` words (the same words
    unless an apostrophe or a digit group split them differently)."""
    if list(words) == tokens:
        return mention
    phrase = tokens[mention[0]:mention[1]]
    n = len(phrase)
    for i in range(len(words) - n + 1):
        if list(words[i:i + n]) == phrase:
            return i, i + n
    return None


def _names_only_question(named: list[str], view: TableView, gold: GoldItem, spec: GoldSpec) -> bool:
    """The asked column is known and the answer names none of its other values but those the question
    names (`named`: the other values the answer contains)."""
    if not view.gold(gold.keys, spec.loc.stopwords).columns:
        return False
    q = spec.context.tokens if spec.context is not None else frozenset()
    return all(set(n.split()) <= q for n in named)


def _unique_part(tokens: list[str], gold: GoldItem, spec: GoldSpec, view: TableView) -> tuple[int, int] | None:
    """Part of the gold standing alone ("the Cardinals", "Urlacher", "Elena Proklova") that no other row
    of the asked column has: the answer names the gold's cell."""
    cols = view.gold(gold.keys, spec.loc.stopwords).columns
    if len(cols) != 1:
        return None
    stop = spec.loc.stopwords
    q = spec.context.tokens if spec.context is not None else frozenset()

    def is_gold_word(t: str) -> bool:
        return t in gold.tokens or (len(t) > 3 and any(within_edits(t, g, allowed_edits(g)) for g in gold.tokens))

    best: tuple[int, int] | None = None
    i = 0
    while i < len(tokens):
        if not is_gold_word(tokens[i]) or tokens[i] in stop:
            i += 1
            continue
        j = i
        while j < len(tokens) and is_gold_word(tokens[j]) and tokens[j] not in q:
            j += 1
        run = tokens[i:j]
        before = tokens[i - 1] if i else ""
        after = tokens[j] if j < len(tokens) else ""
        loose = [x for x in (before, after) if x and x not in stop and x not in q]
        if run and not loose and any(len(t) >= 4 and not t.isdigit() for t in run):
            if best is not None:
                return None  # two separate parts: not one name
            best = (i, j)
        i = max(j, i + 1)
    if best is None:
        return None
    words = tokens[best[0]:best[1]]
    owners = view.owners(cols[0], words, edits=1)
    gold_rows = view.gold_rows(cols[0], gold.keys)
    if owners and owners <= gold_rows:
        return best
    return None


def _cell_lines(span: str, tokens: list[str], gold: GoldItem, spec: GoldSpec,
                view: TableView) -> tuple[str, str] | None:
    """A gold cell holding several names on separate lines ("Cataraqui Town Centre / St. Lawrence
    College", given as one string): naming every line is right; naming one and another value of the
    column beside it is wrong."""
    where = view.gold(gold.keys, spec.loc.stopwords)
    lines = where.lines
    if len(lines) < 2:
        return None
    span_key = " ".join(tokens)
    named = [ln for ln in lines if contains_phrase(span_key, ln)]
    if len(named) == len(lines):
        return CORRECT, "the answer names every line of the gold's cell"
    if not named:
        return None
    words = tokens_of(span)
    first = words.find(named[0])
    if not first:
        return None
    at = (first[0], first[0] + named[0].count(" ") + 1)
    q = spec.context.tokens if spec.context is not None else frozenset()
    other = listed_with(words, at, [n for n in where.named_in(tokens) if n not in lines], q, spec.loc)
    if other is not None:
        return INCORRECT, f"the answer names part of the gold's cell and {other!r}, another value of the column"
    return None


def _word_after(text: str, end: int) -> str:
    words = key(text[end:end + 24]).split()
    return words[0] if words else ""


def _no_mention(tokens: list[str], spec: GoldSpec, gold: GoldItem) -> tuple[str, str]:
    ctx = spec.context
    if ctx is not None:
        for a, b in ctx.competitor_sides:
            if (a in gold.tokens or b in gold.tokens) and a not in tokens and b not in tokens:
                return UNCERTAIN, "a two-way question answered without naming either alternative"
    q = ctx.tokens if ctx is not None else frozenset()
    stop = spec.loc.stopwords
    for i, t in enumerate(tokens):
        # A distinctive gold word standing alone ("the Cardinals" for "St. Louis Cardinals"), not as part of
        # another name ("North Texas State" for "Texas Pan-American", "Mizuno Open" for "Tsuruya Open").
        if t not in gold.tokens or len(t) < 4 or t in stop or t.isdigit() or t in q or len(gold.tokens) < 2:
            continue
        neighbours = [x for x in (tokens[i - 1] if i else "", tokens[i + 1] if i + 1 < len(tokens) else "")
                      if x and x not in stop and x not in q
                      and not any(within_edits(x, g, allowed_edits(g)) for g in gold.tokens)]
        if not neighbours:
            return UNCERTAIN, "the answer names part of the gold"
    return INCORRECT, "the gold is not in the answer"


# --- lists ---------------------------------------------------------------------------------------------

def _judge_list(span: str, spec: GoldSpec, tol: _Tolerance) -> tuple[str, str]:
    items = spec.items
    if any(_script_violation(span, it) for it in items) and not has_arabic(span):
        return INCORRECT, "Arabic entities answered in another script"

    def number_eq(gold: GoldItem) -> object:
        def eq(item_key: str) -> bool:
            assert gold.number is not None
            nums = find_numbers(item_key, spec.loc)
            return len(nums) == 1 and numbers_equal(gold.number, nums[0], tolerance=tol.absolute,
                                                   relative_tolerance=tol.relative)
        return eq

    answered = split_items(span, spec.loc, keep=tuple(fold(it.text) for it in items))
    longest = max(len(k.split()) for it in items for k in it.keys[:1])
    sentence_words = spec.loc.stopwords - _NAME_WORDS
    bare = not any(t in sentence_words for t in key(span).split())
    if answered and bare and all(len(a.split()) <= longest + 2 for a in answered):
        matched_gold = [any(match_item(a, g, number_eq(g)) for a in answered) for g in items]  # type: ignore[arg-type]
        matched_answer = [any(match_item(a, g, number_eq(g)) for g in items) for a in answered]  # type: ignore[arg-type]
        if all(matched_gold) and all(matched_answer):
            return CORRECT, "list matches as a set"
        if all(matched_gold):
            return INCORRECT, "list has items not in the gold"
        if any(matched_gold) or len(answered) > 1:
            return INCORRECT, f"list misses {matched_gold.count(False)} of {len(items)} gold items"
    span_key = key(span)
    tokens = span_key.split()
    nums = None
    found = 0
    for g in items:
        if g.number is not None:
            nums = nums if nums is not None else _candidates(span, spec)
            ok = any(numbers_equal(g.number, n, tolerance=tol.absolute, relative_tolerance=tol.relative)
                     for n in nums)
        else:
            ok = _find_mention(tokens, span_key, g) is not None
        found += ok
    if found == len(items):
        if all(g.number is None for g in items):
            extra = [a for a in answered if len(a.split()) <= longest + 1
                     and not any(t in sentence_words for t in a.split())
                     and not any(match_item(a, g) or contains_phrase(a, g.keys[0]) for g in items)]
            if extra:
                return INCORRECT, f"the answer lists items not in the gold ({extra[0]!r})"
            union = frozenset().union(*(g.tokens for g in items))
            doubt = sentence_doubt(tokens, (0, 0), union, spec.context, spec.loc, is_list=True)
            if doubt:
                return doubt
        return CORRECT, "the answer states every gold item"
    if refusal_kind(span, spec.loc):
        return INCORRECT, "declined an answerable question"
    if found:
        return INCORRECT, f"the answer states {found} of {len(items)} gold items"
    return INCORRECT, "no gold item in the answer"


# --- booleans, options, imperfect tables ---------------------------------------------------------------

def _judge_boolean(span: str, spec: GoldSpec) -> tuple[str, str]:
    said = polarity(span, spec.loc)
    if said is None:
        if refusal_kind(span, spec.loc):
            return INCORRECT, "declined to say true or false"
        return UNCERTAIN, "no clear true/false"
    lead = leading_polarity_end(span, spec.loc)
    if lead and spec.context is not None:
        content = key(span[lead:]).split()
        implied = content_polarity(spec.context.tokens, content, spec.loc)
        if implied is not None and implied != said:
            return UNCERTAIN, "the yes/no and its own sentence disagree (the sentence turns the question round)"
    return (CORRECT, "polarity matches") if said == spec.boolean else (INCORRECT, "polarity differs")


def _judge_option(span: str, spec: GoldSpec) -> tuple[str, str]:
    choice = read_choice(span, list(spec.option_keys), spec.loc)
    if choice.disagreement:
        if spec.option not in choice.options:  # neither the label nor the text after it names the gold
            return INCORRECT, f"{choice.disagreement}; the gold is option {spec.option}"
        return UNCERTAIN, choice.disagreement
    chosen = choice.options
    if not chosen:
        return INCORRECT, "no option recognised"
    if len(chosen) > 1:
        return UNCERTAIN, f"the answer points at several options {sorted(chosen)}"
    got = next(iter(chosen))
    return (CORRECT, f"option {got} chosen") if got == spec.option else (INCORRECT, f"option {got} chosen, "
                                                                                    f"gold {spec.option}")


def _judge_imperfect(span: str, spec: GoldSpec, method: str) -> tuple[str, str]:
    claimed = refusal_kind(span, spec.loc)
    if claimed is None:
        if find_numbers(span, spec.loc):
            return INCORRECT, "a numeric answer to an unanswerable question"
        return INCORRECT, f"does not say the table is {spec.kind}"
    first = key(span).split()[:1]
    if method in _STRUCTURED and first and first[0].isdigit():
        return INCORRECT, "a numeric final answer to an unanswerable question"
    if claimed == spec.kind:
        return CORRECT, f"recognises the table is {spec.kind}"
    return UNCERTAIN, f"recognises the question is unanswerable but calls it {claimed}, gold {spec.kind}"
