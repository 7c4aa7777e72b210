"""A store whose reads are each made once: for a caller that knows the rows it reads do not change meanwhile.

An evaluation's files are written after its last answer is judged: the leaderboard's facts, its per-answer
records and the per-sample log each read the same judgments, results and questions. Through `ReadOnce` the
three read them once (~0.1 s of the 2,000-question eval benchmark's tail); `prefetch` reads ahead, while
requests are in flight, what does not depend on the answers (a frozen release's questions).

`select` answers a repeated query from memory and files its rows by primary key; `get_many` and `get` ask the
database only for the keys no earlier read has seen. `memo` keeps a value a caller computes from a frozen
release's rows (the release's manifest hash), for the releases `prefetch_release` found frozen. The lists
returned are the caller's own (the row dicts are shared: treat them as read-only). Every other attribute is the
store's own; a write through this object goes to the store but does not refresh what was read (use it only where
nothing is written meanwhile).

Tables named `unkept` are read through to the store every time and none of their rows is kept: the judgments and
results of a large run (the reporter service's files of a 100,000-answer run held ~0.3 GB of them). Each pass over
them then reads the store again, a chunk at a time (`stream`). What a stream of one named `digested` leaves behind
is a digest of each row's payload by key (`streamed`), so a caller still knows which rows its files were made of; a
row that a later stream of the same query saw otherwise (changed, or new) is marked `CHANGED`. Nothing is left by the
others' streams (a run's results: nobody asks which of them files hold).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from sqlalchemy import Table

__all__ = ["CHANGED", "ReadOnce", "payload_digest"]

T = TypeVar("T")
Query = tuple[str, tuple[tuple[str, Any], ...]]
CHANGED = b""  # `streamed`'s digest of a row two streams of one query saw differently: no payload's digest


def payload_digest(payload: bytes) -> bytes:
    """A row's stored payload in 16 bytes (any change to it gives another digest)."""
    return hashlib.blake2b(payload, digest_size=16).digest()


def _query(table: Table, where: dict[str, Any]) -> Query:
    return table.name, tuple(sorted(where.items()))


