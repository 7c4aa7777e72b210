"""Multiple choice: which option a response chose.

Options are numbered from 1 ("Option 3" is the third), as in TeleTables' prompts; letters map to
the same positions (a/A/أ = 1, b/ب = 2, c/ج = 3, d/د = 4, ...). A response may name an option by
"Option 3", "3", "(c)", "C)", "c.", `\\boxed{3}` (already unwrapped by extraction) or by the
option's text. References that disagree make the choice undecided, and so does a label followed by
an option text that is not the labelled option's: "C. 3:45" when option 3 is "1:16" ("C. 1:16" is
option 3; a bare "C" is judged by the letter alone). Option texts and spans are compared by `option_key`,
which keeps a leading minus sign: "-1" and "1" are different options, not one key "1".
"""

from __future__ import annotations

import re
from functools import cache
from typing import NamedTuple

from livetab.rubric.locale import Locale
from livetab.rubric.text import contains_phrase, fold, key

__all__ = ["Choice", "chosen_options", "option_key", "read_choice"]

_LATIN = "abcdefghijklmnopqrstuvwxyz"
_ARABIC = ["ا", "ب", "ج", "د", "ه", "و", "ز", "ح"]  # abjad order, folded (أ -> ا)
_ALWAYS = ("option", "choice", "alternative", "answer", "الخيار", "خيار", "الاختيار")  # read in every language


@cache
def _explicit(loc: Locale) -> re.Pattern[str]:
    """"Option 3", "opción 2", "Вариант 4", "الخيار ب": an option word of the language (the pack's
    `option_words`, and the English and Arabic ones in every language) and a number or letter."""
    words = "|".join(re.escape(w) for w in sorted({*loc.option_words, *_ALWAYS}, key=len, reverse=True))
    return re.compile(
        rf"(?<![^\W_])(?:{words})\s*(?:number|no\.?|nr\.?|n\.?o|№|номер|رقم)?\s*[:#]?\s*"
        r"[(\[]?([0-9]{1,2}|[a-z]|[ابجده])(?![^\W_])[)\].:]?"
    )

_PAREN = re.compile(r"(?<![^\s(\[\"'])[(\[]([0-9]{1,2}|[a-z]|[ابجده])[)\]]")
_CLOSE = re.compile(r"(?:^|(?<=\s))([0-9]{1,2}|[a-z]|[ابجده])[).:](?=\s|$)")
_NEGATIVE = re.compile(r"^\s*[-−–]\s*[0-9]")
_SYMBOLS = str.maketrans({"♭": " flat ", "♯": " sharp ", "@": " at "})
_LEADING_LABEL = re.compile(r"(?:\(([0-9]{1,2}|[a-z]|[ابجده])\)|([0-9]{1,2}|[a-z]|[ابجده])[).:])\s+(?=\S)")


def option_key(text: str) -> str:
    """`key` of an option text or a response span, keeping what tells real options apart that `key` drops:
    a leading minus ("-1" is not "1") and the symbols ♭ ♯ @ as words ("A♭" is not "A", "@ Chicago" - an
    away game - is not "Chicago")."""
    f = fold(text)  # a folded span may be given: `fold` is idempotent
    if "♭" in f or "♯" in f or "@" in f:
        f = f.translate(_SYMBOLS)
    k = key(f)
    return f"minus {k}" if k and _NEGATIVE.match(f) else k


def _index(token: str, n: int) -> int | None:
    if token.isdigit():
        i = int(token)
    elif len(token) == 1 and token in _LATIN:  # one letter: "ab" is a substring of the alphabet, no label
        i = _LATIN.index(token) + 1
    elif token in _ARABIC:
        i = _ARABIC.index(token) + 1
    else:
        return None
    return i if 1 <= i <= n else None


class Choice(NamedTuple):
    options: frozenset[int]  # the 1-based options the span points at (empty: none recognised)
    disagreement: str = ""  # why a label and the text after it do not name the same option ("" if they do)


def _named(span_key: str, option_keys: list[str]) -> set[int]:
    """Options whose text the key contains; an option text inside a longer one ("5 dB" in "15 dB") is not
    a second choice."""
    named = [i + 1 for i, k in enumerate(option_keys) if k and contains_phrase(span_key, k)]
    if len(named) > 1:
        return {i for i in named if not any(j != i and option_keys[i - 1] in option_keys[j - 1] for j in named)}
    return set(named)


def _label_text(folded: str, m: re.Match[str], chosen: int, option_keys: list[str]) -> Choice:
    """A label at the start of the span ("C.", "(c)", "Option 3:") and the text after it: both must name
    the same option."""
    rest = option_key(folded[m.end():])
    if not rest:
        return Choice(frozenset({chosen}))
    named = _named(rest, option_keys)
    if named == {chosen}:
        return Choice(frozenset({chosen}))
    if not named:
        return Choice(frozenset({chosen}), f"option {chosen} is labelled but the text after it is no option's")
    return Choice(frozenset(named | {chosen}),
                  f"the label names option {chosen}, the text after it option(s) {sorted(named)}")


def read_choice(folded: str, option_keys: list[str], loc: Locale) -> Choice:
    """Which options a folded response span points at, and whether its label and text disagree."""
    n = len(option_keys)
    span_key = option_key(folded)
    # The whole answer is one option's text (option texts may themselves be numbers).
    exact = {i + 1 for i, k in enumerate(option_keys) if k and span_key == k}
    if exact:
        return Choice(frozenset(exact))
    if " " not in span_key:
        single = _index(span_key, n)
        if single is not None:
            return Choice(frozenset({single}))
    stripped = folded.strip()
    # "D. Wayne Zahn (5)", "B. 1: 2009": a leading label and then exactly one option's whole text; brackets
    # and colons inside that text are not references to other options
    lead = _LEADING_LABEL.match(stripped)
    if lead is not None:
        labelled = _index(lead.group(1) or lead.group(2), n)
        rest = option_key(stripped[lead.end():])
        if labelled is not None and sum(1 for k in option_keys if k and k == rest) == 1:
            return _label_text(stripped, lead, labelled, option_keys)
    for pattern in (_explicit(loc), _PAREN, _CLOSE):
        explicit: set[int] = set()
        first: re.Match[str] | None = None
        for m in pattern.finditer(stripped):
            i = _index(m.group(1), n)
            if i is not None:
                explicit.add(i)
                first = first or m
        if explicit:
            if (len(explicit) == 1 and first is not None and first.start() == 0
                    and first.group(0)[-1] in ").:]"):
                return _label_text(stripped, first, next(iter(explicit)), option_keys)
            return Choice(frozenset(explicit))
    return Choice(frozenset(_named(span_key, option_keys)))


def chosen_options(folded: str, option_keys: list[str], loc: Locale) -> set[int]:
    """The 1-based options a folded response span points at (empty: none recognised)."""
    return set(read_choice(folded, option_keys, loc).options)
