"""A real SQLite store per test, migrated as the services open it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from livetab.store import open_store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Any]:
    s = open_store("sqlite:///" + str(tmp_path / "s.db"))
    yield s
    s.close()
