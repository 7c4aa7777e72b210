"""`make mutation`: mutation testing (mutmut 3) of the code that decides scores and keeps them honest.

Each *group* below names the modules it mutates and the fast tests that stand guard over them. mutmut 3
names a mutant by the path of its file below the folder it runs in and activates it by comparing that
name with the function's `__module__`, so it needs the import layout at the top of that folder. The
repository has one source root per package (shared/, services/<name>/), so each group is staged:

    out/mutation/work/<group>/livetab/            copy of shared/livetab
    out/mutation/work/<group>/livetab_qagen/      copy of services/qagen/livetab_qagen (if mutated)
    out/mutation/work/<group>/livetab_inference/  copy of services/inference/livetab_inference (if mutated)
    out/mutation/work/<group>/<test folders>      copies, same relative paths (tests import each other so)
    out/mutation/work/<group>/pyproject.toml      this group's [tool.mutmut] and the project's pytest settings

and mutmut runs there with one worker (`--max-children 1`). Packages not mutated by a group come from the
checkout as usual; the staged `livetab` shadows the checkout's because mutmut puts its copy first on
sys.path. Results stay in each group's mutants/ folder, so a second `make mutation` only runs what changed.

Writes out/mutation/summary.json (per module: killed, survived, no tests, timeout, score) and
out/mutation/summary.md (the same table and every survivor's diff).

    python deploy/mutation.py                 # every group, in priority order
    python deploy/mutation.py ids metrics     # only these groups
    python deploy/mutation.py --report        # only rebuild the summary from results already there
    python deploy/mutation.py --fresh ids     # forget earlier results of these groups first
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import inspect
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "out" / "mutation"
WORK = OUT / "work"

# import name -> source folder in the checkout
PACKAGES = {
    "livetab": "shared/livetab",
    "livetab_qagen": "services/qagen/livetab_qagen",
    "livetab_inference": "services/inference/livetab_inference",
}
# test folders copied into every stage (tests import helpers across them: tests.fakes, services.*.tests)
TEST_FOLDERS = ["shared/tests", "services/qagen/tests", "services/inference/tests", "services/judge/tests",
                "services/scraper/tests", "tests"]
# only fast tests guard mutants: a test with one of these markers is never run per mutant
DESELECT = "not kafka and not postgres and not model and not e2e and not slow"
# Lines that only log: a mutant there changes a message nobody scores. Excluded by pattern, listed in the report.
LOGGING_ONLY = r"^\s*log\.(debug|info|warning|error|exception)\("


# Trace and metric plumbing: span names, kinds, attributes, links and status, metric recordings. They shape
# what an operator sees, not what is stored, published or committed; the trace contract is tested in a
# fresh process (test_trace_propagation), where mutmut's in-process switch cannot reach.
TELEMETRY = {
    r"^\s*\"messaging\.": "span attribute (telemetry only)",
    r"kind=SpanKind\.|start_as_current_span\(": "span name, kind and parent (telemetry only)",
    r"^\s*(links=\[trace\.Link|for r, _ in good\],|attributes=\{)": "span links and attributes (telemetry only)",
    r"span\.set_status\(": "span status (telemetry only)",
    r"self\._m_\w+\.(add|record)\(": "metric recording (telemetry only)",
    r"^\s*parent = extract_context\(": "span parent (telemetry only)",
}


@dataclass
class Group:
    name: str
    modules: list[str]  # files in the checkout, e.g. "shared/livetab/ids.py"
    tests: list[str]
    # functions of a module to mutate (None: all); the rest of the staged copy is marked `no mutate`
    only: dict[str, list[str]] = field(default_factory=dict)
    # lines not mutated in this group, by regular expression, each with the reason (shown in the report)
    skip: dict[str, str] = field(default_factory=dict)


RUBRIC_TESTS = ["shared/tests/test_rubric_examples.py", "shared/tests/test_rubric_extract.py",
                "shared/tests/test_rubric_kinds.py", "shared/tests/test_rubric_lists.py",
                "shared/tests/test_rubric_numbers.py", "shared/tests/test_rubric_text.py",
                "shared/tests/test_rubric_arabic_fold.py", "shared/tests/test_rubric_fold_compat.py",
                "shared/tests/test_rubric_extract_edges.py", "shared/tests/test_rubric_year_dates.py",
                "shared/tests/test_wtq_hand_checked.py", "shared/tests/test_wtq_official.py"]
# the rule judge's decision (judge.py, gold.py, mcq.py): the rubric tests above, the judge's class, language,
# oracle-case tests, and the tests written against its survivors
RUBRIC_JUDGE_TESTS = [*RUBRIC_TESTS, "shared/tests/test_rubric_classes.py", "shared/tests/test_rubric_languages.py",
                      "shared/tests/test_rubric_oracle_cases.py", "shared/tests/test_rubric_judge_paths.py",
                      "shared/tests/test_rubric_judge_lists.py", "shared/tests/test_rubric_mcq_forms.py",
                      "shared/tests/test_rubric_gold_spec.py", "shared/tests/test_rubric_judge_edges.py",
                      "shared/tests/test_rubric_class_pins.py", "shared/tests/test_rubric_durations.py",
                      "shared/tests/test_rubric_judge_pins.py", "shared/tests/test_rubric_unique_part.py"]

# the rest of the rubric (text, numbers, forms, answer classes) is reached through the judge too
RUBRIC_REST_TESTS = [*RUBRIC_TESTS, "shared/tests/test_rubric_classes.py", "shared/tests/test_rubric_languages.py",
                     "shared/tests/test_rubric_oracle_cases.py", "shared/tests/test_rubric_durations.py",
                     "shared/tests/test_rubric_number_precision.py", "shared/tests/test_rubric_extract_forms.py",
                     "shared/tests/test_rubric_forms.py", "shared/tests/test_rubric_class_parts.py",
                     "shared/tests/test_rubric_table_view.py", "shared/tests/test_rubric_locale_packs.py",
                     "shared/tests/test_rubric_judge_paths.py", "shared/tests/test_rubric_judge_lists.py",
                     "shared/tests/test_rubric_language_relations.py", "shared/tests/test_rubric_judge_edges.py",
                     "shared/tests/test_rubric_class_pins.py", "shared/tests/test_rubric_judge_pins.py",
                     "shared/tests/test_rubric_comparison_negation.py", "shared/tests/test_rubric_relation_anchor.py"]

# Priority order: the ids and metrics every score is built from, the cache key, the worker's commit path,
# qagen's derivation and verification, the rule judge's decision, then the rest of the rubric.
GROUPS = [
    Group("ids", ["shared/livetab/ids.py"], ["shared/tests/test_ids.py", "services/judge/tests/test_judge_redelivery.py"]),
    Group("metrics", ["shared/livetab/metrics.py"], ["shared/tests/test_metrics.py", "shared/tests/test_metrics_edges.py"]),
    Group("cache_key", ["services/inference/livetab_inference/handler.py"],
          ["services/inference/tests/test_inference_cache_key.py"],
          only={"services/inference/livetab_inference/handler.py": ["cache_key"]}),
    # the worker's commit path: what it does with a batch, from poll to commit, and how it stops and retries
    # (its constructor's metric names and descriptions are telemetry, not part of the path)
    Group("worker", ["shared/livetab/bus/worker.py"],
          ["shared/tests/test_worker_commit.py", "shared/tests/test_worker_idle.py", "shared/tests/test_worker_path.py"],
          only={"shared/livetab/bus/worker.py": ["Worker.run", "Worker.run_once", "Worker._process",
                                                 "Worker._process_batch", "Worker._dead_letter", "Worker._idle",
                                                 "Worker.stop", "Worker.install_signal_handlers"]},
          skip=TELEMETRY),
    Group("derive_verify", ["services/qagen/livetab_qagen/derive.py", "services/qagen/livetab_qagen/verify.py"],
          ["services/qagen/tests/test_verify.py", "services/qagen/tests/test_dependence.py",
           "services/qagen/tests/test_derive_ops.py", "services/qagen/tests/test_dependence_search.py"]),
    Group("rubric_judge", ["shared/livetab/rubric/judge.py", "shared/livetab/rubric/gold.py",
                           "shared/livetab/rubric/mcq.py"], RUBRIC_JUDGE_TESTS),
    # the rest of the rubric, in four groups small enough to run (and re-run) one at a time
    Group("rubric_numbers", ["shared/livetab/rubric/numbers.py", "shared/livetab/rubric/durations.py"],
          RUBRIC_REST_TESTS),
    Group("rubric_text", ["shared/livetab/rubric/text.py", "shared/livetab/rubric/arabic.py",
                          "shared/livetab/rubric/extract.py"], RUBRIC_REST_TESTS),
    Group("rubric_forms", ["shared/livetab/rubric/booleans.py", "shared/livetab/rubric/lists.py",
                           "shared/livetab/rubric/dates.py", "shared/livetab/rubric/imperfect.py",
                           "shared/livetab/rubric/locale.py"], RUBRIC_REST_TESTS),
    Group("rubric_classes", ["shared/livetab/rubric/comparisons.py", "shared/livetab/rubric/commas.py",
                             "shared/livetab/rubric/ranges.py", "shared/livetab/rubric/relations.py",
                             "shared/livetab/rubric/cellparts.py", "shared/livetab/rubric/columns.py",
                             "shared/livetab/rubric/context.py", "shared/livetab/rubric/wtq.py"], RUBRIC_REST_TESTS),
]
BY_NAME = {g.name: g for g in GROUPS}

# mutmut's exit-code meanings (mutmut.stats.status_by_exit_code), kept here so the report needs no import
STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped", 35: "suspicious",
          36: "timeout", -24: "timeout", 24: "timeout", 152: "timeout", 255: "timeout", -11: "segfault",
          -9: "segfault", 37: "caught by type check", 2: "interrupted"}


# Appended to the staged conftest.py. mutmut forks every mutant from a process that has already run the
# tests, so a memoised result of the unmutated code (gold's _CACHE dicts, lru_caches) would answer in the
# mutant's place and it would "survive" untested. Each test starts with livetab's caches empty.
def clear_caches() -> None:
    """Empty livetab's memoised results (`cache_clear`-able functions, `*_CACHE` dicts) in every loaded module
    of the mutated packages, so the unmutated code's cached answers never stand in for a mutant's."""
    import sys

    for name, module in list(sys.modules.items()):
        if name.split(".")[0] not in ("livetab", "livetab_qagen", "livetab_inference"):
            continue
        for attr, value in list(vars(module).items()):
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()
            elif attr.endswith("_CACHE") and isinstance(value, dict):
                value.clear()


# The staged conftest empties them before every test (mutmut runs many mutants in one forked process tree);
# deploy/mutation_check.py calls `clear_caches` once per mutant instead and strips this text.
FRESH_CACHES = "\n\n" + inspect.getsource(clear_caches) + """

