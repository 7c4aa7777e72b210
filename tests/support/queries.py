"""Counting the SQL a store sends, to show that reads are batched."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event

__all__ = ["statements"]


@contextmanager
def statements(store: Any, kind: str = "") -> Iterator[list[str]]:
    """The SQL statements `store` sends while the block runs (only those starting with `kind`, e.g. "SELECT")."""
    seen: list[str] = []

    def listen(conn: Any, cursor: Any, statement: str, *rest: Any) -> None:
        if statement.lstrip().upper().startswith(kind.upper()):
            seen.append(statement)

    event.listen(store.engine, "before_cursor_execute", listen)
    try:
        yield seen
    finally:
        event.remove(store.engine, "before_cursor_execute", listen)
