"""A sandbox for derivation programs: pandas code run in a separate, limited process.

Layers, each enough to stop the common escapes on its own and together what livetab relies on:

1. a static check of the program's syntax tree: imports only from an allow-list, no names or
   attributes beginning with ``_`` (no ``__import__``, ``__class__``, ``__subclasses__``), no
   file-touching attributes (``read_*``, ``to_csv``, ``tofile``...), no frame/code attributes, no
   classes, ``with``, ``global`` or async code, and none of those names as string constants either
   (``df.agg("to_csv", ...)``);
2. restricted builtins (no ``open``, ``getattr``, ``eval``, ``exec``, ``type``...) and module proxies
   that expose only public, non-module attributes of math, statistics, datetime, re and pandas;
3. a child process (``python -I`` on this file, empty environment, read-only empty working directory)
   with resource limits set once pandas is loaded: address space grows by at most `memory_mb`, CPU
   time, file size 0, no new file descriptors, no new processes (a root child becomes ``nobody``, as
   root ignores the process cap); Python-level ``open`` functions replaced;
4. a wall-clock deadline enforced by the parent, which kills the child's process group.

The program sees each table as a DataFrame under its name (and all of them in ``tables``); its value
is a variable ``answer`` or, failing that, its last expression.
"""

from __future__ import annotations

import ast
import json
import logging
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Any

__all__ = ["ALLOWED_IMPORTS", "SandboxResult", "check_program", "run_derivation"]

log = logging.getLogger(__name__)

ALLOWED_IMPORTS = frozenset({"math", "statistics", "datetime", "re", "pandas"})
_ALLOWED_TO = frozenset({"to_numeric", "to_datetime", "to_timedelta", "to_list", "to_dict", "to_numpy",
                         "to_frame", "to_period", "to_pydatetime", "to_records", "to_timestamp"})
_DENIED = frozenset({
    "format", "format_map", "mro", "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "ag_frame",
    "ag_code", "f_globals", "f_locals", "f_back", "f_builtins", "f_code", "tb_frame", "tb_next", "co_code",
    "func_globals", "eval", "query", "io", "api", "util", "testing", "compat", "core", "plotting", "plot",
    "style", "pipe", "ExcelWriter", "HDFStore", "options", "set_option", "describe_option", "reset_option",
    "option_context", "tofile", "dump", "dumps", "load", "loads", "fromfile", "save", "savetxt", "memmap",
    "ctypes", "sys", "os", "builtins", "importlib", "subprocess", "socket", "shutil", "pathlib", "system",
    "popen", "modules", "open", "exec", "compile", "globals", "locals", "vars", "getattr", "setattr",
    "delattr", "breakpoint", "input",
})
_DENIED_STRINGS = frozenset({"tofile", "dump", "dumps", "save", "savetxt", "eval", "query", "pipe", "plot", "style",
                             "memmap", "fromfile", "load", "loads", "format", "format_map", "mro"})
_FORBIDDEN_NODES = (ast.ClassDef, ast.AsyncFunctionDef, ast.Await, ast.AsyncFor, ast.AsyncWith, ast.With,
                    ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom)
_SAFE_BUILTINS = ("abs", "all", "any", "bool", "dict", "divmod", "enumerate", "filter", "float", "frozenset", "int",
                  "isinstance", "len", "list", "map", "max", "min", "next", "range", "reversed", "round", "set",
                  "slice", "sorted", "str", "sum", "tuple", "zip", "pow", "iter", "chr", "ord", "repr", "print",
                  "hash", "Exception", "ValueError", "KeyError", "IndexError", "TypeError", "ZeroDivisionError",
                  "ArithmeticError", "StopIteration", "AttributeError")
MAX_CODE_CHARS = 20_000
NOBODY = 65534


@dataclass(frozen=True)
class SandboxResult:
    ok: bool
    value: Any = None
    error: str = ""
    seconds: float = 0.0


def _denied_name(name: str) -> bool:
    if name.startswith("_") or name in _DENIED:
        return True
    if name.startswith("read_"):
        return True
    return name.startswith("to_") and name not in _ALLOWED_TO


