"""Reading and writing numbers the way tables print them, in any script and language.

One reader for every service. `read_number` accepts exactly one number per cell, as Wikipedia and
statistics tables print it: the language's decimal and thousands separators (`1,234.5` in English,
`1.234,5` in German, `1 234,5` in French or Russian; a space, no-break or thin space, or `'` groups
thousands in any language), Arabic-Indic and Extended Arabic-Indic digits with the Arabic separators
`٫` and `٬`, a sign (`-`, `−`, `–`, `‒`, `+`), a trailing `%` or `٪`, and footnote remnants (`[1]`,
`[a]`, `*`, `†`, `‡`, `§`, superscript digits, a trailing `'`). With `units=True` it also takes a
currency symbol or code before or after the number (`$5`, `5 €`, `USD 3`) and a scale word after it
(`3 million`, `120k`, `1,5 Mio.`, `2 млн`, `٣ مليون`), which is applied; a bare `m` counts as a million
only beside a currency (`$5m`), since `100 m` and `4.60 m` in a sports table are metres.
Anything else (words, ranges, dates, two numbers in one cell) is not a number: the reader returns
None instead of guessing.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "NumberReading",
    "format_number",
    "normalise_digits",
    "parse_number",
    "read_number",
    "to_arabic_indic",
]

_DIGITS = {ord(c): str(i) for i, c in enumerate("٠١٢٣٤٥٦٧٨٩")}
_DIGITS.update({ord(c): str(i) for i, c in enumerate("۰۱۲۳۴۵۶۷۸۹")})
_DIGITS.update({ord("٫"): ".", ord("٬"): ",", ord("−"): "-", ord("–"): "-", ord("٪"): "%"})
_TO_INDIC = {ord(str(i)): c for i, c in enumerate("٠١٢٣٤٥٦٧٨٩")}
_TO_INDIC[ord(".")] = "٫"
_TO_INDIC[ord("-")] = "-"

# (decimal separator, thousands separators besides the spaces and "'" every language groups with)
_CONVENTIONS: dict[str, tuple[str, str]] = {
    "en": (".", ","), "ar": (".", ","), "zh": (".", ","), "ja": (".", ","), "ko": (".", ","), "he": (".", ","),
    "de": (",", "."), "nl": (",", "."), "es": (",", "."), "it": (",", "."), "pt": (",", "."), "da": (",", "."),
    "id": (",", "."), "fr": (",", "."), "ru": (",", ""), "sv": (",", ""), "pl": (",", ""), "uk": (",", ""),
    "cs": (",", ""), "fi": (",", ""), "no": (",", ""), "nb": (",", ""), "de-ch": (".", "’"),
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
    """Arabic-Indic digits and separators to ASCII; everything else unchanged."""
    return text.translate(_DIGITS)


def _convention(language: str) -> tuple[str, str]:
    lang = language.lower()
    return _CONVENTIONS.get(lang) or _CONVENTIONS.get(lang.split("-")[0]) or _CONVENTIONS["en"]


@lru_cache(maxsize=64)
def _number_re(language: str) -> re.Pattern[str]:
    decimal, groups = _convention(language)
    g = "[" + re.escape(groups + _SPACE_GROUPS) + "]"
    d = re.escape(decimal)
    return re.compile(
        rf"^(?P<sign>[{re.escape(_SIGN)}])?\s*"
        rf"(?P<whole>\d{{1,3}}(?P<g>{g})\d{{3}}(?:(?P=g)\d{{3}})*|\d+)?(?:{d}(?P<frac>\d*))?$"
    )


def read_number(text: str, language: str = "en", *, units: bool = False) -> NumberReading | None:
    """The number a table cell states, read with the language's separators; None unless it is exactly one."""
    s = normalise_digits(text.strip())
    if not s or len(s) > _MAX_CHARS:
        return None
    s = _FOOTNOTE.sub("", s)
    percent = bool(_PERCENT.search(s))
    if percent:
        s = _PERCENT.sub("", s)
    currency, scale = "", 1.0
    if units:
        s, currency = _strip_currency(s)
        if (m := _SCALE.search(s) or (_MILLION_ABBR.search(s) if currency else None)) and m.start() > 0:
            scale = _SCALES.get(m.group(1).lower(), 1e6)
            s = s[: m.start()]
    m = _number_re(language).match(s.strip())
    if m is None or not (m.group("whole") or m.group("frac")):
        return None
    whole = re.sub(r"\D", "", m.group("whole") or "")
    frac = m.group("frac") or ""
    value = float(f"{whole or '0'}.{frac or '0'}") * scale
    if not math.isfinite(value):
        return None
    if m.group("sign") in ("-", "‒"):
        value = -value
    return NumberReading(value=value, decimals=len(frac), percent=percent, currency=currency, scale=scale)


def _strip_currency(s: str) -> tuple[str, str]:
    """The text without a currency symbol or code before the number (after any sign) or after it."""
    sign = s[:1] if s[:1] in _SIGN else ""
    body = s[len(sign):].lstrip()
    if m := _CURRENCY_BEFORE.match(body):
        return sign + body[m.end():], m.group(0).strip()
    if m := _CURRENCY_AFTER.search(s):
        return s[: m.start()], m.group(0).strip()
    return s, ""


def parse_number(text: object, language: str = "en", *, units: bool = False) -> float | None:
    """The number a table cell states, or None when the cell is not exactly one number.

    Numbers pass through (NaN is None, a bool is not a number); text is read by `read_number`.
    """
    if isinstance(text, bool):
        return None
    if isinstance(text, int | float):
        return None if isinstance(text, float) and math.isnan(text) else float(text)
    if not isinstance(text, str):
        return None
    reading = read_number(text, language, units=units)
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
