"""Reading and writing numbers the way tables print them, in any script and language.

One reader for every service. `read_number` accepts exactly one number per cell, as Wikipedia and
statistics tables print it: the language's decimal and thousands separators (`1,234.5` in English,
`1.234,5` in German, `1 234,5` in French or Russian; a space, no-break or thin space, or `'` groups
thousands in any language), Arabic-Indic and Extended Arabic-Indic digits with the Arabic separators
`٫` and `٬`, a sign (`-`, `−`, `–`, `‒`, `+`, or the change arrows `▲` `▼` = `+` `-`), a trailing `%` or `٪`, and footnote remnants (`[1]`,
`[a]`, `*`, `†`, `‡`, `§`, superscript digits, a trailing `'`). With `units=True` it also takes a
currency symbol or code before or after the number (`$5`, `5 €`, `USD 3`) and a scale word after it
(`3 million`, `120k`, `1,5 Mio.`, `2 млн`, `٣ مليون`), which is applied; a bare `m` counts as a million
only beside a currency (`$5m`), since `100 m` and `4.60 m` in a sports table are metres.
With `accounting=True` (tables from financial files: annual reports, spreadsheets) a number in
parentheses is negative, as accountants print losses: `(872,454)` is -872,454, `$(1,234)`, `($1,234)`
and `(3.2)%` too; on Wikipedia pages a bracketed number is a note or a grid slot ("(18)"), so the
default reads it as no number. Anything else (words, ranges, dates, two numbers in one cell) is not a
number: the reader returns None instead of guessing. `read_decimal` and `exact_number` read the same way but exactly (Decimal,
Fraction), for claims over tables and GSM8K arithmetic; `first_decimal` takes the first number of a
value that carries more words ("12 km", "24.3 (est.)"), each candidate read by the same reader.

This module is the one source of the pieces every number reader shares: `DIGITS`, the only table of
Arabic-Indic and Extended Arabic-Indic (Persian) digits and separators; `SEPARATORS`, each language's
decimal and thousands separators; and `number_pattern`, the digit-number pattern that the rubric's
mention finder (`livetab.rubric.numbers.find_numbers`) searches text with. So "1,234.5", "٣٫٥" and
"12.5%" read the same in a table cell, a claim, a model's answer and a GSM8K solution.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

__all__ = [
    "DIGITS",
    "SEPARATORS",
    "NumberReading",
    "decimals_in",
    "exact_number",
    "first_decimal",
    "format_number",
    "normalise_digits",
    "number_pattern",
    "parse_number",
    "read_decimal",
    "read_number",
    "separators",
    "to_arabic_indic",
]

_ARABIC_INDIC = "".join(chr(0x0660 + i) for i in range(10))
_EXTENDED_ARABIC_INDIC = "".join(chr(0x06F0 + i) for i in range(10))  # Persian and Urdu
# The one digit-folding table: Arabic-Indic and Extended Arabic-Indic digits to ASCII, the Arabic decimal
# separator (U+066B) to ".", the Arabic thousands separator (U+066C) to ",", the Arabic percent sign to "%".
DIGITS: dict[int, str] = {ord(c): str(i) for i, c in enumerate(_ARABIC_INDIC)}
DIGITS.update({ord(c): str(i) for i, c in enumerate(_EXTENDED_ARABIC_INDIC)})
DIGITS.update({0x066B: ".", 0x066C: ",", 0x066A: "%"})
_NORMAL = {**DIGITS, ord("−"): "-", ord("–"): "-",  # the minus sign and the en dash as a sign
           ord("▲"): "+", ord("▼"): "-"}  # "▲11,14", "▼ 10": the change columns of election tables
_TO_INDIC = {ord(str(i)): c for i, c in enumerate(_ARABIC_INDIC)}
_TO_INDIC[ord(".")] = "\u066b"
_TO_INDIC[ord("-")] = "-"

# (decimal separator, thousands separators besides the spaces and "'" every language groups with; the
# first is the one the language prints, a space where it groups with spaces only)
SEPARATORS: dict[str, tuple[str, str]] = {
    "en": (".", ","), "ar": (".", ","), "zh": (".", ","), "ja": (".", ","), "ko": (".", ","), "he": (".", ","),
    "de": (",", ".'"), "nl": (",", ".'"), "es": (",", ".'"), "it": (",", "."), "pt": (",", "."), "da": (",", "."),
    "id": (",", "."), "tr": (",", "."), "fr": (",", " .'"), "ru": (",", " '"), "sv": (",", " '"), "pl": (",", " "),
    "uk": (",", " "), "cs": (",", " "), "fi": (",", " "), "no": (",", " "), "nb": (",", " "),
    "de-ch": (".", "’"),
}
_SPACE_GROUPS = " \u00a0\u2009\u202f'"
_SIGN = "-+‒"  # after normalise_digits, which maps "−" and "–" to "-"

_FOOTNOTE = re.compile(r"(?:\s*(?:\[[^\]]{1,6}\]|[*†‡§¹²³']))+$")
_PERCENT = re.compile(r"\s*%$")
_CURRENCY_BEFORE = re.compile(
    r"^(?:US\$|A\$|C\$|NZ\$|HK\$|R\$|\$|€|£|¥|₹|₽|₩|₺|₪|₴|CHF|EUR|USD|GBP|JPY|SEK|NOK|DKK|RUB|SAR|AED|kr\.?|Rs\.?)\s*"
)
_CURRENCY_AFTER = re.compile(r"\s*(?:€|£|\$|₽|kr\.?|zł|руб\.?|SEK|EUR|USD|CHF|ريال|درهم|جنيه)$")
_SCALE = re.compile(r"\s*(million|billion|thousand|bn|k|Mio\.?|Mrd\.?|млн|млрд|مليون|مليار)$", re.I)
_MILLION_ABBR = re.compile(r"\s*(m)$", re.I)
_SCALES = {"billion": 1e9, "bn": 1e9, "mrd": 1e9, "mrd.": 1e9, "млрд": 1e9, "مليار": 1e9, "thousand": 1e3, "k": 1e3}
_MAX_CHARS = 64


@dataclass(frozen=True, slots=True)
class NumberReading:
    """What a cell states: its value (scale applied) and how it was written."""

    value: float
    decimals: int = 0  # digits shown after the decimal separator
    percent: bool = False
    currency: str = ""  # the symbol or code as written, "" when none
    scale: float = 1.0  # the scale word's factor, 1.0 when none


def normalise_digits(text: str) -> str:
    """Arabic-Indic digits and separators to ASCII, the minus sign and en dash to "-"; the rest unchanged."""
    return text.translate(_NORMAL)


def separators(language: str) -> tuple[str, str]:
    """(decimal separator, thousands separators) of `language` (an ISO 639-1 code; English when unknown)."""
    lang = (language or "en").lower().replace("_", "-")
    return SEPARATORS.get(lang) or SEPARATORS.get(lang.split("-")[0]) or SEPARATORS["en"]


def number_pattern(decimal: str, group: str) -> str:
    """The regular expression of one unsigned digit number: grouped ("1,234.5") or plain ("1234.5", ".5").
    `group` holds every thousands separator of the language ("." and "'" in German: 1.234,5 and 1'234,5).

    Searching text with it is how every number *mentioned* is found (the rubric's `find_numbers`, and
    `first_decimal` here); reading one cell uses the anchored `read_number`, which also takes the
    spaces and "'" that every language groups thousands with.
    """
    g = "[" + "".join(" " if c == " " else re.escape(c) for c in dict.fromkeys(group or ",")) + "]"
    d = re.escape(decimal)
    return rf"\d{{1,3}}(?:{g}\d{{3}})+(?:{d}\d+)?|\d+(?:{d}\d+)?|{d}\d+"


@lru_cache(maxsize=64)
def _number_re(language: str) -> re.Pattern[str]:
    decimal, groups = separators(language)
    g = "[" + re.escape(groups + _SPACE_GROUPS) + "]"
    d = re.escape(decimal)
    return re.compile(
        rf"^(?P<sign>[{re.escape(_SIGN)}])?\s*"
        rf"(?P<whole>\d{{1,3}}(?P<g>{g})\d{{3}}(?:(?P=g)\d{{3}})*|\d+)?(?:{d}(?P<frac>\d*))?$"
    )


class _Parts(NamedTuple):
    negative: bool
    whole: str  # ASCII digits, group separators removed ("" for ".5")
    frac: str  # ASCII digits after the decimal separator
    percent: bool
    currency: str
    scale: float


def _unbracket(s: str) -> tuple[str, bool]:
    """An accounting negative's inside: "(872,454)" -> ("872,454", True); anything else unchanged."""
    if len(s) > 2 and s[0] == "(" and s[-1] == ")" and "(" not in s[1:-1] and ")" not in s[1:-1]:
        return s[1:-1].strip(), True
    return s, False


def _parts(text: str, language: str, units: bool, accounting: bool = False) -> _Parts | None:
    """The pieces of the one number a cell states (see the module docstring); None unless exactly one."""
    s = normalise_digits(text.strip())
    if not s or len(s) > _MAX_CHARS:
        return None
    s = _FOOTNOTE.sub("", s)
    bracketed = False
    if accounting:
        s, bracketed = _unbracket(s)
    percent = bool(_PERCENT.search(s))
    if percent:
        s = _PERCENT.sub("", s)
        if accounting and not bracketed:
            s, bracketed = _unbracket(s)  # "(3.2)%"
    currency, scale = "", 1.0
    if units:
        s, currency = _strip_currency(s)
        if accounting and not bracketed:
            s, bracketed = _unbracket(s.strip())  # "$(1,234)"
        if (m := _SCALE.search(s) or (_MILLION_ABBR.search(s) if currency else None)) and m.start() > 0:
            scale = _SCALES.get(m.group(1).lower(), 1e6)
            s = s[: m.start()]
    m = _number_re(language).match(s.strip())
    if m is None or not (m.group("whole") or m.group("frac")):
        return None
    whole = m.group("whole") or ""
    if m.group("g"):
        whole = whole.replace(m.group("g"), "")
    negative = m.group("sign") in ("-", "‒")
    if bracketed and m.group("sign"):
        return None  # "(-5)": not how anyone prints a number
    return _Parts(negative or bracketed, whole, m.group("frac") or "", percent, currency, scale)


def read_number(text: str, language: str = "en", *, units: bool = False,
                accounting: bool = False) -> NumberReading | None:
    """The number a table cell states, read with the language's separators; None unless it is exactly one."""
    p = _parts(text, language, units, accounting)
    if p is None:
        return None
    value = float(f"{p.whole or '0'}.{p.frac or '0'}") * p.scale
    if not math.isfinite(value):
        return None
    if p.negative:
        value = -value
    return NumberReading(value=value, decimals=len(p.frac), percent=p.percent, currency=p.currency, scale=p.scale)


def read_decimal(text: str, language: str = "en", *, units: bool = False,
                 accounting: bool = False) -> Decimal | None:
    """`read_number`'s reading as an exact Decimal ("24.30" keeps its two decimals); None when it has none."""
    p = _parts(text, language, units, accounting)
    if p is None:
        return None
    value = Decimal(f"{'-' if p.negative else ''}{p.whole or '0'}.{p.frac}" if p.frac else
                    f"{'-' if p.negative else ''}{p.whole or '0'}")
    return value * int(p.scale) if p.scale != 1.0 else value


def exact_number(text: str, language: str = "en") -> Fraction:
    """The number a value states as an exact fraction, currency and scale words taken ("$1,200" -> 1200;
    GSM8K's final answers and calculator results). Raises ValueError when it is not exactly one number."""
    value = read_decimal(text, language, units=True)
    if value is None:
        raise ValueError(f"not a number: {text!r}")
    return Fraction(value)


# Languages whose prose, written with Latin digits, also puts a comma before decimals ("8,5 أطفال" in
# TaTA's Arabic texts, whose tables print 8.5): there a comma followed by other than three digits is one.
_COMMA_DECIMAL_IN_TEXT = frozenset({"ar", "fa"})


@lru_cache(maxsize=64)
def _mention_re(language: str) -> re.Pattern[str]:
    decimal, groups = separators(language)
    lang = (language or "en").lower().split("-")[0]
    comma = r"\d+,(?:\d{1,2}|\d{4,})(?!\d)|" if lang in _COMMA_DECIMAL_IN_TEXT and decimal == "." else ""
    return re.compile(rf"(?<![A-Za-z0-9_.,])[-+‒]?(?:{comma}{number_pattern(decimal, groups[:1] or ' ')})(?![.,]?\d)")


def _mentioned(token: str, language: str) -> Decimal | None:
    if "," in token and language.lower().split("-")[0] in _COMMA_DECIMAL_IN_TEXT:
        whole, _, frac = token.partition(",")
        if len(frac) != 3:
            token = f"{whole}.{frac}"
    return read_decimal(token, language)


def first_decimal(value: object, language: str = "en") -> Decimal | None:
    """The number a cell or claimed value states, exactly: the whole value when `read_decimal` (with
    units) reads it with the language's separators, or else with English ones (pages in other languages
    quote dollar sums as "$27,426,395"; processed tables print "0.5"); otherwise the first number
    mentioned in it ("12 km" -> 12, "24.3 (est.)" -> 24.3, "(872,454)" -> 872454), read by the same
    reader. None when it mentions none, or only inside a word ("MP3") or a longer run ("01.05.1988")."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value)) if math.isfinite(value) else None
    text = str(value)
    whole = read_decimal(text, language, units=True)
    if whole is None and separators(language)[0] != ".":
        whole = read_decimal(text, "en", units=True)  # English separators: "$27,426,395" on a French page
    if whole is not None:
        return whole
    m = _mention_re(language).search(normalise_digits(text))
    return _mentioned(m.group(0), language) if m else None


def decimals_in(text: str, language: str = "en") -> list[Decimal]:
    """Every digit number mentioned in `text`, in order, each read exactly with the language's separators
    ("١٨٫٤ و 1,200" -> [18.4, 1200]; number words are the rubric's `find_numbers`' business)."""
    found = (_mentioned(m.group(0), language) for m in _mention_re(language).finditer(normalise_digits(text)))
    return [d for d in found if d is not None]


def _strip_currency(s: str) -> tuple[str, str]:
    """The text without a currency symbol or code before the number (after any sign) or after it."""
    sign = s[:1] if s[:1] in _SIGN else ""
    body = s[len(sign):].lstrip()
    if m := _CURRENCY_BEFORE.match(body):
        return sign + body[m.end():], m.group(0).strip()
    if m := _CURRENCY_AFTER.search(s):
        return s[: m.start()], m.group(0).strip()
    return s, ""


def parse_number(text: object, language: str = "en", *, units: bool = False,
                 accounting: bool = False) -> float | None:
    """The number a table cell states, or None when the cell is not exactly one number.

    Numbers pass through (NaN is None, a bool is not a number); text is read by `read_number`.
    """
    if isinstance(text, bool):
        return None
    if isinstance(text, int | float):
        return None if isinstance(text, float) and math.isnan(text) else float(text)
    if not isinstance(text, str):
        return None
    reading = read_number(text, language, units=units, accounting=accounting)
    return None if reading is None else reading.value


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