def _denied_string(text: str) -> bool:
    """A string pandas might resolve to a method by name (``df.agg("to_csv", path)``)."""
    name = text.strip()
    if not name.isidentifier():
        return False
    return name.startswith("_") or name in _DENIED_STRINGS or (_denied_name(name) and name[:3] in ("to_", "rea"))


def check_program(code: str) -> list[str]:
    """Reasons the program is refused before it runs; empty when it may run."""
    if len(code) > MAX_CODE_CHARS:
        return [f"program longer than {MAX_CODE_CHARS} characters"]
    try:
        tree = ast.parse(code, mode="exec")
    except SyntaxError as e:
        return [f"syntax error: {e.msg} (line {e.lineno})"]
    problems: list[str] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", "?")
        if isinstance(node, _FORBIDDEN_NODES):
            problems.append(f"line {line}: {type(node).__name__} is not allowed")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] not in ALLOWED_IMPORTS or "." in alias.name:
                    problems.append(f"line {line}: import {alias.name} is not allowed")
        elif isinstance(node, ast.ImportFrom):
            if node.level or (node.module or "") not in ALLOWED_IMPORTS:
                problems.append(f"line {line}: from {node.module} import is not allowed")
            problems += [f"line {line}: import of {a.name} is not allowed" for a in node.names if _denied_name(a.name)]
        elif isinstance(node, ast.Name) and node.id.startswith("_"):
            problems.append(f"line {line}: name {node.id} is not allowed")
        elif isinstance(node, ast.Attribute) and _denied_name(node.attr):
            problems.append(f"line {line}: attribute .{node.attr} is not allowed")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _denied_string(node.value):
            problems.append(f"line {line}: string {node.value!r} names something not allowed")
        elif isinstance(node, (ast.FunctionDef, ast.Lambda)):
            args = node.args
            for a in args.posonlyargs + args.args + args.kwonlyargs:
                if a.arg.startswith("_"):
                    problems.append(f"line {line}: argument {a.arg} is not allowed")
    return problems


def _table_payload(table: Any) -> dict[str, Any]:
    """A DataFrame, a list of dicts, or a list of rows whose first row is the header."""
    if hasattr(table, "to_dict") and hasattr(table, "columns"):
        return {"columns": [str(c) for c in table.columns], "rows": table.astype(object).values.tolist()}
    rows = list(table)
    if rows and isinstance(rows[0], dict):
        columns = list(rows[0])
        return {"columns": columns, "rows": [[r.get(c) for c in columns] for r in rows]}
    if not rows:
        return {"columns": [], "rows": []}
    return {"columns": [str(c) for c in rows[0]], "rows": [list(r) for r in rows[1:]]}


def _reader(stream: Any, out: queue.Queue[str | None]) -> None:
    for line in stream:
        out.put(line)
    out.put(None)


def run_derivation(code: str, tables: dict[str, Any], *, timeout_s: float = 2.0, memory_mb: int = 256,
                   coerce_numeric: bool = True, startup_timeout_s: float = 60.0,
                   static_check: bool = True) -> SandboxResult:
    """Run `code` over `tables` in a child process; never raises for anything the program does.

    `static_check=False` exists only to test that the process layers hold on their own.
    """
    t0 = time.perf_counter()
    problems = check_program(code) if static_check else []
    if problems:
        return SandboxResult(False, error="refused: " + "; ".join(problems[:5]))
    try:
        payload = json.dumps({"code": code, "tables": {k: _table_payload(v) for k, v in tables.items()},
                              "timeout_s": timeout_s, "memory_mb": memory_mb, "coerce": coerce_numeric},
                             default=str)
    except (TypeError, ValueError) as e:
        return SandboxResult(False, error=f"tables cannot be passed to the sandbox: {e}")
    env = {"PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "LANG": "C.UTF-8"}
    with tempfile.TemporaryDirectory(prefix="livetab-sandbox-") as cwd:
        os.chmod(cwd, 0o555)
        try:
            proc = subprocess.Popen([sys.executable, "-I", os.path.abspath(__file__)], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env, text=True,
                                    start_new_session=True)
        except OSError as e:
            return SandboxResult(False, error=f"sandbox could not start: {e}")
        lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=_reader, args=(proc.stdout, lines), daemon=True).start()
        try:
            assert proc.stdin is not None
            proc.stdin.write(payload)
            proc.stdin.close()
            result = _await_result(proc, lines, timeout_s, startup_timeout_s)
        finally:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, 9)
                except ProcessLookupError:  # pragma: no cover - already gone
                    pass
            proc.wait()
            stderr = proc.stderr.read() if proc.stderr else ""
            if proc.stderr:
                proc.stderr.close()
            if proc.stdout:
                proc.stdout.close()
    if result is None:
        tail = stderr.strip().splitlines()[-1:] if stderr.strip() else []
        why = tail[0] if tail else f"exit status {proc.returncode}"
        return SandboxResult(False, error=f"sandbox died: {why}", seconds=time.perf_counter() - t0)
    return SandboxResult(result.ok, result.value, result.error, seconds=time.perf_counter() - t0)


