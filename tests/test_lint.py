"""`make lint` as a test, so CI holds every package to it: ruff, and mypy --strict over shared/, each
service and the CLI (pyproject.toml's [tool.mypy])."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def test_ruff() -> None:
    done = subprocess.run([str(BIN / "ruff"), "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:]


@pytest.mark.slow
def test_mypy_strict_on_every_package() -> None:
    packages = ["shared/livetab", *sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("services/*/livetab_*")),
                "cli/livetab_cli"]
    assert len(packages) == 8
    done = subprocess.run([sys.executable, "-m", "mypy", *packages], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:]
    assert "Success: no issues found" in done.stdout
