"""An unreachable broker is one clear line, not a page of Kafka client errors (issue 16: "an unreachable
broker prints 22 lines of client errors before the one clear line"): a service started against a closed
port names the address on one line and exits 2 at once."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import yaml


def test_a_service_with_no_broker_says_so_in_one_line_and_exits(tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(yaml.safe_dump({"store": {"url": f"sqlite:///{tmp_path / 'x.db'}"},
                                   "kafka": {"bootstrap_servers": f"127.0.0.1:{port}"}}))
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "livetab_judge", "--config", str(cfg)], capture_output=True, text=True,
                       timeout=120, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    lines = [line for line in (p.stdout + p.stderr).splitlines() if line.strip()]
    assert p.returncode == 2, p.stdout + p.stderr
    assert len(lines) == 1, lines
    assert f"127.0.0.1:{port}" in lines[0]
    assert time.monotonic() - t0 < 30