def _await_result(proc: subprocess.Popen[str], lines: queue.Queue[str | None], timeout_s: float,
                  startup_timeout_s: float) -> SandboxResult | None:
    try:
        first = lines.get(timeout=startup_timeout_s)
    except queue.Empty:
        return SandboxResult(False, error=f"sandbox did not start within {startup_timeout_s:g} s")
    if first is None or first.strip() != "READY":
        return None if first is None else _parse(first)
    try:
        line = lines.get(timeout=timeout_s)
    except queue.Empty:
        return SandboxResult(False, error=f"timeout: the program ran longer than {timeout_s:g} s and was killed")
    return None if line is None else _parse(line)


def _parse(line: str) -> SandboxResult:
    try:
        data = json.loads(line)
    except json.JSONDecodeError:
        return SandboxResult(False, error=f"unreadable sandbox output {line[:80]!r}")
    return SandboxResult(bool(data.get("ok")), data.get("value"), str(data.get("error", "")))


# ---------------------------------------------------------------------------------------------------
# The child side: only the standard library and pandas are imported here (this file runs with -I).

def _plain(value: Any) -> Any:
    import datetime as _dt

    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "item") and not hasattr(value, "__len__"):
        return _plain(value.item())
    if isinstance(value, (_dt.date, _dt.datetime, _dt.time)):
        return value.isoformat()
    if hasattr(value, "tolist"):
        return _plain(value.tolist())
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((_plain(v) for v in value), key=str)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return str(value)


def _proxy(module: Any, extra_denied: frozenset[str] = frozenset()) -> Any:
    import types

    ns = types.SimpleNamespace()
    for name in dir(module):
        if _denied_name(name) or name in extra_denied:
            continue
        obj = getattr(module, name)
        if isinstance(obj, types.ModuleType):
            continue
        setattr(ns, name, obj)
    return ns


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _limit_self(memory_mb: int, timeout_s: float) -> None:
    import resource

    with open("/proc/self/status", encoding="ascii") as f:
        vm_kb = next(int(line.split()[1]) for line in f if line.startswith("VmSize:"))
    limit = vm_kb * 1024 + memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu = int(used.ru_utime + used.ru_stime + timeout_s) + 2
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    # no new descriptors: fill every free number below the highest open one, then cap at that number
    listed = [int(fd) for fd in os.listdir("/proc/self/fd")]
    top = max(fd for fd in listed if _is_open(fd))
    while True:
        fd = os.open(os.devnull, os.O_RDONLY)
        if fd > top:
            os.close(fd)
            break
    resource.setrlimit(resource.RLIMIT_NOFILE, (top + 1, top + 1))
    if os.geteuid() == 0:  # root ignores RLIMIT_NPROC: become nobody so the process cap holds
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)


