"""Lists: equal as sets, whatever the order, separators or conjunctions.

AraTable: "lists equal as sets regardless of order, punctuation or language formatting"
("فندق أ و فندق ب" = [فندق ب, فندق أ]). A bare list answer is split on commas, semicolons, pipes,
slashes, new lines, "and", "&" and the Arabic "و", then matched item by item against the gold (text
keys with the spelling-slip allowance, numbers with the numeric tolerance); a sentence is checked
for every gold item by containment.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from livetab.rubric.gold import GoldItem
from livetab.rubric.locale import Locale
from livetab.rubric.text import key, within_edits

__all__ = ["match_item", "split_items"]

_BULLET = re.compile(r"^\s*(?:[-•*]|\d{1,2}[.)])\s+")


@cache
def _splitter(loc: Locale) -> re.Pattern[str]:
    words = [re.escape(c) for c in loc.conjunctions if c.isalpha() and c != "و"] + ["or"]
    arabic = r"|\s+و\s*(?=\S)" if loc.arabic else r"|\s+و\s+"
    return re.compile(rf"\s*(?:(?<!\d),|,(?!\d{{3}})|[;|/\n]|&|\s(?:{'|'.join(words)})\s{arabic})\s*")


def split_items(folded: str, loc: Locale) -> list[str]:
    """Item keys of a bare list answer ('chile, ecuador and peru' -> ['chile', 'ecuador', 'peru'])."""
    lines = [_BULLET.sub("", ln) for ln in folded.splitlines()]
    parts = _splitter(loc).split("\n".join(lines))
    items = []
    for p in parts:
        k = key(p, folded=True)
        if k.startswith("and "):
            k = k[4:]
        if k:
            items.append(k)
    return items


def match_item(item_key: str, gold: GoldItem, number_eq: Callable[[str], bool] | None = None) -> bool:
    """Does one answered item equal one gold item?"""
    if item_key in gold.keys:
        return True
    if item_key.startswith("و") and item_key[1:] in gold.keys:
        return True
    if gold.number is not None and number_eq is not None:
        return number_eq(item_key)
    if gold.edits:
        return any(within_edits(item_key, k, gold.edits) for k in gold.keys)
    return False
