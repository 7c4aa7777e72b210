"""A single-value gold stated inside a list of several items.

"Spain, Italy, France won gold" states the gold "Italy" — as one of three winners. Joined by "and" the
context rules already see other candidates; joined only by commas they did not, and the sentence was
accepted. A gold standing in such a list is never correct:

* with the question's table, when a listed item is another value of the asked column (the column that
  holds the gold) the answer names a wrong candidate: *incorrect*;
* a comma list of three or more short items (or "a, b and c") around the gold, two of them names the
  table does not hold (without a table: any two): *uncertain*;
* an answer that ends with the gold and one other name after a comma ("Italy, Spain", "I think it is
  Italy, Spain" for "Italy"), the other name not a word of the table ("Rome, Italy" names the gold's
  country), of the gold, a number or a negation: *uncertain*.

The response is read as word tokens with the raw text between them (`Tokens`), so that the separators
a comparison key drops are still seen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from livetab.rubric.locale import Locale
from livetab.rubric.text import fold, key

__all__ = ["Tokens", "adjacent_in_list", "listed_doubt", "listed_with", "tokens_of"]

UNCERTAIN, INCORRECT = "uncertain", "incorrect"
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
_NAME_WORDS = frozenset({"the", "a", "an", "of", "in", "on", "at", "for", "de", "ال", "في", "من"})


@dataclass(frozen=True, slots=True)
class Tokens:
    text: str
    words: tuple[str, ...]  # comparison keys of the words
    spans: tuple[tuple[int, int], ...]

    def gap(self, i: int) -> str:
        """The raw text between word i-1 and word i (i == len: after the last word)."""
        start = self.spans[i - 1][1] if i > 0 else 0
        end = self.spans[i][0] if i < len(self.spans) else len(self.text)
        return self.text[start:end]

    def find(self, phrase: str) -> list[int]:
        """Start indexes where the key `phrase` occurs as consecutive words."""
        want = phrase.split()
        n = len(want)
        if not n:
            return []
        return [i for i in range(len(self.words) - n + 1)
                if self.words[i] == want[0] and list(self.words[i:i + n]) == want]


def tokens_of(folded: str) -> Tokens:
    words, spans = [], []
    for m in _WORD.finditer(folded):
        k = key(m.group()).replace(" ", "")
        if k:
            words.append(k)
            spans.append((m.start(), m.end()))
    return Tokens(folded, tuple(words), tuple(spans))


@cache
def _separator(loc: Locale) -> re.Pattern[str]:
    words = "|".join(re.escape(c) for c in (*loc.conjunctions, *loc.or_words) if c.isalpha())
    return re.compile(rf"^[\s,;&/،]*(?:(?:{words})\b)?[\s,;&،]*(?:the\s*)?$")


_QUALIFIER = frozenset({"from", "of", "in", "for", fold("من"), fold("في")})


def _joined(tokens: Tokens, a_end: int, b_start: int, loc: Locale) -> bool:
    """Are the item ending before word a_end (> 0) and the one starting at b_start (>= a_end) joined by
    commas or a conjunction, with no other words or punctuation between? A short qualifier after the
    first item is allowed ("Tamara Csipes from Hungary and Danuta Kozák")."""
    between = list(tokens.words[a_end:b_start])
    conj = 0
    while conj < len(between) and between[-1 - conj] in ("the", "and", "or", "و", "او"):
        conj += 1
    head = between[:len(between) - conj]
    if head and not (head[0] in _QUALIFIER and len(head) <= 3):
        return False
    last = a_end + len(head)  # the raw separator follows the qualifier
    raw = tokens.text[tokens.spans[last - 1][1]:tokens.spans[b_start][0]]
    if head and not conj and "," not in raw:
        return False
    return _separator(loc).match(raw) is not None and bool(raw.strip())


def listed_with(tokens: Tokens, mention: tuple[int, int], candidates: list[str], question: frozenset[str],
                loc: Locale) -> str | None:
    """A candidate (another value of the asked column) listed right beside the gold at `mention` (joined
    by a comma or a conjunction): the candidate, or None. Names the question itself gives are not
    counted ("In addition to Peru, Chile ...", "William C. Canby, Jr. and Heywood H. Davis finished in
    the same year")."""
    start, end = mention
    items: list[tuple[int, int, str]] = []
    for cand in candidates:
        n = cand.count(" ") + 1
        for i in tokens.find(cand):
            if i + n <= start or i >= end:
                items.append((i, i + n, cand))
        if loc.arabic:  # "وإسبانيا": the conjunction written onto the name
            first, rest = cand.split()[0], cand.split()[1:]
            for i, w in enumerate(tokens.words):
                if w == "و" + first and list(tokens.words[i + 1:i + 1 + len(rest)]) == rest:
                    items.append((i, i + 1 + len(rest), cand))
    if not items:
        return None
    for s, e, cand in sorted(items):
        if e <= start:
            joined = _joined(tokens, e, start, loc)
        elif s >= end:  # the Arabic conjunction may be written onto the next item
            joined = _joined(tokens, end, s, loc) or (loc.arabic and s == end and tokens.words[s].startswith("و"))
        else:
            joined = False
        if joined and not set(cand.split()) <= question:
            return cand
    return None


_DAY = re.compile(r"\b\d{1,2}(?:st|nd|rd|th)?\b")
_LETTERS = re.compile(r"[^\W\d_]+")


def adjacent_in_list(text: str, a_end: int, b_start: int, loc: Locale) -> bool:
    """Are the values ending at `a_end` and starting at `b_start` (character offsets in `text`) two items
    of one list? Month names and day numbers in between belong to the second item ("October 2011 and
    July 2012")."""
    if b_start <= a_end:
        return False
    gap = text[a_end:b_start]
    if len(gap) > 40:
        return False
    raw = _LETTERS.sub(lambda m: " " if m.group() in loc.months else m.group(), gap)
    raw = _DAY.sub(" ", raw)
    return bool(raw.strip()) and _separator(loc).match(raw) is not None


def _items(tokens: Tokens) -> list[tuple[int, int, bool]]:
    """The span cut at commas, semicolons and a bare "and" / "or": (first word, end, whether a comma or
    a semicolon comes before it)."""
    out: list[tuple[int, int, bool]] = []
    start, comma = 0, False
    n = len(tokens.words)
    i = 0
    while i < n:
        if i > start and any(c in tokens.gap(i) for c in ",;،؛"):
            out.append((start, i, comma))
            start, comma = i, True
        if tokens.words[i] in ("and", "or") and i > start:
            out.append((start, i, comma))
            start, comma = i + 1, False
        elif tokens.words[i] in ("and", "or") and i == start:
            start, comma = i + 1, False
        i += 1
    if start < n:
        out.append((start, n, comma))
    return out


def listed_doubt(tokens: Tokens, mention: tuple[int, int], loc: Locale, known: frozenset[str] = frozenset(),
                 gold: frozenset[str] = frozenset()) -> tuple[str, str] | None:
    """The gold is one item of a list of three or more with commas ("a, b, c", "a, b and c"), or the
    answer ends with the gold and one other name after a comma ("(It was) Italy, Spain"; "Spain; Italy"):
    the rules cannot tell whether the other items are wrong. Not a rival there: an item naming a word of
    the `gold` ("Ali, Omar" for "Ali / Omar") or a negation ("Des Wall, not Mikac": the context rules
    read it). With the question's table, `known` holds its words: an item holding one of them is about
    the table, context rather than a rival ("Rome, Italy"; "Italy, ahead of Spain, won"; another value
    of the asked column is found by `listed_with`); a list doubts the gold when two of its other items
    are rivals."""
    start, end = mention
    items = _items(tokens)
    at = next((k for k, (s, e, _) in enumerate(items) if s <= start and end <= e), None)
    if at is None:
        return None
    sentence = loc.stopwords - _NAME_WORDS
    words = tokens.words

    def bare(s: int, e: int) -> bool:
        return 0 < e - s <= 5 and not any(w in sentence for w in words[s:e]) and not all(
            w.isdigit() for w in words[s:e])

    def rival(s: int, e: int) -> bool:  # an item holding none of the table's words
        return not (set(words[s:e]) - _NAME_WORDS) & known

    s, e, _ = items[at]
    starts_item = all(w in _NAME_WORDS for w in words[s:start])  # only an article before the gold
    ends_item = end == e
    if not starts_item and not ends_item:
        return None  # the gold sits inside a sentence, not as an item
    commas = rivals = 0  # rivals count the other items of the run: two rivals make a list of three or more
    k = at
    while starts_item and k > 0:  # items before the gold; the first may start with a sentence
        ps, pe, _ = items[k - 1]
        lo = pe
        while lo > ps and words[lo - 1] not in sentence:
            lo -= 1
        if not bare(lo, pe):
            break
        commas += items[k][2]
        rivals += rival(lo, pe)
        k -= 1
        if lo != ps:
            break
    k = at
    while ends_item and k + 1 < len(items):  # items after the gold; the last may end with a predicate
        ns, ne, comma = items[k + 1]
        hi = ns
        while hi < ne and words[hi] not in sentence:
            hi += 1
        if not bare(ns, hi):
            break
        commas += comma
        rivals += rival(ns, hi)
        k += 1
        if hi != ne:
            break
    if commas and rivals >= 2:
        return UNCERTAIN, "the answer states the gold as one item of a list"
    # two items at the end of the answer: "(It was) Italy, Spain", "Spain, Italy"
    other = None
    if ends_item and at == len(items) - 2 and items[at + 1][2]:
        other = items[at + 1]
    elif starts_item and ends_item and at == 1 and len(items) == 2 and items[1][2]:
        other = items[0]
    if other is not None and bare(other[0], other[1]) and rival(other[0], other[1]) and not any(
            w.isdigit() or w in gold or w in loc.negations for w in words[other[0]:other[1]]):  # not "in 2005"
        return UNCERTAIN, "the answer names the gold and another item"
    return None
