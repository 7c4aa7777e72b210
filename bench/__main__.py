"""`make bench`: run every benchmark module that exists, each writing out/bench/<name>.json."""

from __future__ import annotations

import importlib
import sys
import traceback

MODULES = ["bus", "scraper", "qagen", "judge", "inference", "inference_service", "reporter", "eval", "pipeline"]


def main() -> int:
    only = sys.argv[1:] or MODULES
    failed = []
    for name in only:
        try:
            mod = importlib.import_module(f"bench.{name}")
        except ModuleNotFoundError as e:
            if e.name == f"bench.{name}":
                print(f"bench: {name} has no benchmark yet")
                continue
            raise
        print(f"== bench {name}", flush=True)
        try:
            mod.main([])  # each benchmark's own options are for `python -m bench.NAME ...`
        except Exception:
            traceback.print_exc()
            failed.append(name)
    if failed:
        print(f"bench: failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
