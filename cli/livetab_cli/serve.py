"""`livetab serve <service>`: one service over Kafka and PostgreSQL, started by the service runtime
(`livetab.runtime.serve`, the same code `python -m livetab_<service>` runs)."""

from __future__ import annotations

from livetab.runtime.serve import serve

__all__ = ["serve"]
