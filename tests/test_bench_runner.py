"""`python -m bench [NAME ...]`: the runner picks modules by name and never hands them its own arguments."""

from __future__ import annotations

import sys
import types

import pytest

import bench.__main__ as runner


def test_named_benchmarks_run_without_the_runners_arguments(monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[object] = []
    fake = types.ModuleType("bench.fake")
    fake.main = lambda argv=None: seen.append(argv)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bench.fake", fake)
    monkeypatch.setattr(sys, "argv", ["bench", "fake", "nosuch"])
    assert runner.main() == 0
    assert seen == [[]]
    out = capsys.readouterr().out
    assert "== bench fake" in out and "bench: nosuch has no benchmark yet" in out


def test_a_failing_benchmark_fails_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = types.ModuleType("bench.broken")

    def main(argv: list[str] | None = None) -> None:
        raise RuntimeError("broker gone")

    broken.main = main  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bench.broken", broken)
    monkeypatch.setattr(sys, "argv", ["bench", "broken"])
    assert runner.main() == 1


def test_make_bench_runs_each_benchmark_in_a_process_of_its_own(monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """With no names, each existing benchmark is `python -m bench NAME` in a new process (one's heap and imports do
    not reach the next); one that fails fails the run, the others still run."""
    calls: list[list[str]] = []

    class Done:
        def __init__(self, code: int) -> None:
            self.returncode = code

    def fake_run(cmd: list[str], check: bool = False) -> Done:
        calls.append(cmd)
        return Done(1 if cmd[-1] == "judge" else 0)

    monkeypatch.setattr(runner.subprocess, "run", fake_run)
    monkeypatch.setattr(runner, "MODULES", ["bus", "judge", "nosuch", "eval"])
    monkeypatch.setattr(sys, "argv", ["bench"])
    assert runner.main() == 1
    assert calls == [[sys.executable, "-m", "bench", name] for name in ("bus", "judge", "eval")]
    captured = capsys.readouterr()
    assert "bench: nosuch has no benchmark yet" in captured.out and "bench: failed: judge" in captured.err
