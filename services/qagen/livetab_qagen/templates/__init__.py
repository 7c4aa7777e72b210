"""Locale files: every word a generated question uses, per language (`<lang>.yaml` beside this file).

A new language is a new YAML file with the same keys; no code changes. `Locale` fills templates and
writes values the way the language wants them (quotes, digits, True/False words).
"""

from __future__ import annotations

import logging
from functools import cache
from importlib import resources
from typing import Any

import yaml
from livetab.numbers import format_number

__all__ = ["Locale", "LocaleError", "available_languages", "load_locale"]

log = logging.getLogger(__name__)


class LocaleError(LookupError):
    """No locale file for a language, or a key missing from one."""


class Locale:
    def __init__(self, language: str, data: dict[str, Any]) -> None:
        self.language = language
        self.data = data
        self.digits = str(data.get("digits", "latin"))
        self.open_quote, self.close_quote = data.get("quotes", ['"', '"'])

    def get(self, path: str) -> Any:
        node: Any = self.data
        for part in path.split("."):
            if not isinstance(node, dict) or part not in node:
                raise LocaleError(f"locale {self.language!r} has no key {path!r}")
            node = node[part]
        return node

    def t(self, path: str, **values: Any) -> str:
        """Template `path` filled with `values` (already formatted strings)."""
        template = self.get(path)
        if not isinstance(template, str):
            raise LocaleError(f"locale {self.language!r} key {path!r} is not a template")
        return template.format(**values)

    def q(self, text: str) -> str:
        """A table value or column name as quoted in running text."""
        return f"{self.open_quote}{text}{self.close_quote}"

    def number(self, value: float, decimals: int | None = None) -> str:
        return format_number(value, decimals=decimals, digits=self.digits)

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
