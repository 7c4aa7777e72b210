"""Where the runtime finds service declarations: the `livetab.services` entry-point group.

Each service package registers `livetab_<svc>.service:SERVICE` there (pyproject.toml), so this package
imports no service by name; `make install` (pip install -e .) writes the entry points."""

from __future__ import annotations

from functools import cache
from importlib.metadata import EntryPoints, entry_points

from livetab.runtime.service import Service

__all__ = ["GROUP", "declared", "service"]

GROUP = "livetab.services"


@cache
def _entry_points() -> EntryPoints:
    """The group's entry points, found once: each search reads the metadata of every installed distribution
    (~8 ms with this project's environment), and an evaluation starts three services one after the other."""
    return entry_points(group=GROUP)


@cache
def declared() -> dict[str, Service]:
    """Every installed service declaration by name."""
    out: dict[str, Service] = {}
    for ep in _entry_points():
        svc = _checked(ep.name, ep.value, ep.load())
        out[svc.name] = svc
    return out


def _checked(name: str, value: str, svc: object) -> Service:
    if not isinstance(svc, Service):
        raise TypeError(f"entry point {name} = {value} is a {type(svc).__name__}, not a Service")
    if svc.name != name:
        raise ValueError(f"entry point {name} declares service {svc.name!r}")
    return svc


@cache
def service(name: str) -> Service:
    """The declaration of service `name`; a clear error when it is not installed. Only that service's entry
    point is loaded (a command that runs three services does not import the other three)."""
    for ep in _entry_points().select(name=name):
        return _checked(ep.name, ep.value, ep.load())
    found = declared()
    if name not in found:
        raise KeyError(f"no service {name!r} is installed (entry points {GROUP}: {', '.join(sorted(found)) or 'none'};"
                       " run `make install`)")
    return found[name]
