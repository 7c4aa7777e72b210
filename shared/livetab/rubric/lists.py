"""Lists: equal as sets, whatever the order, separators or conjunctions.

AraTable: "lists equal as sets regardless of order, punctuation or language formatting"
("فندق أ و فندق ب" = [فندق ب, فندق أ]). A bare list answer is split on commas, semicolons, pipes,
slashes, new lines, "and", "&" and the Arabic "و", then matched item by item against the gold (text
keys with the spelling-slip allowance, numbers with the numeric tolerance); a sentence is checked
for every gold item by containment. A gold item that itself holds a separator ("January 9, 1987",
"Tour of Belgium, Overall", "Lewis and Clark River Bridge", "الصحة والتعليم") is kept whole where the
answer writes it out, so the gold is never split into items that are not in it.
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


def _whole(phrase: str) -> re.Pattern[str]:
    words = [re.escape(w) for w in phrase.split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)")


def split_items(folded: str, loc: Locale, keep: tuple[str, ...] = ()) -> list[str]:
    """Item keys of a bare list answer ('chile, ecuador and peru' -> ['chile', 'ecuador', 'peru']);
    `keep`: folded gold texts that stay one item where they occur whole, separators and all."""
    lines = [_BULLET.sub("", ln) for ln in folded.splitlines()]
    text = "\n".join(lines)
    kept: list[str] = []
    for phrase in sorted({p.strip() for p in keep if p.strip()}, key=len, reverse=True):
        if _splitter(loc).search(phrase):
            text, n = _whole(phrase).subn(f"\x00{len(kept)}\x00", text)
            if n:
                kept.append(phrase)
    parts = _splitter(loc).split(text)
    items = []
    for p in parts:
        p = re.sub(r"\x00(\d+)\x00", lambda m: kept[int(m.group(1))], p)
        k = key(p)
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
