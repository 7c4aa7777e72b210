"""`python -m livetab.store upgrade [--config FILE]`: bring the configured store's schema to the newest
migration (Alembic), then exit; the chart runs it as a pre-install/pre-upgrade Job before any service starts.
`python -m livetab.store current` prints the revision the store is at."""

from __future__ import annotations

import argparse
import sys

from livetab.settings import ConfigError, load_settings
from livetab.store.store import StoreError, open_store, stored_revisions


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m livetab.store", description="the store's schema migrations")
    p.add_argument("action", choices=["upgrade", "current"])
    p.add_argument("--config", help="YAML settings file (LIVETAB_STORE__URL overrides it)")
    args = p.parse_args(argv)
    try:
        store = open_store(load_settings(args.config).store.url, migrate_schema=args.action == "upgrade")
    except (ConfigError, StoreError) as e:
        print(f"livetab.store: {e}", file=sys.stderr)
        return 2
    try:
        print(f"store at revision {', '.join(stored_revisions(store.engine)) or None}")
        return 0
    finally:
        store.close()


if __name__ == "__main__":
    sys.exit(main())
