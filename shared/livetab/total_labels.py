"""Which row labels say "total": the one list every service reads.

A row whose label starts with a total word ("Total", "Subtotal", "Grand total", "Insgesamt", "المجموع") or
ends with one ("Segment total", "عدد السكان الإجمالي") summarises rows of its table. The scraper marks such
rows in `Table.total_rows` and qagen never counts them as data, so both read the words from here; the words
themselves are data in each language pack (`livetab/rubric/locales/<lang>.json`, section `total_rows`: `start`
and `end`). A label is read in English, Arabic and the table's own language (a German Wikipedia table may write
"Total"), folded as the rubric folds answers (case, accents, Arabic letter variants).
"""

from __future__ import annotations

import re
from functools import cache

from livetab.rubric.locale import pack_section
from livetab.rubric.text import fold

__all__ = ["is_total_label", "total_words"]


def _lang(language: str) -> str:
    return (language or "en").lower().split("-")[0].split("_")[0]


@cache
def total_words(language: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(words a total label starts with, words it ends with), folded: English, Arabic and `language`'s own."""
    start: list[str] = []
    end: list[str] = []
    for lang in dict.fromkeys(["en", "ar", _lang(language)]):
        section = pack_section(lang, "total_rows")
        start += [fold(w) for w in section.get("start", [])]
        end += [fold(w) for w in section.get("end", [])]
    return tuple(dict.fromkeys(start)), tuple(dict.fromkeys(end))


def _alt(words: tuple[str, ...]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) or "(?!)"


@cache
def _pattern(language: str) -> re.Pattern[str]:
    start, end = total_words(language)
    return re.compile(rf"^\s*(?:sub-?\s?)?(?:{_alt(start)})(?!\w)|(?<!\w)(?:{_alt(end)})\s*(?:\(\d\))?\s*:?\s*$")


def is_total_label(text: str, language: str = "en") -> bool:
    """Whether a row label says the row is a total (or subtotal) of others."""
    return bool(text) and _pattern(_lang(language)).search(fold(text)) is not None