@pytest.fixture(autouse=True)
def _mutation_fresh_caches() -> None:
    clear_caches()
"""


def _staged_path(module: str) -> str:
    """shared/livetab/bus/worker.py -> livetab/bus/worker.py"""
    for name, folder in PACKAGES.items():
        if module.startswith(folder + "/"):
            return name + module[len(folder):]
    raise ValueError(f"{module} is not in a mutated package ({', '.join(PACKAGES.values())})")


def _toml_list(items: list[str]) -> str:
    return "[" + ", ".join(json.dumps(i) for i in items) + "]"


def _pytest_section() -> str:
    """The project's [tool.pytest.ini_options] (markers, timeout, warnings), copied verbatim."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    start = text.index("[tool.pytest.ini_options]")
    end = text.find("\n[", start + 1)
    return text[start:end if end != -1 else len(text)].strip() + "\n"


def _limit_to_functions(path: Path, keep: list[str]) -> None:
    """Give every function of the staged copy not named in `keep` ("f" or "Class.method") a decorator that
    changes nothing (typing.no_type_check returns the function itself): mutmut leaves decorated functions
    alone. Names in `keep` that the file does not define are an error, not a silently smaller run."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines(keepends=True)
    found: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append((node.name, node))
        elif isinstance(node, ast.ClassDef):
            found += [(f"{node.name}.{m.name}", m) for m in node.body
                      if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)]
    unknown = set(keep) - {name for name, _ in found}
    if unknown:
        raise SystemExit(f"{path}: no function {sorted(unknown)} to mutate")
    for name, node in sorted(found, key=lambda f: -f[1].lineno):
        if name in keep:
            continue
        first = min(d.lineno for d in [node, *node.decorator_list]) - 1
        indent = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
        lines.insert(first, f'{indent}@__import__("typing").no_type_check  # not mutated (deploy/mutation.py)\n')
    path.write_text("".join(lines), encoding="utf-8")


def stage(group: Group) -> Path:
    """The group's folder, (re)built from the checkout; mutmut's earlier results in it are kept."""
    d = WORK / group.name
    d.mkdir(parents=True, exist_ok=True)
    packages = {_staged_path(m).split("/")[0] for m in group.modules} | {"livetab"}
    for name in PACKAGES:
        target = d / name
        if target.exists():
            shutil.rmtree(target)
        if name in packages:
            shutil.copytree(ROOT / PACKAGES[name], target, ignore=shutil.ignore_patterns("__pycache__"))
    for rel in TEST_FOLDERS:
        target = d / rel
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(ROOT / rel, target, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "conftest.py", d / "conftest.py")
    with (d / "conftest.py").open("a", encoding="utf-8") as f:
        f.write(FRESH_CACHES)
    for module, functions in group.only.items():
        _limit_to_functions(d / _staged_path(module), functions)
    mutated = sorted(packages)
    config = f"""# generated by deploy/mutation.py for the group {group.name!r}; edit GROUPS there, not this file
