"""Multiple choice: which option a response chose.

Options are numbered from 1 ("Option 3" is the third), as in TeleTables' prompts; letters map to
the same positions (a/A/أ = 1, b/ب = 2, c/ج = 3, d/د = 4, ...). A response may name an option by
"Option 3", "3", "(c)", "C)", "c.", `\\boxed{3}` (already unwrapped by extraction) or by the
option's text. References that disagree make the choice undecided.
"""

from __future__ import annotations

import re

from livetab_judge.rubric.locale import Locale
from livetab_judge.rubric.text import contains_phrase, key

__all__ = ["chosen_options"]

_LATIN = "abcdefghijklmnopqrstuvwxyz"
_ARABIC = ["ا", "ب", "ج", "د", "ه", "و", "ز", "ح"]  # abjad order, folded (أ -> ا)
_EXPLICIT = re.compile(
    r"(?:option|choice|alternative|answer|الخيار|خيار|الاختيار)\s*(?:number|no\.?|رقم)?\s*[:#]?\s*"
    r"[(\[]?([0-9]{1,2}|[a-z]|[ابجده])(?![^\W_])[)\].:]?"
)
_PAREN = re.compile(r"(?<![^\s(\[\"'])[(\[]([0-9]{1,2}|[a-z]|[ابجده])[)\]]")
_CLOSE = re.compile(r"(?:^|(?<=\s))([0-9]{1,2}|[a-z]|[ابجده])[).:](?=\s|$)")


def _index(token: str, n: int) -> int | None:
    if token.isdigit():
        i = int(token)
    elif token in _LATIN:
        i = _LATIN.index(token) + 1
    elif token in _ARABIC:
        i = _ARABIC.index(token) + 1
    else:
        return None
    return i if 1 <= i <= n else None


def chosen_options(folded: str, option_keys: list[str], loc: Locale) -> set[int]:
    """The 1-based options a folded response span points at (empty: none recognised)."""
    n = len(option_keys)
    span_key = key(folded, folded=True)
    # The whole answer is one option's text (option texts may themselves be numbers).
    exact = {i + 1 for i, k in enumerate(option_keys) if k and span_key == k}
    if exact:
        return exact
    if " " not in span_key:
        single = _index(span_key, n)
        if single is not None:
            return {single}
    explicit: set[int] = set()
    for pattern in (_EXPLICIT, _PAREN, _CLOSE):
        for m in pattern.finditer(folded):
            i = _index(m.group(1), n)
            if i is not None:
                explicit.add(i)
        if explicit:
            return explicit
    named = [i + 1 for i, k in enumerate(option_keys) if k and contains_phrase(span_key, k)]
    if len(named) > 1:  # an option text inside a longer one ("5 dB" in "15 dB") is not a second choice
        longest = {i for i in named
                   if not any(j != i and option_keys[i - 1] in option_keys[j - 1] for j in named)}
        return longest
    return set(named)
