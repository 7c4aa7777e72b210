"""The command contract in ARCHITECTURE.md: `livetab --help` lists every subcommand, and each one's own
help works (the installed entry point, as a user runs it)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

CONTRACT = ["run", "scrape", "generate", "infer", "judge", "report", "serve", "submit", "release", "calibrate", "score",
            "list", "dlq", "replay", "review", "eval", "team", "member", "token", "cancel"]
LIVETAB = Path(sys.executable).parent / "livetab"


def test_help_lists_every_subcommand() -> None:
    out = subprocess.run([str(LIVETAB), "--help"], capture_output=True, text=True, check=True).stdout
    listed = out.split("positional arguments:")[1]
    for name in CONTRACT:
        assert re.search(rf"\n    {name}\s", listed), f"`livetab --help` does not list {name}"  # long names wrap
    assert "not built" not in out


@pytest.mark.parametrize("name", CONTRACT)
def test_each_subcommand_has_help(name: str) -> None:
    proc = subprocess.run([str(LIVETAB), name, "--help"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert f"usage: livetab {name}" in proc.stdout


def test_stage_commands_on_a_bad_config_say_so(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("qagen: {per_tabel: 2}\n")
    for name in ("generate", "infer", "judge"):
        proc = subprocess.run([str(LIVETAB), name, "--config", str(bad)], capture_output=True, text=True)
        assert proc.returncode == 2 and "per_tabel" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
