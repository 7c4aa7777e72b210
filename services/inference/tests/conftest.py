"""Fixtures for the inference tests: the fault-injecting OpenAI-compatible server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.fault_server import ThreadedFaultServer


@pytest.fixture(scope="module")
def fault_server() -> Iterator[ThreadedFaultServer]:
    with ThreadedFaultServer() as server:
        yield server
