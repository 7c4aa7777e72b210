"""Prompts per model: chat messages, or a completion prompt with worked examples from the release.

A model spec's params `prompt_mode` (chat|completion) and `shots` choose (settings: `ModelSettings`).
For completion mode the release's verified questions and their tables are read once per process and
release, put in the release's fixed example order (`prompts.example_order`), and each target gets the
first `shots` examples of its task about other tables (`prompts.pick_examples`).
"""

from __future__ import annotations

import logging
import threading

from livetab.questions import Question
from livetab.records import load_question, load_table
from livetab.render import Rendering, render
from livetab.store import schema
from livetab.store.store import Store
from livetab.tables import Table
from livetab.v1 import common_pb2

from livetab_inference.prompts import (
    PROMPT_MODES,
    Prompt,
    build_completion,
    build_messages,
    example_order,
    pick_examples,
)

__all__ = ["PromptBuilder", "prompt_options"]

log = logging.getLogger(__name__)
MAX_RENDERINGS = 256  # kept renderings (a poll's tables in its formats); all dropped when full


def prompt_options(model: common_pb2.ModelSpec) -> tuple[str, int]:
    """(mode, shots) from a model spec's params; `ValueError` naming a bad value."""
    mode = model.params.get("prompt_mode", "chat") or "chat"
    if mode not in PROMPT_MODES:
        raise ValueError(f"model {model.name}: prompt_mode must be one of {', '.join(PROMPT_MODES)}, got {mode!r}")
    raw = model.params.get("shots", "0") or "0"
    try:
        shots = int(raw)
    except ValueError:
        raise ValueError(f"model {model.name}: shots must be a whole number, got {raw!r}") from None
    if shots < 0:
        raise ValueError(f"model {model.name}: shots must not be negative")
    return mode, shots


class PromptBuilder:
    """Builds each request's prompt; keeps each release's example order for the life of the process."""

    def __init__(self) -> None:
        self._orders: dict[str, tuple[list[Question], dict[str, Table]]] = {}
        self._lock = threading.Lock()
        # Renderings by table object: the requests of a poll share their parsed tables (one object per
        # table id), so a table is rendered (and its tokens counted) once per poll, not once per request.
        self._renderings: dict[tuple[int, str, int | None], tuple[Table, Rendering]] = {}

    def _render(self, table: Table, fmt: str, *, max_rows: int | None = None) -> Rendering:
        key = (id(table), fmt, max_rows)
        hit = self._renderings.get(key)
        if hit is not None and hit[0] is table:  # the entry holds its table, so its id cannot be reused
            return hit[1]
        if len(self._renderings) >= MAX_RENDERINGS:
            self._renderings.clear()
        rendering = render(table, fmt, max_rows=max_rows)
        self._renderings[key] = (table, rendering)
        return rendering

    def _release(self, store: Store, release: str) -> tuple[list[Question], dict[str, Table]]:
        with self._lock:
            if release not in self._orders:
                questions = [q for q in (load_question(r) for r in store.select(schema.questions, release=release))
                             if q is not None and q.status == "verified"]
                tables = {k: t for k, row in store.get_many(schema.tables, {q.table_id for q in questions}).items()
                          if (t := load_table(row)) is not None}
                self._orders[release] = (example_order(questions, tables, release), tables)
                log.info("release %s: %d worked-example candidates", release, len(self._orders[release][0]))
            return self._orders[release]

    def build(self, question: Question, table: Table | None, *, model: common_pb2.ModelSpec, fmt: str,
              setting: str, max_rows: int, store: Store) -> Prompt:
        mode, shots = prompt_options(model)
        if mode == "chat":
            return build_messages(question, table, fmt=fmt, setting=setting, max_rows=max_rows, renderer=self._render)
        if setting != "with_table" or table is None:
            raise ValueError("the completion prompt mode needs the with_table setting and the question's table")
        examples: list[tuple[Question, Table]] = []
        if shots:
            order, tables = self._release(store, question.release)
            examples = [(q, tables[q.table_id]) for q in pick_examples(order, question, shots)]
        return build_completion(question, table, examples, fmt=fmt, max_rows=max_rows)