[tool.mutmut]
source_paths = {_toml_list(mutated)}
only_mutate = {_toml_list([_staged_path(m) for m in group.modules])}
also_copy = {_toml_list([*TEST_FOLDERS, "conftest.py"])}
pytest_add_cli_args_test_selection = {_toml_list(group.tests)}
pytest_add_cli_args = ["-m", {json.dumps(DESELECT)}, "-p", "no:cacheprovider"]
do_not_mutate_patterns = {_toml_list([LOGGING_ONLY, *group.skip])}
use_git_change_detection = false
on_dependency_change = "rerun"

{_pytest_section()}"""
    (d / "pyproject.toml").write_text(config, encoding="utf-8")
    return d


def _env() -> dict[str, str]:
    env = dict(os.environ)
    # the staged livetab lives elsewhere: tell it where the shared data set is
    env.setdefault("LIVETAB_SHARED_DATA", str((ROOT.parent / "shared" / "data").resolve()))
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _fingerprint(group: Group) -> str:
    """What the group's verdicts depend on besides the mutated functions (mutmut tracks those itself)."""
    h = hashlib.sha256()
    for rel in sorted({*group.tests, "conftest.py", "deploy/mutation.py"}):
        h.update(rel.encode() + b"\0" + (ROOT / rel).read_bytes() + b"\0")
    return h.hexdigest()[:16]


