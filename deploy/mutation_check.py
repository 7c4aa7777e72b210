"""Check named mutants of a group against its tests in one process (a quicker second opinion to `make mutation`).

`deploy/mutation.py` (mutmut) forks a process per mutant and collects the tests again each time; on a loaded
machine a group such as rubric_judge then takes hours. This reads mutmut's generated mutants of a group that
`deploy/mutation.py` has staged (out/mutation/work/<group>/mutants), collects the tests once, and for each
named mutant switches it on (mutmut's own trampoline switch) and runs the tests in order until one fails:

    python deploy/mutation_check.py rubric_judge NAMES_FILE OUT_FILE [test files ...]

NAMES_FILE holds mutant names (livetab.rubric.gold.x_gold_item__mutmut_7), one a line; OUT_FILE gets one line per
mutant, "name killed by <test id> <seconds>", "name timeout by <test id> <seconds>" (a test ran past
TEST_TIMEOUT_S: the mutant hangs it, which counts as killed) or "name survived <seconds>". Test files default to the group's; name
the most targeted first, since the first failure ends a mutant's run. The tests run from a private copy (the
mutants and the current test folders), so a mutmut run of the same group is not disturbed. livetab's
caches are emptied each time a mutant is switched on (under mutmut's forks the staged conftest
empties them before every test; within one mutant's run a memoised result is the mutant's own, so once is
enough), and a test that killed a mutant is tried first for the next. Not a replacement for `make mutation`:
no record in mutmut's results.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "deploy"))

import mutation  # noqa: E402  (deploy/mutation.py: the groups and the stage layout)

# a mutant that makes one test (its call: runtestprotocol bypasses the timer of the whole protocol) run this
# long has hung it (an endless loop): counted as a timeout, which kills
# it, as under mutmut (every fast test of these groups takes well under a second)
TEST_TIMEOUT_S = 30


class _Plugin:
    """pytest plugin: the mutants run one after another over the collected tests. A test that killed a
    mutant is tried first for the next ones (mutants of one function tend to fall to the same tests); a
    survivor has run every test either way."""

    def __init__(self, names: list[str], out: Path) -> None:
        self.names, self.out = names, out

    def pytest_runtestloop(self, session: object) -> bool:
        from _pytest.runner import runtestprotocol
        from mutmut.mutation.trampoline import set_mutant_under_test

        items = list(session.items)  # type: ignore[attr-defined]
        with self.out.open("a", encoding="utf-8") as out:
            for name in self.names:
                t0 = time.monotonic()
                set_mutant_under_test(name)
                mutation.clear_caches()
                status = "survived"
                for i, item in enumerate(items):
                    reports = runtestprotocol(item, nextitem=items[i + 1] if i + 1 < len(items) else None, log=False)
                    if any(r.failed for r in reports):
                        hung = any("Timeout" in str(r.longrepr) for r in reports if r.failed)
                        status = f"{'timeout' if hung else 'killed'} by {item.nodeid}"
                        session._setupstate.teardown_exact(None)  # type: ignore[attr-defined]
                        items.insert(0, items.pop(i))
                        break
                out.write(f"{name} {status} {time.monotonic() - t0:.1f}s\n")
                out.flush()
        set_mutant_under_test(None)
        os.environ.pop("MUTANT_UNDER_TEST", None)
        return True


def _run_in_stage(names_file: Path, out_file: Path, tests: list[str]) -> int:
    import pytest

    names = names_file.read_text(encoding="utf-8").split()
    return int(pytest.main(["-q", "--tb=no", f"--timeout={TEST_TIMEOUT_S}", "-o", "timeout_func_only=true", "-p", "no:cacheprovider", "-m", mutation.DESELECT, *tests],
                           plugins=[_Plugin(names, out_file)]))


def main(argv: list[str]) -> int:
    if len(argv) >= 4 and argv[0] == "--in-stage":
        return _run_in_stage(Path(argv[1]), Path(argv[2]), argv[3:])
    if len(argv) < 3 or argv[0] not in mutation.BY_NAME:
        print(__doc__, file=sys.stderr)
        return 2
    group = mutation.BY_NAME[argv[0]]
    names_file, out_file = Path(argv[1]).resolve(), Path(argv[2]).resolve()
    tests = argv[3:] or group.tests
    mutants = mutation.WORK / group.name / "mutants"
    if not mutants.is_dir():
        raise SystemExit(f"no mutants of {group.name}: run `python deploy/mutation.py {group.name}` first")
    with tempfile.TemporaryDirectory(dir=mutation.OUT) as tmp:
        stage = Path(tmp)
        for name in mutation.PACKAGES:
            if (mutants / name).is_dir():
                shutil.copytree(mutants / name, stage / name)
        for rel in mutation.TEST_FOLDERS:
            shutil.copytree(ROOT / rel, stage / rel, ignore=shutil.ignore_patterns("__pycache__"))
        # the caches are emptied once per mutant by the plugin, not before every test as under mutmut's forks
        conftest = (mutants / "conftest.py").read_text(encoding="utf-8").replace(mutation.FRESH_CACHES, "")
        (stage / "conftest.py").write_text(conftest, encoding="utf-8")
        shutil.copy2(mutants / "pyproject.toml", stage / "pyproject.toml")
        env = {**mutation._env(), "PYTHONPATH": str(stage)}
        return subprocess.call([sys.executable, str(Path(__file__).resolve()), "--in-stage", str(names_file),
                                str(out_file), *tests], cwd=stage, env=env)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
