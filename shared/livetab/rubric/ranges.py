"""Year and season ranges in their notations.

Tables write seasons and periods many ways: 1936/37, 1936–37, 1936-1937, 1936/1937 and "1936 to
1937" are one season; 1999/00 and 1999–2000 are one too (the short end rolls into the next century).
`find_ranges` reads every range in a folded text as (first year, last year); `gold_range` reads a gold
that is nothing but a range. Two ranges are the same when both years are.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["find_ranges", "gold_range"]

# 4-digit year, a dash / slash / "to" / "إلى" / "حتى", then 2 or 4 digits (not part of a longer number).
_RANGE = re.compile(r"(?<![\d.,])(1[0-9]{3}|20[0-9]{2})\s*(?:[-/]|\s(?:to|until|through|الي|حتي)\s)\s*"
                    r"(\d{4}|\d{2})(?![\d.,/-]?\d)")
_ONLY_RANGE = re.compile(r"^\s*(?:season\s+|موسم\s+)?(.*?)\s*(?:season|موسم)?\s*$")


def _years(first: str, last: str) -> tuple[int, int] | None:
    a = int(first)
    if len(last) == 2:
        b = a // 100 * 100 + int(last)
        if b < a:
            b += 100  # 1999/00 -> 2000
    else:
        b = int(last)
    if not a < b <= a + 100:
        return None
    return a, b


def find_ranges(folded: str) -> list[tuple[int, int]]:
    """Every year range in `folded` text, as (first year, last year)."""
    if ("-" not in folded and "/" not in folded and " t" not in folded and " u" not in folded and "ال" not in folded
            and "حت" not in folded):  # the dash, the slash, "to"/"through", "until", "إلى", "حتى"
        return []
    out = []
    for m in _RANGE.finditer(folded):
        r = _years(m.group(1), m.group(2))
        if r is not None:
            out.append(r)
    return out


@lru_cache(maxsize=4096)
def gold_range(folded_gold: str) -> tuple[int, int] | None:
    """The range a gold string is (`"1936/37"`, `"2000-2005"`, `"1999/00 season"`), or None."""
    core = _ONLY_RANGE.match(folded_gold)
    text = core.group(1) if core else folded_gold
    m = _RANGE.fullmatch(text.strip())
    return _years(m.group(1), m.group(2)) if m else None
