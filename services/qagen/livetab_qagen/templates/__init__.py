"""Locale files: every word a generated question uses, per language (`<lang>.yaml` beside this file).

A new language is a new YAML file with the same keys; no code changes. `Locale` fills templates and
writes values the way the language wants them (quotes, digits, decimal separator, True/False words).

A template that must agree with a count is a mapping of plural forms instead of a string
(`{one: "...", few: "...", many: "...", other: "..."}`); `t(path, count=n, ...)` picks the form by the
locale's `plural` rule, named in its file: `one_other` (1 is singular: en, de, es, nl, sv),
`zero_one_other` (0 and 1 are singular: fr), `east_slavic` (ru: 1, 21 one; 2-4, 22-24 few; 5-20, 25 many).

A template may also be a list of surface forms of the same question (each a string or a mapping of plural
forms, all with the same placeholders): `t(path, form=k, ...)` takes form `k` modulo their number (the
first without `form`); the generator picks `k` with its seed, so one skill reads in several natural ways.

Column names: a locale with `column_style: phrase` writes a column name as a noun phrase of running text
(`Locale.column`: "Attendance" -> "attendance", "Winning driver (TA2)" -> "winning driver (TA2)", a year
"2019" -> "2019 figure"); other locales quote it like a value.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

import yaml
from livetab.numbers import format_number

__all__ = ["Locale", "LocaleError", "available_languages", "load_locale"]

# a column headed by a date ("December 29, 2017", "Year Ended December 31, 2018"): its cells are that date's figures
_DATED = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2},? (?:19|20)\d\d$",
                    re.IGNORECASE)

log = logging.getLogger(__name__)


class LocaleError(LookupError):
    """No locale file for a language, or a key missing from one."""


class Locale:
    def __init__(self, language: str, data: dict[str, Any]) -> None:
        self.language = language
        self.data = data
        self.digits = str(data.get("digits", "latin"))
        self.open_quote, self.close_quote = data.get("quotes", ['"', '"'])
        self.decimal = str(data.get("decimal", "."))
        self.plural_rule = str(data.get("plural", "one_other"))
        self.column_style = str(data.get("column_style", "quote"))
        self.keep_case = frozenset(str(w).lower() for w in data.get("keep_case", []))
        if self.plural_rule not in _PLURAL_RULES:
            raise LocaleError(f"locale {language!r}: unknown plural rule {self.plural_rule!r} (known: {sorted(_PLURAL_RULES)})")

    def get(self, path: str) -> Any:
        node: Any = self.data
        for part in path.split("."):
            if not isinstance(node, dict) or part not in node:
                raise LocaleError(f"locale {self.language!r} has no key {path!r}")
            node = node[part]
        return node

    def plural(self, count: float) -> str:
        """The plural category ("one", "few", "many" or "other") of `count` under this locale's rule."""
        return _PLURAL_RULES[self.plural_rule](count)

    def has(self, path: str) -> bool:
        try:
            self.get(path)
        except LocaleError:
            return False
        return True

    def forms(self, path: str) -> int:
        """How many surface forms template `path` has (1 for a single template)."""
        template = self.get(path)
        return len(template) if isinstance(template, list) and template else 1

    def t(self, path: str, form: int | None = None, **values: Any) -> str:
        """Template `path` filled with `values` (already formatted strings); of a list of surface forms, form
        `form` (modulo their number; the first when None); a template given as plural forms takes the form
        for the number `count` (falling back to "other", then "many")."""
        template = self.get(path)
        if isinstance(template, list):
            if not template:
                raise LocaleError(f"locale {self.language!r} key {path!r} has an empty list of forms")
            template = template[(form or 0) % len(template)]
        count = values.get("count")
        if isinstance(template, dict):
            if count is None:
                raise LocaleError(f"locale {self.language!r} key {path!r} has plural forms but no count was given")
            category = self.plural(float(count))
            template = template.get(category) or template.get("other") or template.get("many")
        if not isinstance(template, str):
            raise LocaleError(f"locale {self.language!r} key {path!r} is not a template")
        return template.format(**values)

    def q(self, text: str) -> str:
        """A table value or column name as quoted in running text (a value the table already quotes in
        this locale's marks, «Pilot», is not quoted twice; with straight double quotes, quote marks inside a
        value become single curly ones, so none stand back to back)."""
        o, c = self.open_quote.strip(), self.close_quote.strip()
        if len(text) > 2 and text.startswith(o) and text.endswith(c):
            return text
        if o == c == '"' and '"' in text:  # a title inside a value ("Best Thing" (featuring Lecrae)): no ""
            parts = text.split('"')
            text = "".join(p + ("‘" if k % 2 == 0 else "’") for k, p in enumerate(parts[:-1])) + parts[-1]
        return f"{self.open_quote}{text}{self.close_quote}"

    def column(self, name: str) -> str:
        """A column name as written in running text: quoted (`column_style: quote`), or as a noun phrase
        without its article (`column_style: phrase`): words written Capitalised lower-cased unless the locale
        keeps them (`keep_case`: month names...), acronyms and mixed case kept ("TA2", "GDP"), a year or number
        as "<year> figure", a name with no letters or with quote marks quoted."""
        name = " ".join(name.split())
        if self.column_style != "phrase":
            return self.q(name)
        if re.fullmatch(r"(?:19|20)\d\d(?:[/–-]\d{2,4})?", name) or _DATED.search(name):
            return f"{self._phrase(name)} {self.get('column_year_noun')}"
        if (not re.search(r"[^\W\d_]", name) or re.search(r"[\"«»“”„]", name) or len(name) > 60
                or len(name.strip(".")) <= 2  # "#", "W", "GB": a bare letter or two reads as a word
                # a verb, not a noun ("Played", "Finished", "Appointed by"): "the played" says nothing
                or re.fullmatch(r"[^\W\d_]+ed|.+ by", name, re.I)):
            return f"{self.q(name)} {self.get('column_value_noun')}"

        return self._phrase(name)

    def _phrase(self, name: str) -> str:
        def word(w: str) -> str:
            core = w.strip("()[]{},.;:!?'’")
            if (core and core[0].isupper() and core[1:].islower() and core.lower() not in self.keep_case
                    and not w.endswith(".")):  # "Rd.", "Pos.": an abbreviation keeps its case
                return w.replace(core, core.lower(), 1)
            return w
        return " ".join(word(w) for w in name.rstrip(",;:").split())

    def verb_be(self, phrase: str) -> str:
        """The verb "to be" agreeing with a column phrase, in locales that give `be: {one, other}`: English
        "are" for a name that reads as a plural ("notes", "dates", "years"), else "is"; "" elsewhere."""
        forms = self.data.get("be")
        if not isinstance(forms, dict):
            return ""
        head = phrase.split(" of ")[0].split(" - ")[0].split()  # "No. of titles" is one number
        last = head[-1].lower().strip("()[],.") if head else ""
        plural = (len(last) > 3 and last.endswith("s") and not last.endswith(("ss", "us", "is", "series", "news"))
                  and not phrase.endswith(str(self.get("column_value_noun"))))
        return str(forms["other" if plural else "one"])

    def number(self, value: float, decimals: int | None = None) -> str:
        """A number with this locale's digits and decimal separator ("2,5" in German), never grouped."""
        text = format_number(value, decimals=decimals, digits=self.digits)
        return text.replace(".", self.decimal) if self.decimal != "." else text

    def boolean(self, value: bool) -> str:
        return str(self.get("true" if value else "false"))

    def value(self, value: Any) -> str:
        """A derived value written into a sentence: numbers in the locale's digits, text quoted."""
        if isinstance(value, bool):
            return self.boolean(value)
        if isinstance(value, int | float):
            return self.number(float(value))
        if isinstance(value, list):
            return str(self.get("list_sep")).join(self.value(v) for v in value)
        return self.q(str(value))

    def answer(self, value: Any) -> str:
        """A derived value as a gold answer's readable text (no quotes)."""
        if isinstance(value, bool):
            return self.boolean(value)
        if isinstance(value, int | float):
            return self.number(float(value))
        if isinstance(value, list):
            return str(self.get("list_sep")).join(self.answer(v) for v in value)
        return str(value)


def _one_other(n: float) -> str:
    return "one" if n == 1 else "other"


def _zero_one_other(n: float) -> str:
    return "one" if n in (0, 1) else "other"


def _east_slavic(n: float) -> str:
    if not float(n).is_integer():
        return "other"
    i = abs(int(n))
    if i % 10 == 1 and i % 100 != 11:
        return "one"
    if 2 <= i % 10 <= 4 and not 12 <= i % 100 <= 14:
        return "few"
    return "many"


def _other(n: float) -> str:
    return "other"


_PLURAL_RULES: dict[str, Callable[[float], str]] = {
    "one_other": _one_other, "zero_one_other": _zero_one_other, "east_slavic": _east_slavic, "none": _other}


def available_languages() -> list[str]:
    return sorted(p.name[:-5] for p in resources.files(__name__).iterdir() if p.name.endswith(".yaml"))


@cache
def load_locale(language: str) -> Locale:
    """The locale for `language`; LocaleError when there is no `<language>.yaml`."""
    path = resources.files(__name__).joinpath(f"{language}.yaml")
    if not path.is_file():
        raise LocaleError(f"no question templates for language {language!r} (have {available_languages()})")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise LocaleError(f"locale file {language}.yaml is not a mapping")
    return Locale(language, data)
