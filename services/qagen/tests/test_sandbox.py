"""The derivation sandbox: normal programs work; loops, files, imports and escapes are stopped."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest
from livetab_qagen.sandbox import check_program, run_derivation

TABLE = [["name", "score", "date"], ["Ann", "1,200", "2020-01-05"], ["Bo", "3", "2021-02-01"], ["Cy", "40", ""]]


def test_a_normal_derivation_works() -> None:
    code = "top = df.sort_values('score', ascending=False).iloc[0]\nanswer = (top['name'], int(df['score'].sum()))"
    r = run_derivation(code, {"df": TABLE})
    assert r.ok, r.error
    assert r.value == ["Ann", 1243]


def test_imports_from_the_allow_list_and_dataframes_work() -> None:
    frame = pd.DataFrame({"city": ["a", "b"], "pop": [3, 5]})
    code = "import math\nimport statistics\nfrom datetime import date\nimport re\n" \
           "d = date(2020, 1, 1)\n[math.sqrt(16), statistics.mean(t['pop']), d.year, len(re.findall('a', 'aa'))]"
    r = run_derivation(code, {"t": frame})
    assert r.ok, r.error
    assert r.value == [4.0, 4, 2020, 2]


def test_infinite_loop_is_stopped() -> None:
    r = run_derivation("while True:\n    pass", {"df": TABLE}, timeout_s=1)
    assert not r.ok and r.error.startswith("timeout")


def test_memory_is_capped() -> None:
    r = run_derivation("x = [0] * (10 ** 9)\nlen(x)", {"df": TABLE}, memory_mb=128)
    assert not r.ok and "memory" in r.error


@pytest.mark.parametrize("code", [
    "import os\nos.listdir('/')",
    "import subprocess",
    "from os import path",
    "__import__('os').system('id')",
    "().__class__.__bases__[0].__subclasses__()",
    "[c for c in ().__class__.__mro__[1].__subclasses__()]",
    "pd.read_csv('/etc/passwd')",
    "df.to_csv('out.csv')",
    "df.agg('to_csv', 'out.csv')",
    "(x for x in []).gi_frame.f_back.f_globals",
    "class A: pass",
    "'{0.__class__}'.format(1)",
])
def test_escapes_are_refused_before_running(code: str) -> None:
    assert check_program(code)
    r = run_derivation(code, {"df": TABLE})
    assert not r.ok and r.error.startswith("refused"), r


def test_file_access_is_stopped() -> None:
    r = run_derivation("open('/etc/hostname').read()", {"df": TABLE})
    assert not r.ok and "open" in r.error


def test_process_layers_hold_without_the_static_check(tmp_path: Path) -> None:
    """Bypass the syntax-tree check (test-only switch): the child's own limits must still stop escapes."""
    target = tmp_path / "pwned"
    os.chmod(tmp_path, 0o777)
    escape = ("w = [k for k in ().__class__.__bases__[0].__subclasses__() if k.__name__ == '_wrap_close'][0]\n"
              f"w.__init__.__globals__['sys'].modules['posix'].system('echo x > {target}')")
    r = run_derivation(escape, {}, static_check=False)
    assert not target.exists(), r
    reader = ("w = [k for k in ().__class__.__bases__[0].__subclasses__() if k.__name__ == '_wrap_close'][0]\n"
              "w.__init__.__globals__['sys'].modules['_io'].FileIO('/etc/hostname').read()")
    r = run_derivation(reader, {}, static_check=False)
    assert not r.ok and ("Too many open files" in r.error or "Permission" in r.error), r
    r = run_derivation("__import__('os')", {}, static_check=False)
    assert not r.ok and "not allowed" in r.error


def test_program_errors_are_reported_not_raised() -> None:
    r = run_derivation("df['missing'].sum()", {"df": TABLE})
    assert not r.ok and "KeyError" in r.error
    r = run_derivation("x = 1", {"df": TABLE})
    assert not r.ok and "answer" in r.error
    r = run_derivation("def f(:", {"df": TABLE})
    assert not r.ok and "syntax" in r.error
