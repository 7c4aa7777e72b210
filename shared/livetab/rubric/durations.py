"""Durations: "5h 29' 10\"", "5 hours, 29 minutes and 10 seconds", "1:47.61", "3 ساعات".

Read as seconds, so a gold written in one notation matches an answer in another. Clock notation
"a:b" is minutes:seconds, "a:b:c" hours:minutes:seconds (race times, as in WTQ's tables).
"""

from __future__ import annotations

import re

__all__ = ["find_durations"]

# "''" (seconds, two apostrophes) comes before "'" (minutes): the first alternative that matches wins
_UNIT = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s*(hours?|hrs?|h|ساعات|ساعة|ساعه|''|minutes?|mins?|m|'|دقائق|دقيقة|دقيقه"
    r"|seconds?|secs?|s|\"|ثواني|ثانية|ثانيه)(?![^\W\d_])"
)
_CLOCK = re.compile(r"(?<![\d:.])(\d{1,2}):(\d{2})(?::(\d{2}(?:\.\d+)?)|(\.\d+))?(?![\d:])")
_FACTOR = {"h": 3600.0, "m": 60.0, "s": 1.0}


def _unit(word: str) -> str:
    if word in ("'", ) or word.startswith("min") or word == "m" or word.startswith("دق"):
        return "m"
    if word in ('"', "''") or word.startswith("s") or word.startswith("ث"):
        return "s"
    return "h"


def find_durations(folded: str) -> list[float]:
    """Durations in seconds; adjacent unit groups ("5h 29' 10\"") form one duration."""
    found: list[float] = []
    for m in _CLOCK.finditer(folded):
        a, b, c, frac = m.groups()
        if c is not None:
            found.append(int(a) * 3600 + int(b) * 60 + float(c))
        else:
            found.append(int(a) * 60 + float(b + (frac or "")))
    total, last_end = 0.0, -1
    units: set[str] = set()
    for m in _UNIT.finditer(folded):
        u = _unit(m.group(2))
        gap = folded[last_end:m.start()] if last_end >= 0 else ""
        joined = last_end >= 0 and u not in units and re.fullmatch(r"[\s,]*(?:and|و)?[\s,]*", gap) is not None
        if not joined and units:
            found.append(total)
            total, units = 0.0, set()
        total += float(m.group(1)) * _FACTOR[u]
        units.add(u)
        last_end = m.end()
    if units and (len(units) > 1 or "h" in units or not found):
        found.append(total)
    return found
