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
