"""`livetab list families|formats|releases|models`: what there is to evaluate, read from its one definition.

Families are the question families (`livetab.questions.FAMILIES`), formats the prompt formats the inference
service renders tables in (`livetab_inference.prompts.FORMATS`), releases what the configured store holds
and models what the configuration names."""

from __future__ import annotations

from typing import Any

from livetab.settings import Settings

__all__ = ["KINDS", "list_rows"]

KINDS = ("families", "formats", "releases", "models")


def list_rows(kind: str, settings: Settings) -> list[dict[str, Any]]:
    """One dict per item of `kind`."""
    if kind == "families":
        from livetab.questions import FAMILIES

        return [{"name": f} for f in FAMILIES]
    if kind == "formats":
        from livetab_inference.prompts import FORMATS

        return [{"name": f} for f in FORMATS]
    if kind == "releases":
        from livetab.store import open_store, schema

        store = open_store(settings.store.url)
        try:
            questions = store.count_by(schema.questions, "release")
            tables = store.count_by(schema.tables, "release")
        finally:
            store.close()
        return [{"name": r, "questions": questions.get(r, 0), "tables": tables.get(r, 0)}
                for r in sorted(set(questions) | set(tables))]
    if kind == "models":
        return [{"name": m.name, "backend": m.backend, "model": m.model or m.name} for m in settings.models]
    raise ValueError(f"unknown kind {kind!r}; one of {', '.join(KINDS)}")
