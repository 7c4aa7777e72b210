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
from functools import lru_cache

from rapidfuzz.distance import OSA, Levenshtein

from livetab.rubric.arabic import fold_arabic

__all__ = ["allowed_edits", "contains_phrase", "find_fuzzy", "fold", "has_digit", "key", "key_tokens",
           "strip_leading_article",
           "within_edits"]

_PLAIN = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u00b4": "'", "`": "'", "\u201c": '"', "\u201d": '"', "\u00ab": '"',
    "\u00bb": '"', "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
    "\u00a0": " ", "\u202f": " ", "\u2009": " ", "\u200f": None, "\u200e": None, "\u200b": None,
})
_NON_WORD = re.compile(r"[\W_]+")
_ARTICLE = re.compile(r"^(?:the|a|an|ال) ")


_MARKS = re.compile("[\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670"
                    "\u06d6-\u06ed\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


def _strip_marks(text: str) -> str:
    """Latin (and other) accents removed: NFKD, then the combining marks dropped."""
    return _MARKS.sub("", unicodedata.normalize("NFKD", text))


# Arabic presentation forms (contextual letter shapes some PDFs and old pages carry: "ﺍﻟﻘﺎﻫﺮﺓ" for "القاهرة")
_PRESENTATION = re.compile("[\ufb50-\ufdff\ufe70-\ufeff]")


def fold(text: str) -> str:
    """Lower case, Arabic variants and digits unified, accents removed, quotes and dashes plain."""
    if text.isascii():  # fast path: nothing to unify but the backtick
        return text.lower().replace("`", "'")
    if _PRESENTATION.search(text):  # to plain letters first, so the letter fold sees them (ﺓ -> ة -> ه)
        text = unicodedata.normalize("NFKC", text)
    text = fold_arabic(text).translate(_PLAIN)
    if not text.isascii():
        # NFKD turns compatibility characters into the letters and signs the maps and `lower` know: the
        # styled "𝐔𝐒𝐀" into "USA", "﹘" into "—", "ٸ" into "ى" and a hamza; so the maps run once more after it
        # and `lower` runs last (lower case first would leave "𝐔𝐒𝐀" as "USA", and folding again would change it)
        text = fold_arabic(_strip_marks(text)).translate(_PLAIN)
    return text.lower()


_ASCII_PUNCT = bytes(c for c in range(128) if not chr(c).isalnum())
_ASCII_UPPER = bytes(range(ord("A"), ord("Z") + 1))
# ASCII `key` by one bytes.translate: non-word characters to spaces, upper case to lower, the apostrophe
# deleted (and the backtick, which `fold` turns into an apostrophe).
_KEY_ASCII = bytes.maketrans(_ASCII_PUNCT + _ASCII_UPPER, b" " * len(_ASCII_PUNCT) + _ASCII_UPPER.lower())


@lru_cache(maxsize=16)  # one judgment keys the same span several times; nothing is kept beyond that
def key(text: str) -> str:
    """The comparison form: `fold` then every run of non-word characters to one space. Text already folded
    may be given: `fold` is idempotent."""
    if text.isascii():  # the same result as below, several times faster
        return " ".join(text.encode("ascii").translate(_KEY_ASCII, b"'`").decode("ascii").split())
    text = fold(text)
    if "'" in text:
        text = text.replace("'", "")
    return _NON_WORD.sub(" ", text).strip()


def strip_leading_article(k: str) -> str:
    """'the st louis cardinals' -> 'st louis cardinals' (English articles; Arabic ال is a prefix, kept)."""
    m = _ARTICLE.match(k)
    return k[m.end():] if m and not k.startswith("ال") else k


_DIGIT = re.compile(r"\d")


def has_digit(text: str) -> bool:
    return _DIGIT.search(text) is not None


@lru_cache(maxsize=16)
def key_tokens(text: str) -> frozenset[str]:
    """The set of words of `key(text)` (for quick vocabulary tests)."""
    return frozenset(key(text).split())


def allowed_edits(k: str) -> int:
    """How many character edits count as a minor spelling slip for gold key `k`.

    None for strings under 5 characters or containing a digit (numbers are never fuzzy-matched);
    1 up to 10 characters, 2 up to 20, 3 beyond.
    """
    if len(k) < 5 or has_digit(k):
        return 0
    if len(k) <= 10:
        return 1
    if len(k) <= 20:
        return 2
    return 3


def within_edits(a: str, b: str, limit: int) -> bool:
    """`a` is `b` up to `limit` character edits, none of which replaces a short word outright
    ("فندق ا" is not a slip for "فندق ب"; "zakarpatia" is one for "zakarpattia"), and, word for word, no
    word more than its own length allows (`allowed_edits`)."""
    if a == b:
        return True
    if limit <= 0 or abs(len(a) - len(b)) > limit:
        return False
    if Levenshtein.distance(a, b, score_cutoff=limit) > limit:
        return False
    ta, tb = a.split(), b.split()
    if len(ta) == len(tb):
        for x, y in zip(ta, tb, strict=True):
            if x != y and (min(len(x), len(y)) < 4 or has_digit(x + y)):
                return False
            # a slip stays within one word's own allowance (a swap of two letters is one edit): "الحضرية"
            # (urban) for "الريفية" (rural) is three edits in a seven-letter word: another word, no slip
            # in "المناطق الريفية القارية"
            if x != y and OSA.distance(x, y) > max(1, allowed_edits(max(x, y, key=len))):
                return False
    return True


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
    ends = [0]  # ends[i]: length of the first i tokens joined with spaces, plus one
    for t in haystack_tokens:
        ends.append(ends[-1] + len(t) + 1)
    total = len(haystack_tokens)
    for width in (n, n - 1, n + 1):
        if width < 1 or width > total:
            continue
        for i in range(total - width + 1):
            if abs(ends[i + width] - ends[i] - 1 - target_len) > limit:  # window length, before joining
                continue
            cand = " ".join(haystack_tokens[i:i + width])
            if not has_digit(cand) and within_edits(cand, needle_key, limit):
                return cand
    return None
