"""The service runtime: every livetab service is a declaration (`Service`) that this package starts.

A service package declares itself in `livetab_<svc>/service.py` and registers the declaration under the
`livetab.services` entry-point group (pyproject.toml). The runtime finds it there, so `shared/` names no
service: `python -m livetab_<svc>` and `livetab serve <svc>` start one service over Kafka and PostgreSQL
(`serve`), and embedded mode starts every service over the in-process bus and one store (`Embedded`).
"""

from livetab.runtime.registry import declared, service
from livetab.runtime.service import Build, HttpParts, Service, service_names

__all__ = ["Build", "HttpParts", "Service", "declared", "service", "service_names"]
