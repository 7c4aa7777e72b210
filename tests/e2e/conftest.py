"""The e2e test gets a Kafka broker of its own.

The session broker keeps whatever other tests wrote to the registry's topics, and the six services
join with fresh consumer groups that start from the earliest offset, so they would process those
records too (a stray inference request from the bus tests became an extra answer in the store).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def e2e_kafka() -> Iterator[str]:
    state = ROOT / ".state" / f"test-{os.getpid()}" / "kafka-e2e"
    script = str(ROOT / "deploy" / "kafka.sh")
    try:
        out = subprocess.run([script, "up", str(state)], check=True, capture_output=True, text=True, timeout=600)
        yield out.stdout.strip().splitlines()[-1]
    finally:
        subprocess.run([script, "down", str(state)], check=False, timeout=60)
