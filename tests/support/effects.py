"""A table of effects for delivery tests (not part of livetab's schema): a test handler upserts one row per
record it handles, so a test can count what was done once, twice or never. Created on demand in the test's
store."""

from __future__ import annotations

from livetab.store import Store
from sqlalchemy import Column, MetaData, String, Table, Text

__all__ = ["effects", "with_effects"]

_metadata = MetaData()
effects = Table(
    "test_effects", _metadata,
    Column("id", String(200), primary_key=True),
    Column("kind", String(64), nullable=False),
    Column("value", Text, nullable=False),
)


def with_effects(store: Store) -> Store:
    """`store` with the effects table created (idempotent)."""
    _metadata.create_all(store.engine)
    return store
