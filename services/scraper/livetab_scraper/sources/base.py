"""The source plugin interface: what a source yields, and the registry that builds sources from config.

A source is configured from a plain mapping (one entry of the YAML `sources:` list) and yields, one by
one, either a `Fetched` item — a page's HTML, parsed tables, or a math problem, each with the
`livetab.tables.Source` metadata that makes it citable — or a `Failure` that names the location and a
clear reason. Nothing is dropped silently: whatever could not be used comes back as a `Failure`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from livetab.tables import Source as SourceMeta
from livetab.tables import Table
from pydantic import BaseModel, ConfigDict, ValidationError

if TYPE_CHECKING:
    from livetab.gsm8k import MathProblem

__all__ = [
    "Failure",
    "Fetched",
    "Item",
    "Source",
    "SourceConfig",
    "SourceConfigError",
    "SourceMeta",
    "available_sources",
    "build_source",
    "register_source",
]

log = logging.getLogger(__name__)


@dataclass
class Fetched:
    """One usable thing a source found, with the metadata needed to cite it.

    Page sources fill `html` (and `tables` once `live.extract_pages` ran the extractor); file sources
    fill `tables`; the math source fills `problem`. `meta.created_at` is the date
    from which this content can have existed (for Wikipedia: the later of the page's first revision
    and the event date); `page_created_at` and `event_date` keep the two inputs apart.
    """

    meta: SourceMeta
    language: str = "en"
    domain: str = "other"
    html: str | None = None
    tables: list[Table] = field(default_factory=list)
    problem: MathProblem | None = None
    event_date: str = ""
    page_created_at: str = ""
    revision_at: str = ""
    format: str = ""
    notes: list[str] = field(default_factory=list)
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        if self.problem is not None:
            return "math"
        if self.tables:
            return "tables"
        return "html" if self.html is not None else "empty"


@dataclass(frozen=True)
class Failure:
    """Something a source could not use: where it was, and why, in words a person can act on."""

    location: str
    reason: str
    source: str = ""


Item = Fetched | Failure


@runtime_checkable
class Source(Protocol):
    """A source plugin: `fetch` yields items until exhausted or `limit` usable items were yielded."""

    name: str

    def fetch(self, limit: int | None = None) -> Iterator[Item]: ...


class SourceConfigError(ValueError):
    """A source's configuration is wrong; the message names the setting."""


class SourceConfig(BaseModel):
    """Base of every source's options model: unknown keys are errors, strings are coerced ("20" -> 20)."""

    model_config = ConfigDict(extra="forbid")


C = TypeVar("C", bound=SourceConfig)
Factory = Callable[[Any], Source]


@dataclass(frozen=True)
class _Entry:
    config_type: type[SourceConfig]
    factory: Factory


_REGISTRY: dict[str, _Entry] = {}


def register_source(*names: str, config: type[C]) -> Callable[[Callable[[C], Source]], Callable[[C], Source]]:
    """Register a factory under one or more names; it receives its validated options model."""

    def deco(factory: Callable[[C], Source]) -> Callable[[C], Source]:
        for name in names:
            if name in _REGISTRY:
                raise ValueError(f"source {name!r} is registered twice")
            _REGISTRY[name] = _Entry(config, factory)
        return factory

    return deco


def _load_builtins() -> None:
    # Importing the plugin modules registers them; done lazily to keep import order simple.
    from livetab_scraper.sources import files, freshtab, gsm8k, local_html, tata, wikipedia  # noqa: F401


def available_sources() -> list[str]:
    _load_builtins()
    return sorted(_REGISTRY)


def build_source(config: Mapping[str, Any]) -> Source:
    """Build a source from one config entry.

    Accepts the settings shape `{kind, location, language, options: {...}}` and a flat shape
    `{name: wikipedia, languages: [...], ...}`; `options` are merged into the top level.
    """
    _load_builtins()
    flat = {k: v for k, v in config.items() if k != "options"}
    options = config.get("options") or {}
    if not isinstance(options, Mapping):
        raise SourceConfigError("setting 'options' must be a mapping")
    flat.update(options)
    name = flat.pop("kind", None) or flat.pop("name", None)
    flat.pop("name", None)
    if not name:
        raise SourceConfigError("a source needs 'kind' (or 'name'); known: " + ", ".join(sorted(_REGISTRY)))
    entry = _REGISTRY.get(str(name))
    if entry is None:
        raise SourceConfigError(f"unknown source kind {name!r}; known: " + ", ".join(sorted(_REGISTRY)))
    flat = {k: v for k, v in flat.items() if not (k in ("location", "language") and v in ("", None))}
    try:
        options_model = entry.config_type.model_validate(flat)
    except ValidationError as e:
        problems = []
        for err in e.errors():
            where = ".".join(str(x) for x in err["loc"])
            problems.append(f"unknown setting '{where}'" if err["type"] == "extra_forbidden"
                            else f"setting '{where}': {err['msg']}")
        raise SourceConfigError(f"source {name!r}: " + "; ".join(problems)) from None
    source = entry.factory(options_model)
    log.debug("built source %s", name)
    return source
