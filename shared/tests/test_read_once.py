"""`ReadOnce`: each of a store's reads made once, and only the keys no earlier read has seen asked again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from livetab.records import question_row, table_row
from livetab.store import open_store, schema
from livetab.store.read_once import ReadOnce
from livetab.v1 import question_pb2, table_pb2


class Counting:
    """A store that counts the reads it is asked for."""

    def __init__(self, store: Any) -> None:
        self.store, self.selects, self.keys = store, 0, []

    def select(self, table: Any, **where: Any) -> list[dict[str, Any]]:
        self.selects += 1
        return self.store.select(table, **where)  # type: ignore[no-any-return]

    def get_many(self, table: Any, keys: Any, chunk: int = 500) -> dict[str, dict[str, Any]]:
        keys = list(keys)
        self.keys += keys
        return self.store.get_many(table, keys, chunk)  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


def _store(tmp_path: Path) -> Any:
    store = open_store(f"sqlite:///{tmp_path / 'db.sqlite'}")
    store.upsert(schema.tables, [table_row(table_pb2.Table(id="t1", release="r"))])
    store.upsert(schema.questions, [question_row(question_pb2.Question(id=f"q{i}", table_id="t1", release="r",
                                                                       status="verified")) for i in range(3)])
    return store


def test_a_repeated_select_is_answered_from_memory_and_its_rows_serve_later_lookups(tmp_path: Path) -> None:
    store = Counting(_store(tmp_path))
    reads = ReadOnce(store)
    first = reads.select(schema.questions, release="r")
    first.clear()  # the caller's own list: clearing it changes nothing for the next reader
    again = reads.select(schema.questions, release="r")
    assert sorted(r["id"] for r in again) == ["q0", "q1", "q2"] and store.selects == 1
    assert set(reads.get_many(schema.questions, ["q2", "q0"])) == {"q0", "q2"} and store.keys == []
    assert reads.get(schema.questions, "q1")["id"] == "q1" and store.keys == []  # type: ignore[index]
    reads.select(schema.questions, release="other")  # another query is another read
    assert store.selects == 2


def test_get_many_asks_only_for_unseen_keys_and_remembers_missing_ones(tmp_path: Path) -> None:
    store = Counting(_store(tmp_path))
    reads = ReadOnce(store)
    assert set(reads.get_many(schema.questions, ["q0", "nope"])) == {"q0"}
    assert set(reads.get_many(schema.questions, ["q0", "q1", "nope"])) == {"q0", "q1"}
    assert store.keys == ["q0", "nope", "q1"]  # "nope" was not asked again


def test_prefetch_reads_a_frozen_release_and_adopt_hands_its_rows_on(tmp_path: Path) -> None:
    from livetab.releases import create_draft, freeze, verified_questions

    base = _store(tmp_path)
    create_draft(base, "r", "2026-12-01T00:00:00")
    assert freeze(base, "r", verified_questions(base, "r"), "2026-12-01T00:00:01", "c1", "test")
    store = Counting(base)
    first = ReadOnce(store)
    assert first.prefetch_release("r") == 3
    asked = len(store.keys)
    second = ReadOnce(store)
    second.adopt(first, (schema.questions, schema.tables))
    assert set(second.get_many(schema.questions, ["q0", "q1", "q2"])) == {"q0", "q1", "q2"}
    assert second.get(schema.tables, "t1") is not None and len(store.keys) == asked
    assert ReadOnce(store).prefetch_release("draft") == 0  # not frozen: nothing
    assert sorted(r["id"] for r in first.known(schema.questions)) == ["q0", "q1", "q2"]
    assert [r["id"] for r in first.known(schema.tables)] == ["t1"]


def test_known_gives_the_stored_rows_read_so_far_not_the_missing_keys(tmp_path: Path) -> None:
    reads = ReadOnce(_store(tmp_path))
    assert reads.known(schema.questions) == []
    reads.get_many(schema.questions, ["q1", "nope"])
    assert [r["id"] for r in reads.known(schema.questions)] == ["q1"]


def test_memo_keeps_a_frozen_releases_value_and_adopt_hands_it_on(tmp_path: Path) -> None:
    from livetab.releases import create_draft, freeze, verified_questions

    base = _store(tmp_path)
    create_draft(base, "r", "2026-12-01T00:00:00")
    assert freeze(base, "r", verified_questions(base, "r"), "2026-12-01T00:00:01", "c1", "test")
    calls: list[str] = []

    def compute(value: str) -> str:
        calls.append(value)
        return value

    reads = ReadOnce(base)
    assert reads.memo("hash", "r", lambda: compute("a")) == "a"  # not known frozen yet: computed, not kept
    assert reads.memo("hash", "r", lambda: compute("b")) == "b" and calls == ["a", "b"]
    reads.prefetch_release("r")
    assert reads.memo("hash", "r", lambda: compute("c")) == "c"
    assert reads.memo("hash", "r", lambda: compute("d")) == "c" and calls == ["a", "b", "c"]  # kept
    assert reads.memo("other", "r", lambda: compute("e")) == "e"  # another value is another key
    later = ReadOnce(base)
    later.adopt(reads, (schema.questions,))
    assert later.memo("hash", "r", lambda: compute("f")) == "c" and "f" not in calls
    draft = ReadOnce(base)
    draft.prefetch_release("draft")  # not frozen: nothing kept for it
    assert draft.memo("hash", "draft", lambda: compute("g")) == "g"
    assert draft.memo("hash", "draft", lambda: compute("h")) == "h"


def test_payloads_come_from_an_earlier_select_or_the_payload_column_alone(tmp_path: Path) -> None:
    """`payloads` gives what `select` would, payload by payload: the payload column alone from the store when
    nothing was read (kept nowhere), and from the rows of the same query selected before (no query then)."""
    store = open_store(f"sqlite:///{tmp_path / 'p.db'}")
    qs = [question_pb2.Question(id=f"q{i}", table_id="t", family="direct" if i % 2 else "lookup", text=f"{i}?",
                                status="verified", release="r") for i in range(6)]
    store.upsert(schema.questions, [question_row(q) for q in qs])
    want = sorted(q.SerializeToString() for q in qs if q.family == "direct")
    assert sorted(store.payloads(schema.questions, family="direct")) == want
    counting = Counting(store)
    counted = {"payloads": 0}

    def payloads(table: Any, **where: Any) -> list[bytes]:
        counted["payloads"] += 1
        return store.payloads(table, **where)  # type: ignore[no-any-return]

    counting.payloads = payloads  # type: ignore[attr-defined]
    reads = ReadOnce(counting)
    assert sorted(reads.payloads(schema.questions, family="direct")) == want
    assert counted["payloads"] == 1 and reads.known(schema.questions) == []  # nothing kept from it
    reads.select(schema.questions, family="direct")
    assert sorted(reads.payloads(schema.questions, family="direct")) == want
    assert sorted(reads.payloads(schema.questions, family="lookup")) != want
    assert counting.selects == 1 and counted["payloads"] == 2  # the selected query answered from its rows


def test_stream_is_select_read_once_and_distinct_comes_from_it(tmp_path: Path) -> None:
    """Through `ReadOnce` a stream is the kept `select` (every column), and `distinct` is answered from what was
    read when it was, else from the store."""
    counting = Counting(_store(tmp_path))
    reads = ReadOnce(counting)
    assert sorted(reads.distinct(schema.questions, "id", release="r")) == ["q0", "q1", "q2"]  # from the store
    assert counting.selects == 0
    rows = list(reads.stream(schema.questions, ("id",), release="r"))
    assert sorted(r["id"] for r in rows) == ["q0", "q1", "q2"] and all("payload" in r for r in rows)
    assert list(reads.stream(schema.questions, ("id",), release="r")) == rows and counting.selects == 1
    assert sorted(reads.distinct(schema.questions, "table_id", release="r")) == ["t1"]
    assert counting.selects == 1


def _judgments(store: Any, versions: dict[str, bytes]) -> None:
    store.upsert(schema.judgments, [{"id": k, "request_id": "r" + k, "run_id": "run", "question_id": "q" + k[-1],
                                     "model": "m", "judge": "rule", "family": "lookup", "verdict": "correct",
                                     "score": 1.0, "payload": payload} for k, payload in versions.items()])


def test_an_unkept_table_is_read_through_every_time_and_leaves_only_its_rows_digests(tmp_path: Path) -> None:
    from livetab.store.read_once import CHANGED, payload_digest

    store = Counting(_store(tmp_path))
    _judgments(store, {"j1": b"one", "j2": b"two"})
    reads = ReadOnce(store, unkept=(schema.judgments,), digested=(schema.judgments,))
    columns = ("id", "question_id", "payload")
    assert reads.streamed(schema.judgments, run_id="run") is None  # nothing read yet
    partial = reads.stream(schema.judgments, columns, run_id="run")
    next(partial)
    partial.close()  # not read to the end: it says nothing of what files hold
    assert reads.streamed(schema.judgments, run_id="run") is None
    rows = list(reads.stream(schema.judgments, columns, order_by=("question_id",), run_id="run"))
    assert [r["id"] for r in rows] == ["j1", "j2"]
    assert reads.streamed(schema.judgments, run_id="run") == {"j1": payload_digest(b"one"), "j2": payload_digest(b"two")}
    # nothing of it is kept: every read goes to the store
    assert reads.known(schema.judgments) == []
    reads.select(schema.judgments, run_id="run")
    reads.select(schema.judgments, run_id="run")
    assert store.selects == 2
    reads.get_many(schema.judgments, ["j1"])
    reads.get_many(schema.judgments, ["j1"])
    assert store.keys == ["j1", "j1"]
    # a second reading that sees a row otherwise (changed, or new) marks it: files made of both hold neither for sure
    _judgments(store, {"j2": b"two, judged again", "j3": b"three"})
    assert len(list(reads.stream(schema.judgments, columns, run_id="run"))) == 3
    assert reads.streamed(schema.judgments, run_id="run") == {"j1": payload_digest(b"one"), "j2": CHANGED,
                                                              "j3": CHANGED}
    # an unkept table that is not digested leaves nothing behind its streams
    plain = ReadOnce(store, unkept=(schema.judgments,))
    assert len(list(plain.stream(schema.judgments, columns, run_id="run"))) == 3
    assert plain.streamed(schema.judgments, run_id="run") is None
    # a kept table's stream is its kept select, sorted as asked
    kept = ReadOnce(store)
    assert [r["id"] for r in kept.stream(schema.questions, ("id",), order_by=("id",), release="r")] == ["q0", "q1", "q2"]
    assert kept.streamed(schema.questions, release="r") is None