def _forget_survivors(d: Path) -> int:
    """The tests changed: mutants that survived (or found no test) are tried again; kills stand."""
    n = 0
    for meta in (d / "mutants").rglob("*.meta"):
        data = json.loads(meta.read_text(encoding="utf-8"))
        codes = data.get("exit_code_by_key", {})
        for name, code in codes.items():
            if code is not None and STATUS.get(code) in ("survived", "no tests", "suspicious"):
                codes[name] = None
                n += 1
        meta.write_text(json.dumps(data, indent=4), encoding="utf-8")
    return n


def run_group(group: Group, *, fresh: bool) -> float:
    d = WORK / group.name
    missing = [t for t in group.tests if not (ROOT / t).exists()]
    if missing:
        raise SystemExit(f"group {group.name}: test files missing: {missing}")
    if fresh and (d / "mutants").exists():
        shutil.rmtree(d / "mutants")
    stage(group)
    stamp = d / "tests.fingerprint"
    fp = _fingerprint(group)
    if (d / "mutants").exists() and (not stamp.exists() or stamp.read_text() != fp):
        print(f"   tests of {group.name} changed: {_forget_survivors(d)} survivors will be tried again")
    t0 = time.monotonic()
    print(f"== mutation group {group.name}: {', '.join(group.modules)}", flush=True)
    log = OUT / f"{group.name}.log"
    with log.open("w", encoding="utf-8") as f:  # mutmut draws a spinner: the log keeps it out of the terminal
        rc = subprocess.call([sys.executable, "-m", "mutmut", "run", "--max-children", "1"], cwd=d, env=_env(),
                             stdout=f, stderr=subprocess.STDOUT)
    tail = log.read_text(encoding="utf-8", errors="replace").replace("\r", "\n").strip().splitlines()[-3:]
    print("   " + " | ".join(line.strip() for line in tail), flush=True)
    if rc != 0:
        print(f"mutmut exited with {rc} for group {group.name}", file=sys.stderr)
    else:
        stamp.write_text(fp)
    return time.monotonic() - t0


