"""`python -m livetab_<svc> [--config FILE] [--port N] [--pool P]`: one service over Kafka and PostgreSQL,
the same as `livetab serve <svc>`."""

from __future__ import annotations

import argparse
import sys

from livetab.bus.base import BrokerUnreachable
from livetab.runtime.serve import serve
from livetab.settings import ConfigError, load_settings
from livetab.store import StoreError

__all__ = ["main", "serve_args"]


def serve_args(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The options of a served service (shared by `python -m livetab_<svc>` and `livetab serve`)."""
    p.add_argument("--config", help="YAML settings file (LIVETAB_* environment variables override it)")
    p.add_argument("--port", type=int, help="a service with HTTP routes (api): its port")
    p.add_argument("--pool", help="inference only: the worker pool to serve (default: remote endpoints)")
    return p


def main(name: str, argv: list[str] | None = None) -> int:
    args = serve_args(argparse.ArgumentParser(prog=f"python -m livetab_{name}",
                                              description=f"the {name} service over Kafka and PostgreSQL")
                      ).parse_args(argv)
    try:
        return serve(name, load_settings(args.config), port=args.port, pool=args.pool or "")
    except (ConfigError, StoreError, BrokerUnreachable) as e:
        print(f"livetab_{name}: configuration error: {e}", file=sys.stderr)
        return 2
