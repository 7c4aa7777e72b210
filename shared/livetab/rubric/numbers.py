"""Numbers as people write them: digits in any script, separators, words, scales, percents.

`find_numbers` reads every number mentioned in folded text (see `text.fold`): "492,111", "1.234,5"
(German), "٣٨٬٠٠٠" (already folded to "38,000"), "forty", "twenty-one", "two hundred", "أربعون",
"خمسة وعشرون", "38 ألف", "3.78 million", "25%", "25 percent", "2nd".

Tolerance (AraTable: "numbers equal within ±0.005 ('1.883' accepted for '1.889')"): the difference
in that example is 0.006, so a literal |a - b| <= 0.005 would reject the rubric's own example. We
read "±0.005" as a band of half-width `tolerance` around each number; two numbers are equal when
their bands overlap, i.e. |a - b| <= 2 * tolerance. This is the one reading under which the example
holds, and it still rejects 138.0 for 138.2. A response written with fewer significant digits than
the gold and marked as approximate (a scale word: "3.78 million" for 3,783,069, "38 ألف" for 38,150; or
an approximation word: "around 40", "حوالي 40") is also accepted when it is the gold rounded to that
precision (within half a unit of its last digit) and within `relative_tolerance` of the gold (default
1%). Anything else must agree within the band: "2060" is not "2061", "138.0" is not "138.2".
"""

from __future__ import annotations

import math
import re
from functools import cache, lru_cache
from typing import NamedTuple

from livetab.numbers import number_pattern
from livetab.rubric.locale import Locale
from livetab.rubric.text import has_digit, key_tokens

__all__ = ["NumberMention", "find_numbers", "number_from_float", "numbers_equal", "significant_digits", "within_band"]


class NumberMention(NamedTuple):  # a named tuple: built for every number read, several times cheaper
    value: float
    start: int
    end: int
    percent: bool = False
    sig: int = 1  # significant digits as written (answers: only read when `rounded`, else 0)
    place: float = 1.0  # value of one unit in the last written digit (0.01 for "1.88", 1000 for "38 ألف")
    rounded: bool = False  # written as an approximation: a scale word ("3.78 million") or "around", "حوالي"


def significant_digits(digits: str) -> tuple[int, float]:
    """(significant digits, value of the last significant place) of a plain decimal string."""
    digits = digits.lstrip("+-")
    if "." in digits:
        whole, frac = digits.split(".", 1)
        stripped = (whole + frac).lstrip("0")
        return max(len(stripped), 1), 10.0 ** -len(frac)
    stripped = digits.lstrip("0")
    if not stripped:
        return 1, 1.0
    trailing = len(stripped) - len(stripped.rstrip("0"))
    return max(len(stripped) - trailing, 1), 10.0 ** trailing


def number_from_float(value: float, percent: bool = False) -> NumberMention:
    """A gold number given as a float (its precision read from its shortest repr)."""
    text = repr(float(value))
    if "e" in text or "E" in text:
        text = f"{value:.15f}".rstrip("0")
    if text.endswith(".0"):
        text = text[:-2]
    sig, place = significant_digits(text)
    return NumberMention(float(value), 0, 0, percent, sig, place)


@cache
def _strip_table(group: str) -> dict[int, None]:
    return dict.fromkeys(map(ord, group))


@cache
def _digit_re(group: str, decimal: str, scale_alt: str, percent_alt: str) -> re.Pattern[str]:
    scale = rf"(?:[ ]?(?P<scale>{scale_alt})(?![^\W\d_]))?" if scale_alt else ""
    pct = rf"(?:[ ]?(?P<pct>%|{percent_alt}))?" if percent_alt else r"(?:[ ]?(?P<pct>%))?"
    return re.compile(
        rf"(?<![A-Za-z0-9_.,])(?P<num>{number_pattern(decimal, group)})(?!\d)"
        rf"(?:st|nd|rd|th)?{scale}{pct}"
    )


@cache
def _word_re(word_alt: str, arabic: bool, joiner_alt: str = "and") -> re.Pattern[str]:
    if arabic:
        word = rf"(?:و[ ]?)?(?:{word_alt})"
        return re.compile(rf"(?<!\w){word}(?:[ ]+{word})*(?!\w)")
    joined = rf"|[ ]+(?:{joiner_alt})[ ]+" if joiner_alt else ""
    return re.compile(rf"\b(?:{word_alt})(?:(?:[ -]+{joined})(?:{word_alt}))*\b")


