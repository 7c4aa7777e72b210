"""Reading and writing numbers the way tables print them, in any script.

`parse_number` accepts what Wikipedia and statistics tables actually contain: thousands separators
(",", "٬", thin and no-break spaces, "'"), Arabic-Indic and Extended Arabic-Indic digits, the Arabic
decimal separator "٫", a trailing "%" or "٪", a Unicode minus, and footnote remnants ("[1]", "[a]",
"*", "†", "‡"). Anything else (words, ranges, two numbers in one cell) is not a number: it returns
None instead of guessing.
"""

from __future__ import annotations

import math
import re

__all__ = ["format_number", "normalise_digits", "parse_number", "to_arabic_indic"]

_DIGITS = {ord(c): str(i) for i, c in enumerate("٠١٢٣٤٥٦٧٨٩")}
_DIGITS.update({ord(c): str(i) for i, c in enumerate("۰۱۲۳۴۵۶۷۸۹")})
_DIGITS.update({ord("٫"): ".", ord("٬"): ",", ord("−"): "-", ord("–"): "-", ord("٪"): "%"})
_TO_INDIC = {ord(str(i)): c for i, c in enumerate("٠١٢٣٤٥٦٧٨٩")}
_TO_INDIC[ord(".")] = "٫"
_TO_INDIC[ord("-")] = "-"

_FOOTNOTE = re.compile(r"(\[[^\]]{1,6}\])+$|[*†‡§¹²³]+$")
_SPACES = re.compile(r"[\s\u00a0\u2009\u202f']")
_GROUPED = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$")
_PLAIN = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)$")


def normalise_digits(text: str) -> str:
    """Arabic-Indic digits and separators to ASCII; everything else unchanged."""
    return text.translate(_DIGITS)


def parse_number(text: object) -> float | None:
    """The number a table cell states, or None when the cell is not exactly one number."""
    if isinstance(text, bool):
        return None
    if isinstance(text, int | float):
        return None if isinstance(text, float) and math.isnan(text) else float(text)
    if not isinstance(text, str):
        return None
    s = normalise_digits(text.strip())
    s = _FOOTNOTE.sub("", s).strip()
    if s.endswith("%"):
        s = s[:-1].strip()
    s = _SPACES.sub("", s)
    if not s:
        return None
    if _GROUPED.match(s):
        s = s.replace(",", "")
    elif not _PLAIN.match(s):
        return None
    try:
        value = float(s)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def to_arabic_indic(text: str) -> str:
    """ASCII digits (and the decimal point) as Arabic-Indic digits."""
    return text.translate(_TO_INDIC)


def format_number(value: float, *, decimals: int | None = None, digits: str = "latin") -> str:
    """A number as a reader expects it: integers without ".0", others trimmed; optional Arabic-Indic digits."""
    if decimals is not None:
        value = round(value, decimals)
    if float(value).is_integer():
        text = str(int(value))
    else:
        text = f"{value:.6f}".rstrip("0").rstrip(".")
    if text == "-0":
        text = "0"
    return to_arabic_indic(text) if digits == "arabic_indic" else text
