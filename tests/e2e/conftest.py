"""The e2e test gets a Kafka broker of its own.

The session broker keeps whatever other tests wrote to the registry's topics, and the six services
join with fresh consumer groups that start from the earliest offset, so they would process those
records too (a stray inference request from the bus tests became an extra answer in the store).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.deploy import deploy_down, deploy_up

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def e2e_kafka() -> Iterator[str]:
    state = ROOT / ".state" / f"test-{os.getpid()}" / "kafka-e2e"
    try:
        yield deploy_up("kafka.sh", state)
    finally:
        deploy_down("kafka.sh", state)