def _alt(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


@cache
def _patterns(loc: Locale) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    digit = _digit_re(loc.group, loc.decimal, _alt(list(loc.scales)), loc.percent_alt)
    words = _word_re(_alt(list(loc.units) + list(loc.scales)), loc.arabic, _alt(list(loc.number_joiners)))
    pct_after = re.compile(rf"[ ]?(?:%|{loc.percent_alt})" if loc.percent_alt else r"[ ]?%")
    return digit, words, pct_after


def _word_values(run: str, loc: Locale) -> list[float]:
    """The numbers in a run of number words ("twenty-one", "خمسة وعشرون", "two and three" -> [2, 3])."""
    values: list[float] = []
    total = 0.0
    current = 0.0
    seen = False
    prev = 0.0  # value of the previous word, to split "two three" / "two and three" in English
    tokens = _compounds([t for t in re.split(r"[ -]+", run) if t], loc)
    for i, token in enumerate(tokens):
        if token in loc.number_joiners:
            if not loc.arabic and prev < 100 and seen:
                values.append(total + current)
                total = current = 0.0
                seen = False
            continue
        if loc.arabic and token not in loc.units and token not in loc.scales and token.startswith("و"):
            token = token[1:]
        if token in loc.scales:
            current = (current or 1.0) * loc.scales[token]
            total += current
            current = 0.0
            prev = loc.scales[token]
        elif token in loc.units:
            v = loc.units[token]
            if not loc.arabic and seen and i > 0 and (
                    (prev < 20 and v < 100) or (prev >= 20 and prev < 100 and v >= 10 and v < 100)):
                values.append(total + current)
                total = current = 0.0
            if v == 100 and not loc.arabic:
                current = (current or 1.0) * 100
            else:
                current += v
            prev = v
        else:
            continue
        seen = True
    if seen:
        values.append(total + current)
    return values


def _sig_of(value: float) -> tuple[int, float]:
    if value == int(value):
        return significant_digits(str(int(abs(value))))
    return significant_digits(repr(value))


@cache
def _approx_words(loc: Locale) -> frozenset[str]:
    return frozenset(loc.approx)


@cache
def _approx_first_words(loc: Locale) -> frozenset[str]:
    return frozenset(w.split()[0] for w in loc.approx if w.split())


@cache
def _approx_lengths(loc: Locale) -> tuple[int, ...]:
    """The numbers of words of the approximation phrases ("around": 1, "close to": 2, "más o menos": 3)."""
    return tuple(sorted({len(w.split()) for w in loc.approx if w.split()}))


def _approximate(folded: str, start: int, loc: Locale) -> bool:
    """Is the number at `start` introduced by an approximation word ("around 40", "حوالي ٤٠", "~40",
    "más o menos 40")?"""
    before = folded[max(0, start - 20):start].rstrip()
    if not before:
        return False
    if before[-1] in "~≈":
        return True
    words = before.split()
    approx = _approx_words(loc)
    return any(" ".join(words[-n:]) in approx for n in _approx_lengths(loc))


@cache
def _compound_words(loc: Locale) -> dict[tuple[str, ...], str]:
    """Number words of several parts ("dix-sept", "vingt et un", "treinta y uno") by their parts."""
    out: dict[tuple[str, ...], str] = {}
    for w in loc.units:
        parts = tuple(p for p in re.split(r"[ -]+", w) if p)
        if len(parts) > 1:
            out[parts] = w
    return out


def _compounds(tokens: list[str], loc: Locale) -> list[str]:
    """Tokens with every multi-part number word joined back into its unit (longest first)."""
    compounds = _compound_words(loc)
    if not compounds:
        return tokens
    out: list[str] = []
    i = 0
    while i < len(tokens):
        for k in (4, 3, 2):
            word = compounds.get(tuple(tokens[i:i + k])) if i + k <= len(tokens) else None
            if word is not None:
                out.append(word)
                i += k
                break
        else:
            out.append(tokens[i])
            i += 1
    return out


@lru_cache(maxsize=8)  # one judgment reads the same span several times; nothing is kept beyond that
def find_numbers(folded: str, loc: Locale) -> tuple[NumberMention, ...]:
    """Every number mentioned in `folded` (output of `text.fold`), in order of appearance."""
    return tuple(_find_numbers(folded, loc))


@cache
def _number_words(loc: Locale) -> frozenset[str]:
    words = set(loc.units) | set(loc.scales)
    for w in list(words):
        words.update(w.split("-"))
    return frozenset(words)


def _may_have_number_words(folded: str, loc: Locale, words: frozenset[str] | None = None) -> bool:
    """Cheap test before the number-word regex: does any word of the text name a number?"""
    vocab = _number_words(loc)
    if words is None:
        words = key_tokens(folded)
    if not vocab.isdisjoint(words):
        return True
    return loc.arabic and any(w[:1] == "و" and w[1:] in vocab for w in words)


def _find_numbers(folded: str, loc: Locale) -> list[NumberMention]:
    digit_re, word_re, pct_after = _patterns(loc)
    tokens = key_tokens(folded)
    approx_possible = "~" in folded or "≈" in folded or not _approx_first_words(loc).isdisjoint(tokens)
    found: list[NumberMention] = []
    digits = has_digit(folded)
    if digits:
        group, decimal, scales = loc.group, loc.decimal, loc.scales
        for m in digit_re.finditer(folded):
            if scales:
                num, scale, pct = m.group("num", "scale", "pct")
            else:
                (num, pct), scale = m.group("num", "pct"), None
            plain = num.translate(_strip_table(group))  # group " " too: "3 783" -> "3783"
            if decimal != ".":
                plain = plain.replace(decimal, ".")
            try:
                value = float(plain)
            except ValueError:
                continue
            start = mstart = m.start()
            if start and folded[start - 1] == "-" and (start == 1 or not (folded[start - 2].isalnum()
                                                                         or folded[start - 2] in "._,-")):
                value = -value  # "-3", not the dash of "65-75"
                start -= 1
            rounded = bool(scale) or (approx_possible and _approximate(folded, mstart, loc))
            if rounded:
                sig, place = significant_digits(plain)
                if scale:
                    factor = scales[scale]
                    value *= factor
                    place *= factor
                found.append(NumberMention(value, start, m.end(), pct is not None, sig, place, rounded))
            else:
                found.append(NumberMention(value, start, m.end(), pct is not None, 0, 0.0, False))
    if _may_have_number_words(folded, loc, tokens):
        pos = 0
        while (wm := word_re.search(folded, pos)) is not None:
            mstart, pos = wm.start(), wm.end()
            covered = max((f.end for f in found if f.start <= mstart < f.end), default=-1) if found else -1
            if covered >= 0:
                # the scale word of a digit number ("38 ألف", "3.78 million") was already read with it; the
                # number words after it ("3.78 million and forty") are read on their own
                pos = min(pos, covered)
                continue
            run = wm.group(0)
            values = _word_values(run, loc)
            if not values:
                continue
            end = wm.end()
            pm = pct_after.match(folded, end)
            if pm is not None:
                end = pm.end()
            rounded = (approx_possible and _approximate(folded, mstart, loc)) or any(
                w in loc.scales for w in run.split())
            for i, value in enumerate(values):
                sig, place = _sig_of(value) if rounded else (0, 0.0)
                last = i == len(values) - 1
                found.append(NumberMention(value, mstart, end if last else mstart, pm is not None and last,
                                           sig, place, rounded))
    if digits and len(found) > 1:
        found.sort(key=_start)
    return found


def _start(n: NumberMention) -> int:
    return n.start


def within_band(a: float, b: float, tolerance: float) -> bool:
    """The band test of the module docstring: |a - b| <= 2 * tolerance (durations use it too)."""
    return abs(a - b) <= 2.0 * tolerance + 1e-9 * max(1.0, abs(a), abs(b))


def numbers_equal(gold: NumberMention, answer: NumberMention, *, tolerance: float = 0.005,
                  relative_tolerance: float = 0.01) -> bool:
    """AraTable's numeric equality (see the module docstring), with percent <-> fraction."""
    pairs = [(gold.value, answer.value)]
    if answer.percent != gold.percent:  # 25% = 0.25, compared in percent units (26% is not 0.25)
        pairs.append((gold.value * 100.0, answer.value) if answer.percent else (gold.value, answer.value * 100.0))
    for g, a in pairs:
        if math.isnan(g) or math.isnan(a):
            continue
        if within_band(g, a, tolerance):
            return True
        if relative_tolerance > 0 and answer.rounded and answer.sig < gold.sig:
            place = answer.place * (100.0 if (a != answer.value) else 1.0)
            diff = abs(g - a)
            if diff <= place / 2.0 + 1e-9 * abs(g) and diff <= relative_tolerance * abs(g):
                return True
    return False
