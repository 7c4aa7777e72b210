"""Arabic (and Persian) script normalisation: digits, diacritics, tatweel, letter variants.

AraTable's rubric ignores "minor style and minor spelling" differences; in Arabic script these are
mostly orthographic variants that a reader does not notice: short-vowel diacritics, the tatweel
stretch, the hamza seats on alef (أ إ آ ٱ), taa marbuta written as haa, and alef maqsura written as
yaa. `fold_arabic` maps each family onto one letter so that both sides compare equal.
"""

from __future__ import annotations

import re

from livetab.numbers import DIGITS

__all__ = ["ARABIC_LETTER_RE", "LATIN_LETTER_RE", "fold_arabic", "has_arabic", "has_latin"]

# The shared digit table (Arabic-Indic and Persian digits, the Arabic decimal and thousands separators and
# percent sign), and the Arabic comma, semicolon and question mark.
_FOLD: dict[int, str | None] = {**DIGITS, 0x060C: ",", 0x061B: ";", 0x061F: "?"}
for _c in range(0x064B, 0x0653):  # fathatan .. sukun, maddah above
    _FOLD[_c] = None
_FOLD.update({
    0x0670: None,  # superscript alef
    0x0640: None,  # tatweel
    0x0623: "\u0627", 0x0625: "\u0627", 0x0622: "\u0627", 0x0671: "\u0627",  # أ إ آ ٱ -> ا
    0x0629: "\u0647",  # ة -> ه
    0x0649: "\u064A",  # ى -> ي
    0x0624: "\u0648",  # ؤ -> و
    0x0626: "\u064A",  # ئ -> ي
    0x06CC: "\u064A",  # Persian yeh -> ي
    0x06A9: "\u0643",  # Persian keheh -> ك
})

ARABIC_LETTER_RE = re.compile(r"[\u0621-\u064A\u0671-\u06D3]")
LATIN_LETTER_RE = re.compile(r"[A-Za-z\u00C0-\u024F]")


def fold_arabic(text: str) -> str:
    """Digits to ASCII, diacritics and tatweel removed, letter variants unified."""
    return text.translate(_FOLD)


def has_arabic(text: str) -> bool:
    return ARABIC_LETTER_RE.search(text) is not None


def has_latin(text: str) -> bool:
    return LATIN_LETTER_RE.search(text) is not None
