"""Issue 16's failures, each as a test that fails on the code before its fix and passes now.

    .venv/bin/python deploy/failed_before.py            # every row; prints the markdown table of docs/failed_before.md
    .venv/bin/python deploy/failed_before.py 1 7        # rows 1 and 7 only
    .venv/bin/python deploy/failed_before.py --keep     # leave the worktrees under /tmp/h16-before

For each row: `git worktree add --detach /tmp/h16-before/row<N>-<commit> <commit before the fix>`, the test
file(s) copied in (the file as it landed with the fix, `commit:path`, or an adapted copy from
deploy/failed_before/ whose docstring says what was adapted and why; a few rows apply one-line string
replacements, listed in ROWS), then `python -m pytest <ids>` in that tree with PYTHONPATH pointing at its
packages (this venv's editable install comes after PYTHONPATH on sys.path). The same ids' current form runs in
this checkout. Kafka and PostgreSQL: LIVETAB_TEST_KAFKA / LIVETAB_TEST_POSTGRES if set, else one broker and
one server started here through deploy/kafka.sh and deploy/postgres.sh for all rows and stopped at the end.
Exit status 0 when every row failed before and passes now.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASE = Path("/tmp/h16-before")


@dataclass
class Row:
    failure: str
    before: str  # the commit the test runs against (the parent of the fix)
    fix: str  # the commit(s) that fixed it, for the table
    files: dict[str, str]  # path in the old tree -> "commit:path" or a file of deploy/failed_before/
    ids: list[str]  # pytest node ids in the old tree
    now: list[str]  # the same tests on the current code
    patches: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # path -> (old, new) replacements
    kafka: bool = False


ADMISSION = "services/api/tests/test_api_admission.py"
# de838ee's admission tests on the code before it: names and signatures that did not exist yet (the tests' own
# constant MAX_SAMPLES, the in-process bus's topic list, create_app's settings argument).
ADMISSION_PATCHES = [
    ("from livetab.settings import MAX_SAMPLES, ApiSettings",
     "from livetab.settings import ApiSettings\nMAX_SAMPLES = 64  # adaptation: de838ee's value"),
    ("InProcBus(known_topics=set(TOPIC_NAMES))", "InProcBus()"),
    ("create_app(bus, store, ApiSettings())", "create_app(bus, store)"),
]
DOOR = "test_a_run_that_cannot_be_planned_is_refused_at_the_door"
FAULTS = "tests/integration/test_distributed_faults.py"

ROWS: list[Row] = [
    Row("One request stops all planning (a run for pool 'ghost': producer blocks 60 s, planner thread dies)",
        "8a52a0f", "e69424f",
        {FAULTS: f"e69424f:{FAULTS}"},
        [f"{FAULTS}::test_a_run_for_a_pool_without_a_topic_is_dead_lettered_and_planning_goes_on"],
        [f"{FAULTS}::test_a_run_for_a_pool_without_a_topic_is_dead_lettered_and_planning_goes_on",
         "shared/tests/test_worker_dead_letters.py"], kafka=True),
    Row("Failures vanish (a handler fails on a bad model spec: a DLQ record, the dead_letters table empty)",
        "8a52a0f", "e69424f",
        {"shared/tests/test_dead_letters_stored.py": "shared/tests/test_dead_letters_stored.py"},
        ["shared/tests/test_dead_letters_stored.py"], ["shared/tests/test_dead_letters_stored.py"]),
    Row("Failures vanish (a request the model stage cannot process: dead_letters empty, run stays 0/n)",
        "8a52a0f", "e69424f, de838ee",
        {ADMISSION: f"de838ee:{ADMISSION}"},
        [f"{ADMISSION}::test_every_planned_request_ends_answered_failed_or_dead_lettered_with_its_reason"],
        [f"{ADMISSION}::test_every_planned_request_ends_answered_failed_or_dead_lettered_with_its_reason"],
        patches={ADMISSION: ADMISSION_PATCHES}),
    Row("Failures vanish (a NUL byte in a scrape's release, a 10**9-sample run put on the topics directly)",
        "8ec326d", "c6e3b48",
        {FAULTS: f"c6e3b48:{FAULTS}"},
        [f"{FAULTS}::test_records_that_never_came_through_the_door_are_dead_lettered_and_stored"],
        [f"{FAULTS}::test_records_that_never_came_through_the_door_are_dead_lettered_and_stored"], kafka=True),
    Row("Data moves between releases (same pages scraped into B: A's questions and planned count go to 0)",
        "42dd706", "ef62f16, eb552e6",
        {"tests/integration/test_release_membership.py": "release_membership_before_ef62f16.py"},
        ["tests/integration/test_release_membership.py"],
        ["tests/integration/test_release_membership.py"]),
    Row("No bounds (samples 10**9, max_tokens/n_ctx/n_threads, release '', unknown release, NUL bytes, bad "
        "pool/params/base_url at the door)", "8a52a0f", "de838ee",
        {ADMISSION: f"de838ee:{ADMISSION}"},
        [f"{ADMISSION}::{DOOR}"], [f"{ADMISSION}::{DOOR}"], patches={ADMISSION: ADMISSION_PATCHES}),
    Row("No bounds (20 MB bodies: 413, not 500; a 422 never echoes the body)", "8a52a0f", "de838ee",
        {ADMISSION: f"de838ee:{ADMISSION}"},
        [f"{ADMISSION}::test_bodies_over_the_limit_get_413_and_422s_quote_only_an_excerpt"],
        [f"{ADMISSION}::test_bodies_over_the_limit_get_413_and_422s_quote_only_an_excerpt"],
        patches={ADMISSION: ADMISSION_PATCHES}),
    Row("No bounds (a NUL byte in a path: 500 from PostgreSQL)", "8a52a0f", "de838ee",
        {ADMISSION: f"de838ee:{ADMISSION}"},
        [f"{ADMISSION}::test_a_nul_byte_in_a_path_is_not_a_server_error"],
        [f"{ADMISSION}::test_a_nul_byte_in_a_path_is_not_a_server_error"], patches={ADMISSION: ADMISSION_PATCHES}),
    Row("Any environment variable leaves the building (api_key_ref 'HOME', 'LIVETAB_...')", "96303a6", "174fcd2",
        {"services/api/tests/test_api_guard.py": "api_key_ref_before_174fcd2.py"},
        ["services/api/tests/test_api_guard.py"],
        ["services/api/tests/test_api_guard.py::test_api_key_ref_names_only_the_teams_secrets"]),
    Row("The README's order races (a run submitted while the scrape's questions still arrive is planned over "
        "what is there)", "42dd706", "eb552e6",
        {"services/api/tests/test_planner_releases.py": "planner_releases_before_eb552e6.py"},
        ["services/api/tests/test_planner_releases.py"],
        ["services/api/tests/test_planner_releases.py::test_the_api_refuses_a_run_on_a_release_that_is_not_live_with_409",
         "services/api/tests/test_planner_releases.py::test_a_live_release_is_planned_over_its_frozen_set_only"]),
    Row("One bad page ends a live scrape (a revision without revid: KeyError aborts the run)", "4335fa2", "8ec326d",
        {"services/scraper/tests/test_wiki_recorded_answers.py": "wiki_recorded_answers_before_8ec326d.py",
         "services/scraper/tests/test_wiki_fake_server.py": "8ec326d:services/scraper/tests/test_wiki_fake_server.py"},
        ["services/scraper/tests/test_wiki_recorded_answers.py"],
        ["services/scraper/tests/test_wiki_recorded_answers.py"]),
    Row("Silent progress (an unreachable broker: a page of client errors before the one clear line)",
        "de838ee", "4335fa2",
        {"tests/integration/test_broker_unreachable.py": "80d2b17:tests/integration/test_broker_unreachable.py"},
        ["tests/integration/test_broker_unreachable.py"], ["tests/integration/test_broker_unreachable.py"],
        patches={"tests/integration/test_broker_unreachable.py": [(
            '[sys.executable, "-m", "livetab_judge", "--config", str(cfg)]',
            '[sys.executable, "-c", "import sys; from livetab_cli.main import main; sys.exit(main())", "serve", '
            '"judge", "--config", str(cfg)]')]}),
    Row("Silent progress (no per-batch line or counter of answered/failed/judged per run)", "96303a6", "5c96123",
        {"tests/integration/test_run_progress.py": "5c96123:tests/integration/test_run_progress.py"},
        ["tests/integration/test_run_progress.py"], ["tests/integration/test_run_progress.py"],
        # livetab.run_progress is the fix's own module: a stand-in that does nothing is attached where the
        # test attaches it, so what is asked is whether the old handlers count or log anything per run
        patches={"tests/integration/test_run_progress.py": [(
            "from livetab.run_progress import RunProgress\n",
            "\n\nclass RunProgress:  # adaptation: livetab.run_progress did not exist before 5c96123\n"
            "    def __init__(self, *args: object) -> None:\n        pass\n\n\n")]}),
]


def _git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def _source(spec: str) -> str:
    if re.fullmatch(r"[0-9a-f]{7,40}:.+", spec):
        return _git("show", spec)
    if "/" in spec:  # a file of this checkout, written to run on both sides
        return (ROOT / spec).read_text(encoding="utf-8")
    return (ROOT / "deploy" / "failed_before" / spec).read_text(encoding="utf-8")


# The old code's failures include exhausting memory (a 10**9-sample run is materialised in full): each run's
# address space is capped so that one ends as a MemoryError, not as the machine's OOM killer's choice.
MEMORY_CAP_KB = 6 * 1024 * 1024


def _pytest(ids: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str, float]:
    t0 = time.monotonic()
    p = subprocess.run(["prlimit", f"--as={MEMORY_CAP_KB * 1024}", "nice", "-n", "10", sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "--tb=line", "-rfE", "--show-capture=no", "-W", "ignore", *ids], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=900)
    return p.returncode, p.stdout + p.stderr, time.monotonic() - t0


def _summary(out: str) -> str:
    m = re.findall(r"^=*\s*(\d+ (?:failed|passed|error|errors)[^=\n]*?)\s*=*$", out, re.M)
    return m[-1] if m else out.strip().splitlines()[-1][:200] if out.strip() else "(no output)"


def _first_failure(out: str) -> str:
    """The first failing line pytest printed (--tb=line: 'path:line: Error...', or an 'E ' line); for a crashed
    interpreter, the fatal error and the innermost frame of the thread that crashed."""
    if "Fatal Python error" in out:
        fatal = next(line for line in out.splitlines() if line.startswith("Fatal Python error"))
        frames = out.split("Current thread", 1)[-1].splitlines()
        where = next((f.strip() for f in frames if f.strip().startswith("File ")), "")
        return f"{fatal} at {where}".replace(str(BASE), "<before>")
    for line in out.splitlines():
        if re.match(r"^(/|\w).*\.py:\d+: \w", line) or line.startswith("E "):
            return line.replace(str(BASE), "<before>").strip()[:300]
    for line in out.splitlines():
        if line.startswith(("FAILED", "ERROR")):
            return line.strip()[:300]
    return ""


# Loaded first in the old trees' interpreters: the venv's editable finder (which maps livetab* to this checkout)
# is removed, so a module the old tree lacks is an ImportError, never this checkout's copy.
ISOLATE = """import sys
sys.meta_path[:] = [f for f in sys.meta_path if "_EditableFinder" not in getattr(f, "__name__", repr(f))]
"""


def _tree_env(tree: Path, base: dict[str, str]) -> dict[str, str]:
    isolate = BASE / "isolate"
    isolate.mkdir(parents=True, exist_ok=True)
    (isolate / "sitecustomize.py").write_text(ISOLATE)
    paths = [isolate, tree, tree / "shared", tree / "cli", *sorted((tree / "services").glob("*"))]
    return {**base, "PYTHONPATH": os.pathsep.join(str(p) for p in paths), "PYTHONDONTWRITEBYTECODE": "1"}


def run_row(n: int, row: Row, env: dict[str, str]) -> dict[str, str]:
    tree = BASE / f"row{n}-{row.before}"
    if tree.exists():
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False)
    _git("worktree", "add", "--detach", str(tree), row.before)
    for dest, spec in row.files.items():
        text = _source(spec)
        for old, new in row.patches.get(dest, []):
            assert old in text, (dest, old)
            text = text.replace(old, new)
        (tree / dest).parent.mkdir(parents=True, exist_ok=True)
        (tree / dest).write_text(text, encoding="utf-8")
    rc_b, out_b, t_b = _pytest(row.ids, tree, _tree_env(tree, env))
    rc_n, out_n, t_n = _pytest(row.now, ROOT, env)
    (BASE / f"row{n}.before.log").write_text(out_b)
    (BASE / f"row{n}.now.log").write_text(out_n)
    summary_b = f"killed by signal {-rc_b}" if rc_b < 0 else _summary(out_b)
    return {"before": f"rc {rc_b}, {summary_b} ({t_b:.0f} s)", "line": _first_failure(out_b),
            "now": f"rc {rc_n}, {_summary(out_n)} ({t_n:.0f} s)", "ok": str(rc_b != 0 and rc_n == 0)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rows", nargs="*", type=int, help="row numbers (1-based); all when none")
    ap.add_argument("--keep", action="store_true", help="keep the worktrees under /tmp/h16-before")
    args = ap.parse_args(argv)
    chosen = args.rows or list(range(1, len(ROWS) + 1))
    BASE.mkdir(parents=True, exist_ok=True)
    shared = BASE / "shared"  # the trees' ../shared/data, as in every checkout
    if not shared.exists():
        shared.symlink_to((ROOT / ".." / "shared").resolve())
    env = dict(os.environ)
    started: list[tuple[str, Path]] = []
    if any(ROWS[n - 1].kafka for n in chosen):
        for var, script in (("LIVETAB_TEST_KAFKA", "kafka.sh"), ("LIVETAB_TEST_POSTGRES", "postgres.sh")):
            if not env.get(var):
                state = BASE / "state" / script.split(".")[0]
                out = subprocess.run([str(ROOT / "deploy" / script), "up", str(state)], check=True,
                                     capture_output=True, text=True, timeout=600)
                env[var] = out.stdout.strip().splitlines()[-1]
                started.append((script, state))
    ok = True
    lines = ["| # | failure | before (fix) | result before: first failing line | result now |",
             "|---|---|---|---|---|"]
    try:
        for n in chosen:
            row = ROWS[n - 1]
            r = run_row(n, row, env)
            ok &= r["ok"] == "True"
            ids = "<br>".join(f"`{i}`" for i in row.ids)
            lines.append(f"| {n} | {row.failure} | `{row.before}` ({row.fix}) | {r['before']}: `{r['line']}` "
                         f"<br>tests: {ids} | {r['now']} |")
            print(lines[-1], flush=True)
    finally:
        for script, state in started:
            subprocess.run([str(ROOT / "deploy" / script), "down", str(state)], check=False, timeout=120)
        if not args.keep:
            for n in chosen:
                tree = BASE / f"row{n}-{ROWS[n - 1].before}"
                subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False,
                               capture_output=True)
            subprocess.run(["git", "worktree", "prune"], cwd=ROOT, check=False)
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