_DIFFS = """
import json, sys
from mutmut.mutation.diff_apply import get_diff_for_mutant
out = {}
for name, path in json.load(sys.stdin):
    try:
        out[name] = get_diff_for_mutant(name, path=path)
    except Exception as e:
        out[name] = f"(no diff: {type(e).__name__}: {e})"
print(json.dumps(out))
"""


def _mutant_diffs(d: Path, names: list[tuple[str, str]]) -> dict[str, str]:
    """The diffs of these mutants (name, staged path), read by mutmut in one process."""
    if not names:
        return {}
    out = subprocess.run([sys.executable, "-c", _DIFFS], cwd=d, env=_env(), input=json.dumps(names),
                         capture_output=True, text=True, timeout=600)
    try:
        return dict(json.loads(out.stdout))
    except json.JSONDecodeError:
        return {n: f"(no diff: {out.stderr.strip()[-300:]})" for n, _ in names}


def collect(groups: list[Group], seconds: dict[str, float]) -> dict[str, object]:
    modules: dict[str, dict[str, object]] = {}
    for group in groups:
        d = WORK / group.name
        for module in group.modules:
            meta = d / "mutants" / (_staged_path(module) + ".meta")
            counts: dict[str, int] = {}
            survivors: list[dict[str, str]] = []
            if meta.exists():
                data = json.loads(meta.read_text(encoding="utf-8"))
                for name, code in sorted(data.get("exit_code_by_key", {}).items()):
                    status = "not checked" if code is None else STATUS.get(code, "suspicious")
                    counts[status] = counts.get(status, 0) + 1
                    if status in ("survived", "no tests", "suspicious"):
                        survivors.append({"mutant": name, "status": status, "diff": ""})
                diffs = _mutant_diffs(d, [(s["mutant"], _staged_path(module)) for s in survivors])
                for s in survivors:
                    s["diff"] = diffs.get(s["mutant"], "")
            killed = counts.get("killed", 0) + counts.get("timeout", 0) + counts.get("caught by type check", 0)
            decided = sum(v for k, v in counts.items() if k not in ("not checked", "skipped", "interrupted"))
            modules[module] = {
                "group": group.name, "functions": group.only.get(module, ["(all)"]), "tests": group.tests,
                "lines_not_mutated": {LOGGING_ONLY: "logging only", **group.skip},
                "counts": counts, "killed": killed, "decided": decided,
                "score": round(killed / decided, 4) if decided else None,
                "ran": meta.exists(), "survivors": survivors,
            }
    killed = sum(int(m["killed"]) for m in modules.values())  # type: ignore[call-overload]
    decided = sum(int(m["decided"]) for m in modules.values())  # type: ignore[call-overload]
    return {"tool": "mutmut 3 (" + _mutmut_version() + "), one worker", "deselected": DESELECT,
            "logging_only_lines_excluded": LOGGING_ONLY, "modules": modules,
            "total": {"killed": killed, "decided": decided, "score": round(killed / decided, 4) if decided else None},
            "seconds_per_group": seconds}


