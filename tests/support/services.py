"""Service processes of the e2e tests: stopped the way an orchestrator stops them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from livetab.topics import SERVICES


def stop_services(procs: dict[str, subprocess.Popen[Any]], logs: dict[str, IO[str]], wait_s: float = 30) -> None:
    """SIGTERM every process (each drains and exits), wait up to `wait_s` for each, kill what is left; close
    the log files."""
    for p in procs.values():
        p.send_signal(signal.SIGTERM)
    for p in procs.values():
        try:
            p.wait(wait_s)
        except subprocess.TimeoutExpired:
            p.kill()
    for f in logs.values():
        f.close()


def start_services(cfg: Path, folder: Path, port: int, procs: dict[str, subprocess.Popen[Any]],
                   logs: dict[str, IO[str]], services: Iterable[str] = SERVICES) -> None:
    """Start each service as its own process through the runtime's entry point (`python -m livetab_<svc>`),
    its output in `folder/<svc>.log`, the api on `port`; fills `procs` and `logs` as it goes, so a caller's
    `finally: stop_services(procs, logs)` also stops a partial start."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    for svc in services:
        logs[svc] = open(folder / f"{svc}.log", "w")
        cmd = [sys.executable, "-m", f"livetab_{svc}", "--config", str(cfg)]
        if svc == "api":
            cmd += ["--port", str(port)]
        procs[svc] = subprocess.Popen(cmd, env=env, stdout=logs[svc], stderr=subprocess.STDOUT)
