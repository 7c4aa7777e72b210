"""Text normalisation and bounded fuzzy matching.

Two forms of a string are used throughout the rubric:

* `fold(s)` — lower case, Arabic letter variants and digits unified (see `arabic.py`), Latin accents
  removed, typographic quotes and dashes made plain. Punctuation is kept, so numbers and dates can
  still be read from it.
* `key(s)` — `fold(s)` with every run of punctuation, quotes, brackets and whitespace collapsed to
  one space: the form that text answers are compared in (AraTable: "punctuation, quotes, brackets,
  commas, case, whitespace ... ignored").

Minor spelling slips are tolerated by a bounded Levenshtein distance that grows with the length of
the gold string and is zero for short strings and for anything containing a digit.
"""

from __future__ import annotations

import re
import unicodedata

from rapidfuzz.distance import Levenshtein

from livetab_judge.rubric.arabic import fold_arabic

__all__ = ["allowed_edits", "contains_phrase", "find_fuzzy", "fold", "key", "strip_leading_article",
           "within_edits"]

_PLAIN = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u00b4": "'", "`": "'", "\u201c": '"', "\u201d": '"', "\u00ab": '"',
    "\u00bb": '"', "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
    "\u00a0": " ", "\u202f": " ", "\u2009": " ", "\u200f": None, "\u200e": None, "\u200b": None,
})
_NON_WORD = re.compile(r"[\W_]+")
_ARTICLE = re.compile(r"^(?:the|a|an|ال) ")


def _strip_marks(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def fold(text: str) -> str:
    """Lower case, Arabic variants and digits unified, accents removed, quotes and dashes plain."""
    text = fold_arabic(text).translate(_PLAIN).lower()
    if not text.isascii():
        text = _strip_marks(text)
    return text


def key(text: str, folded: bool = False) -> str:
    """The comparison form: `fold` then every run of non-word characters to one space."""
    if not folded:
        text = fold(text)
    return _NON_WORD.sub(" ", text).strip()


def strip_leading_article(k: str) -> str:
    """'the st louis cardinals' -> 'st louis cardinals' (English articles; Arabic ال is a prefix, kept)."""
    m = _ARTICLE.match(k)
    return k[m.end():] if m and not k.startswith("ال") else k


def allowed_edits(k: str) -> int:
    """How many character edits count as a minor spelling slip for gold key `k`.

    None for strings under 5 characters or containing a digit (numbers are never fuzzy-matched);
    1 up to 10 characters, 2 up to 20, 3 beyond.
    """
    if len(k) < 5 or any(c.isdigit() for c in k):
        return 0
    if len(k) <= 10:
        return 1
    if len(k) <= 20:
        return 2
    return 3


def within_edits(a: str, b: str, limit: int) -> bool:
    if limit <= 0:
        return a == b
    if abs(len(a) - len(b)) > limit:
        return False
    return Levenshtein.distance(a, b, score_cutoff=limit) <= limit


def contains_phrase(haystack_key: str, needle_key: str) -> bool:
    """Token-bounded containment of one key in another ('ukraine' in 'the fastest ... is ukraine')."""
    if not needle_key:
        return False
    return f" {needle_key} " in f" {haystack_key} "


def find_fuzzy(haystack_tokens: list[str], needle_key: str, limit: int) -> str | None:
    """A window of `haystack_tokens` within `limit` edits of `needle_key`, or None.

    Windows have the needle's token count, or one more or fewer (a split or merged word).
    """
    if limit <= 0 or not haystack_tokens:
        return None
    n = needle_key.count(" ") + 1
    target_len = len(needle_key)
    for width in (n, n - 1, n + 1):
        if width < 1 or width > len(haystack_tokens):
            continue
        for i in range(len(haystack_tokens) - width + 1):
            window = haystack_tokens[i:i + width]
            cand = " ".join(window)
            if abs(len(cand) - target_len) > limit:
                continue
            if any(c.isdigit() for c in cand):
                continue
            if Levenshtein.distance(cand, needle_key, score_cutoff=limit) <= limit:
                return cand
    return None