def _mutmut_version() -> str:
    try:
        from importlib.metadata import version

        return version("mutmut")
    except Exception:
        return "not installed"


def write_report(summary: dict[str, object]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    modules: dict[str, dict[str, object]] = summary["modules"]  # type: ignore[assignment]
    lines = ["# Mutation testing: scoring and integrity core", "",
             f"Tool: {summary['tool']}. Tests run per mutant: the group's fast tests (`-m \"{DESELECT}\"`).",
             "Killed counts timeouts too (a mutant that hangs the tests is caught). "
             "Lines that only log are not mutated.", "",
             "| module | functions | killed | survived | no tests | timeout | score |",
             "|---|---|---|---|---|---|---|"]
    for module, m in modules.items():
        c: dict[str, int] = m["counts"]  # type: ignore[assignment]
        score = "not run" if not m["ran"] else f"{100 * float(m['score'] or 0):.1f} %"  # type: ignore[arg-type]
        lines.append(f"| {module} | {', '.join(m['functions'])} | {m['killed']} | {c.get('survived', 0)} | "  # type: ignore[arg-type]
                     f"{c.get('no tests', 0)} | {c.get('timeout', 0)} | {score} |")
    total: dict[str, object] = summary["total"]  # type: ignore[assignment]
    if total["score"] is not None:
        lines.append(f"| **all run** | | {total['killed']} | | | | **{100 * float(total['score']):.1f} %** |")  # type: ignore[arg-type]
    lines += ["", "## Survivors", ""]
    for m in modules.values():
        for s in m["survivors"]:  # type: ignore[attr-defined]
            lines += [f"### {s['mutant']} ({s['status']})", "", "```diff", s["diff"], "```", ""]
    (OUT / "summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"mutation summary: {OUT / 'summary.md'} (all run: {total['killed']}/{total['decided']} killed)")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("groups", nargs="*", help=f"groups to run (default all): {', '.join(BY_NAME)}")
    p.add_argument("--report", action="store_true", help="only rebuild the summary from earlier results")
    p.add_argument("--fresh", action="store_true", help="forget earlier results of the groups run")
    args = p.parse_args(argv)
    unknown = [g for g in args.groups if g not in BY_NAME]
    if unknown:
        p.error(f"unknown groups {unknown}; known: {list(BY_NAME)}")
    chosen = [BY_NAME[g] for g in args.groups] if args.groups else GROUPS
    seconds: dict[str, float] = {}
    if not args.report:
        for group in chosen:
            seconds[group.name] = round(run_group(group, fresh=args.fresh), 1)
    previous = OUT / "summary.json"
    if previous.exists() and args.groups:
        old = json.loads(previous.read_text(encoding="utf-8")).get("seconds_per_group", {})
        seconds = {**old, **seconds}
    write_report(collect(GROUPS, seconds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
