"""Where the runtime finds service declarations: the `livetab.services` entry-point group.

Each service package registers `livetab_<svc>.service:SERVICE` there (pyproject.toml), so this package
imports no service by name; `make install` (pip install -e .) writes the entry points."""

from __future__ import annotations

from functools import cache
from importlib.metadata import entry_points

from livetab.runtime.service import Service

__all__ = ["GROUP", "declared", "service"]

GROUP = "livetab.services"


@cache
def declared() -> dict[str, Service]:
    """Every installed service declaration by name."""
    out: dict[str, Service] = {}
    for ep in entry_points(group=GROUP):
        svc = ep.load()
        if not isinstance(svc, Service):
            raise TypeError(f"entry point {ep.name} = {ep.value} is a {type(svc).__name__}, not a Service")
        if svc.name != ep.name:
            raise ValueError(f"entry point {ep.name} declares service {svc.name!r}")
        out[svc.name] = svc
    return out


def service(name: str) -> Service:
    """The declaration of service `name`; a clear error when it is not installed."""
    found = declared()
    if name not in found:
        raise KeyError(f"no service {name!r} is installed (entry points {GROUP}: {', '.join(sorted(found)) or 'none'};"
                       " run `make install`)")
    return found[name]