class ReadOnce:
    """`store`'s reads, each made once (see the module docstring)."""

    def __init__(self, store: Any, *, unkept: Iterable[Table] = (), digested: Iterable[Table] = ()) -> None:
        self.store = store
        self.unkept = frozenset(t.name for t in unkept)  # read through every time, never kept
        self.digested = frozenset(t.name for t in digested)  # of those, the ones whose streams leave digests
        self._streamed: dict[Query, dict[str, bytes]] = {}  # of a stream of an unkept table: key -> payload digest
        self._selects: dict[Query, list[dict[str, Any]]] = {}
        self._rows: dict[str, dict[str, dict[str, Any] | None]] = {}  # table -> key -> row (None: not stored)
        self.frozen: set[str] = set()  # releases found frozen by `prefetch_release`: their questions do not change
        self._memo: dict[tuple[str, str], Any] = {}  # (what, frozen release) -> value computed from its rows

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    @staticmethod
    def _key_column(table: Table) -> str | None:
        cols = list(table.primary_key.columns)
        return cols[0].name if len(cols) == 1 else None

    def select(self, table: Table, **where: Any) -> list[dict[str, Any]]:
        if table.name in self.unkept:
            return self.store.select(table, **where)  # type: ignore[no-any-return]
        query = _query(table, where)
        rows = self._selects.get(query)
        if rows is None:
            rows = self._selects[query] = self.store.select(table, **where)
            key = self._key_column(table)
            if key is not None:
                known = self._rows.setdefault(table.name, {})
                for row in rows:
                    known[row[key]] = row
        return list(rows)

    def stream(self, table: Table, columns: Sequence[str], *, chunk: int = 2000, order_by: Sequence[str] = (),
               **where: Any) -> Iterator[dict[str, Any]]:
        """`select`'s rows, read once and kept like them (each with every column, `columns` among them), sorted by
        `order_by`'s columns: the files of one write read the same rows more than once. For an unkept table, the
        store's stream, read anew, whose rows leave their payload's digest (`streamed`: which rows the files were
        made of) once it has been read to the end."""
        if table.name in self.unkept:
            return self._through(table, columns, chunk, order_by, where)
        rows = self.select(table, **where)
        if order_by:
            rows.sort(key=lambda row: tuple(row[c] for c in order_by))
        return iter(rows)

    def _through(self, table: Table, columns: Sequence[str], chunk: int, order_by: Sequence[str],
                 where: dict[str, Any]) -> Iterator[dict[str, Any]]:
        key = self._key_column(table)
        digests = table.name in self.digested and key is not None and key in columns and "payload" in columns
        seen: dict[str, bytes] = {}
        for row in self.store.stream(table, columns, chunk=chunk, order_by=order_by, **where):
            if digests:
                seen[row[key]] = payload_digest(row["payload"])
            yield row
        if not digests:
            return
        query = _query(table, where)
        earlier = self._streamed.get(query)
        if earlier is None:
            self._streamed[query] = seen
            return
        for k, digest in seen.items():  # the files may hold either reading of these: they are known by neither
            if earlier.get(k) != digest:
                earlier[k] = CHANGED

    def streamed(self, table: Table, **where: Any) -> dict[str, bytes] | None:
        """Of a digested table: the digest (`payload_digest`) of each row, by key, that the streams with these
        arguments read to the end gave (`CHANGED` for one they gave differently); None when none was read to the end."""
        seen = self._streamed.get(_query(table, where))
        return None if seen is None else dict(seen)

    def distinct(self, table: Table, column: str, **where: Any) -> list[Any]:
        """The distinct values of `column` over `select`'s rows: from those read earlier, else from the store."""
        rows = self._selects.get(_query(table, where))
        if rows is None:
            return self.store.distinct(table, column, **where)  # type: ignore[no-any-return]
        return list(dict.fromkeys(row[column] for row in rows))

    def payloads(self, table: Table, **where: Any) -> list[bytes]:
        """The payloads of `select`'s rows: from a `select` made earlier when there is one, else the payload
        column alone from the store (not kept: a later `select` reads the rows whole)."""
        rows = self._selects.get(_query(table, where))
        if rows is not None:
            return [row["payload"] for row in rows]
        return self.store.payloads(table, **where)  # type: ignore[no-any-return]

    def get_many(self, table: Table, keys: Iterable[str], chunk: int = 500) -> dict[str, dict[str, Any]]:
        if table.name in self.unkept:
            return self.store.get_many(table, keys, chunk)  # type: ignore[no-any-return]
        keys = list(dict.fromkeys(keys))
        known = self._rows.setdefault(table.name, {})
        missing = [k for k in keys if k not in known]
        if missing:
            found = self.store.get_many(table, missing, chunk)
            for k in missing:
                known[k] = found.get(k)
        out = {}
        for k in keys:
            row = known[k]
            if row is not None:
                out[k] = row
        return out

    def get(self, table: Table, key: str) -> dict[str, Any] | None:
        return self.get_many(table, [key]).get(key)

    def known(self, table: Table) -> list[dict[str, Any]]:
        """Every stored row of `table` read so far (by `select`, `get_many`, `get` or `prefetch_release`)."""
        return [row for row in self._rows.get(table.name, {}).values() if row is not None]

    def memo(self, what: str, release: str, compute: Callable[[], T]) -> T:
        """`compute()`, kept under (`what`, `release`) when the release is frozen (computed anew otherwise): for
        a value that depends only on a frozen release's questions and tables."""
        if release not in self.frozen:
            return compute()
        key = (what, release)
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]  # type: ignore[no-any-return]

    def adopt(self, other: ReadOnce, tables: Iterable[Table]) -> None:
        """Take what `other` read of these tables by key (rows known not to have changed since), and what it
        knows of frozen releases (which they are, the values kept for them)."""
        for table in tables:
            self._rows.setdefault(table.name, {}).update(other._rows.get(table.name, {}))
        self.frozen |= other.frozen
        self._memo.update(other._memo)

    def prefetch_release(self, release: str) -> int:
        """Read a frozen release's questions and their tables ahead (the rows an evaluation's report reads
        whatever the answers); how many questions. Nothing for a release that is not frozen."""
        from livetab.releases import frozen_questions
        from livetab.store import schema

        members = frozen_questions(self.store, release)
        if members:
            self.frozen.add(release)
        questions = self.get_many(schema.questions, members)
        self.get_many(schema.tables, sorted({r["table_id"] for r in questions.values() if r.get("table_id")}))
        return len(questions)
