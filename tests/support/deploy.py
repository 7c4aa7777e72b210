"""Run one of deploy/'s start scripts (kafka.sh, postgres.sh) for a test and return the address it prints.

A failure raises with the script's own explanation (its stderr), which subprocess's CalledProcessError
leaves out of pytest's report: a CI run that could not start its broker must say why.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def deploy_up(name: str, state: Path | str) -> str:
    """`deploy/<name> up <state>`; the last line it prints (host:port or a URL)."""
    out = subprocess.run([str(ROOT / "deploy" / name), "up", str(state)], capture_output=True, text=True,
                         timeout=600, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"deploy/{name} up {state} exited {out.returncode}:\n{out.stderr[-4000:]}")
    return out.stdout.strip().splitlines()[-1]


def deploy_down(name: str, state: Path | str) -> None:
    subprocess.run([str(ROOT / "deploy" / name), "down", str(state)], check=False, timeout=60)
