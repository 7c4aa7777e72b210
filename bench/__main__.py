"""`make bench`: run every benchmark module that exists, each writing out/bench/<name>.json.

`make bench` (`python -m bench`, no names) runs each benchmark in a process of its own, as `python -m bench NAME`
would: one benchmark's imports and heap do not carry into the next (in one shared process
the eval benchmark ran after the reporter's million judgments had grown the heap past 2 GB, with aiohttp and most
of livetab already imported, and measured 0.858 where it measures 0.87-0.89 alone, 3 December 2026)."""

from __future__ import annotations

import importlib
import importlib.util
import subprocess
import sys
import traceback

MODULES = ["bus", "store", "scraper", "qagen", "judge", "inference", "inference_service", "reporter", "eval", "pipeline"]


def main() -> int:
    args = sys.argv[1:]
    names = [a for a in args if not a.startswith("-")][:1] if any(a.startswith("-") for a in args) else args
    options = args[len(names):]  # `python -m bench NAME --option ...`: NAME's own options
    if options and (len(names) != 1 or args[0] != names[0]):
        print("bench: options go after one benchmark's name: python -m bench NAME --option ...", file=sys.stderr)
        return 2
    failed = []
    if not names:  # every benchmark, each in a process of its own
        for name in MODULES:
            if importlib.util.find_spec(f"bench.{name}") is None:
                print(f"bench: {name} has no benchmark yet")
                continue
            if subprocess.run([sys.executable, "-m", "bench", name], check=False).returncode != 0:
                failed.append(name)
        if failed:
            print(f"bench: failed: {', '.join(failed)}", file=sys.stderr)
            return 1
        return 0
    for name in names:  # the named ones, in this process
        try:
            mod = importlib.import_module(f"bench.{name}")
        except ModuleNotFoundError as e:
            if e.name == f"bench.{name}":
                print(f"bench: {name} has no benchmark yet")
                continue
            raise
        print(f"== bench {name}", flush=True)
        try:
            mod.main(options)  # none for `make bench`: each benchmark's defaults
        except Exception:
            traceback.print_exc()
            failed.append(name)
    if failed:
        print(f"bench: failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
