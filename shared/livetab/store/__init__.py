"""Relational store (SQLAlchemy 2 + Alembic) for SQLite and PostgreSQL."""

from livetab.store import schema
from livetab.store.store import Store, StoreError, open_store

__all__ = ["Store", "StoreError", "open_store", "schema"]
