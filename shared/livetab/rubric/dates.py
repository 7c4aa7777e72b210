"""Dates in several notations: 2004-05-03, 3 May 2004, May 3, 2004, 03/05/2004, 3 مايو 2004.

A date is a (year, month, day) triple with None for parts not written ("May 3" has no year; WTQ's
gold "xxxx-09-29" has none either). A numeric d/m/y date whose first two fields are both <= 12 and
differ is ambiguous (3 May or March 5): it is kept with both readings and the judge says "uncertain"
when only one reading matches the gold.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import NamedTuple

from livetab.rubric.locale import Locale
from livetab.rubric.text import has_digit, key_tokens

__all__ = ["DateMention", "date_matches", "find_dates", "parse_iso_like"]

Ymd = tuple[int | None, int | None, int | None]


class DateMention(NamedTuple):
    readings: tuple[Ymd, ...]  # one reading, or two for an ambiguous numeric date
    start: int
    end: int


@cache
def _date_res(loc: Locale) -> tuple[re.Pattern[str], ...]:
    mon = loc.month_alt
    ordinal = r"(?:st|nd|rd|th|er|\.)?"  # 3rd, 1er (fr), 17. (de)
    # the words a language puts between a date's parts: "3rd of May", "17 de marzo de 2025"
    fill = "|".join(re.escape(w) for w in sorted(loc.date_fillers | {"of"}, key=len, reverse=True))
    return (
        re.compile(r"(?<!\d)(?P<y>\d{4})-(?P<m>\d{1,2}|xx)-(?P<d>\d{1,2}|xx)(?!\d)"),
        re.compile(r"(?<![\w])(?P<y>xxxx)-(?P<m>\d{1,2}|xx)-(?P<d>\d{1,2}|xx)(?!\d)"),
        re.compile(rf"(?<!\d)(?P<d>\d{{1,2}}){ordinal}[ ]+(?:(?:{fill})[ ]+)?(?P<mon>{mon})\.?(?![^\W\d_])"
                   rf"(?:,?[ ]+(?:(?:{fill})[ ]+)?(?P<y>\d{{4}})(?!\d))?"),
        re.compile(rf"(?<![^\W\d_])(?P<mon>{mon})\.?[ ]+(?P<d>\d{{1,2}}){ordinal}(?!\d)"
                   rf"(?:,?[ ]+(?P<y>\d{{4}})(?!\d))?"),
        re.compile(rf"(?<![^\W\d_])(?P<mon>{mon})\.?,?[ ]+(?P<y>\d{{4}})(?!\d)"),
        re.compile(r"(?<![\d/.])(?P<a>\d{1,2})[/.](?P<b>\d{1,2})[/.](?P<y>\d{4})(?![\d/])"),
    )


def _num(text: str | None) -> int | None:
    if text is None or text == "xx" or text == "xxxx":
        return None
    return int(text)


def _valid(y: int | None, m: int | None, d: int | None) -> bool:
    return (m is None or 1 <= m <= 12) and (d is None or 1 <= d <= 31) and (y is None or 1 <= y <= 9999)


_NUMERIC_DATE_HINT = re.compile(r"\d[-/.]\d|xxxx")


@cache
def _month_words(loc: Locale) -> frozenset[str]:
    return frozenset(w for m in loc.months for w in m.split())


@lru_cache(maxsize=8)
def find_dates(folded: str, loc: Locale) -> tuple[DateMention, ...]:
    """Dates mentioned in folded text; overlapping matches keep the first (most specific) pattern."""
    if not has_digit(folded):
        return ()
    if _month_words(loc).isdisjoint(key_tokens(folded)) and _NUMERIC_DATE_HINT.search(folded) is None:
        return ()
    return tuple(_find_dates(folded, loc))


def _find_dates(folded: str, loc: Locale) -> list[DateMention]:
    found: list[DateMention] = []
    taken: list[tuple[int, int]] = []
    for i, pattern in enumerate(_date_res(loc)):
        for m in pattern.finditer(folded):
            if any(s < m.end() and m.start() < e for s, e in taken):
                continue
            g = m.groupdict()
            readings: list[Ymd]
            if i == 5:
                a, b, y = int(g["a"]), int(g["b"]), int(g["y"])
                readings = [r for r in ((y, b, a), (y, a, b)) if _valid(*r)]
                if len(readings) == 2 and readings[0] == readings[1]:
                    readings = readings[:1]
            else:
                month = loc.months[g["mon"]] if g.get("mon") else _num(g.get("m"))
                ymd = (_num(g.get("y")), month, _num(g.get("d")))
                readings = [ymd] if _valid(*ymd) else []
            if readings:
                found.append(DateMention(tuple(readings), m.start(), m.end()))
                taken.append((m.start(), m.end()))
    found.sort(key=lambda d: d.start)
    return found


def parse_iso_like(text: str, loc: Locale) -> DateMention | None:
    """The date a bare gold string denotes ("2006-03-04", "xxxx-09-29", "March 4, 2006"), if it is one."""
    stripped = text.strip().rstrip(".")
    dates = find_dates(stripped, loc)
    if len(dates) == 1 and dates[0].start == 0 and dates[0].end == len(stripped) and len(dates[0].readings) == 1:
        return dates[0]
    return None


def date_matches(gold: Ymd, answer: DateMention) -> bool | None:
    """True if every reading of `answer` agrees with `gold` on the parts gold has; None if readings differ."""
    results = set()
    for reading in answer.readings:
        ok = all(g is None or g == a for g, a in zip(gold, reading, strict=True))
        results.add(ok)
    if len(results) == 2:
        return None
    return results.pop()