def _warm_up(pd: Any, statistics: Any) -> None:
    """Touch the pandas paths derivations use, so lazy imports happen before file descriptors are capped."""
    s = pd.Series([3, 1, 2], dtype="int64")
    df = pd.DataFrame({"a": ["x", "y", "x"], "b": [1.5, 2.0, 3.0], "d": ["2020-01-02", "2021-03-04", "2022-05-06"]})
    df.groupby("a")["b"].agg(["sum", "mean", "max", "count"])
    pd.to_datetime(df["d"]).dt.year.max()
    (pd.to_datetime(df["d"]) - pd.Timestamp("2020-01-01")).dt.days.sum()
    df["a"].str.contains("x", case=False, regex=True).sum()
    df.sort_values("b", ascending=False).head(2).reset_index(drop=True)
    df["a"].value_counts().idxmax()
    df.describe()
    s.rank().nlargest(2).to_list()
    pd.to_numeric(pd.Series(["1", "x"]), errors="coerce").isna().any()
    df.merge(df, on="a").pivot_table(index="a", values="b_x", aggfunc="sum")
    statistics.median([1, 2, 3])
    statistics.mean([1.0, 2.0])
    statistics.stdev([1.0, 2.0, 4.0])


def _child_main() -> None:
    import builtins
    import io

    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb"), encoding="utf-8")
    request = json.loads(sys.stdin.read())

    import datetime
    import math
    import re
    import statistics

    import pandas as pd

    frames: dict[str, Any] = {}
    for name, spec in request["tables"].items():
        df = pd.DataFrame(spec["rows"], columns=spec["columns"])
        if request.get("coerce"):
            for col in df.columns:
                cleaned = df[col].map(lambda v: v.replace(",", "").strip() if isinstance(v, str) else v)
                nums = pd.to_numeric(cleaned, errors="coerce")
                filled = cleaned.map(lambda v: v not in (None, ""))
                if filled.any() and nums[filled].notna().all():
                    df[col] = nums
        frames[name] = df
    proxies = {"math": _proxy(math), "statistics": _proxy(statistics), "datetime": _proxy(datetime),
               "re": _proxy(re), "pandas": _proxy(pd)}

    def safe_import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
        if level or name not in proxies:
            raise ImportError(f"import {name} is not allowed")
        return proxies[name]

    safe = {n: getattr(builtins, n) for n in _SAFE_BUILTINS}
    safe["__import__"] = safe_import
    namespace: dict[str, Any] = {"__builtins__": safe, "pd": proxies["pandas"], "math": proxies["math"],
                                 "statistics": proxies["statistics"], "datetime": proxies["datetime"],
                                 "re": proxies["re"], "tables": dict(frames), **frames}
    tree = ast.parse(request["code"], mode="exec")
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body[-1]
        tree.body[-1] = ast.copy_location(
            ast.Assign(targets=[ast.Name(id="answer", ctx=ast.Store())], value=last.value), last)
        ast.fix_missing_locations(tree)
    program = compile(tree, "<derivation>", "exec")
    _warm_up(pd, statistics)

    def refuse(*_a: Any, **_k: Any) -> Any:
        raise PermissionError("file access is not allowed in the sandbox")

    _limit_self(int(request["memory_mb"]), float(request["timeout_s"]))
    builtins.open = refuse
    io.open = refuse
    os.open = refuse
    for name in ("system", "popen", "listdir", "scandir", "remove", "unlink", "execv", "execve", "fork"):
        if hasattr(os, name):
            setattr(os, name, refuse)
    out.write("READY\n")
    out.flush()
    try:
        exec(program, namespace)
        if "answer" not in namespace:
            reply = {"ok": False, "error": "the program set no `answer` and did not end with an expression"}
        else:
            reply = {"ok": True, "value": _plain(namespace["answer"])}
    except MemoryError:
        reply = {"ok": False, "error": f"memory limit: more than {request['memory_mb']} MB"}
    except BaseException as e:  # the program's own failure is the result, reported not raised
        reply = {"ok": False, "error": f"{type(e).__name__}: {e}"[:500]}
    try:
        text = json.dumps(reply, default=str)
    except (TypeError, ValueError) as e:
        text = json.dumps({"ok": False, "error": f"result not serialisable: {e}"})
    out.write(text + "\n")
    out.flush()


if __name__ == "__main__":
    _child_main()
