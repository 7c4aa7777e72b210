from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from livetab.store import StoreError, open_store, schema
from livetab.store.store import COPY_MIN_ROWS, MIGRATIONS, head_revision
from sqlalchemy import create_engine
from sqlalchemy.exc import IntegrityError

from tests.support.effects import effects, with_effects


def test_upsert_is_idempotent(store_url: str) -> None:
    store = with_effects(open_store(store_url))
    rows = [{"id": f"e{i}", "kind": "k", "value": str(i)} for i in range(50)]
    store.upsert(effects, rows)
    store.upsert(effects, rows)  # a redelivery changes nothing
    assert store.count(effects) == 50
    store.upsert(effects, [{"id": "e3", "kind": "k", "value": "changed"}])
    assert store.get(effects, "e3")["value"] == "changed"
    assert store.count(effects) == 50
    store.insert_new(effects, [{"id": "e3", "kind": "k", "value": "ignored"}])
    assert store.get(effects, "e3")["value"] == "changed"
    assert store.ids(effects, ["e1", "zz"]) == {"e1"}
    assert store.ids(effects, [f"e{i}" for i in range(60)], chunk=7) == {f"e{i}" for i in range(50)}
    assert store.ids(effects, []) == set()
    many = store.get_many(effects, ["e3", "zz", "e7", "e3"], chunk=2)  # several chunks, a repeat
    assert sorted(many) == ["e3", "e7"] and many["e3"]["value"] == "changed" and many["e7"]["value"] == "7"
    assert store.get_many(effects, []) == {}
    store.close()


def test_stream_reads_a_result_a_chunk_at_a_time_with_the_columns_asked(store_url: str) -> None:
    store = with_effects(open_store(store_url))
    store.upsert(effects, [{"id": f"e{i:03d}", "kind": "even" if i % 2 == 0 else "odd", "value": str(i)}
                           for i in range(25)])
    rows = list(store.stream(effects, ("id", "value"), chunk=4, kind="odd"))  # several chunks, the last short
    assert sorted(rows, key=lambda r: r["id"]) == [{"id": f"e{i:03d}", "value": str(i)} for i in range(1, 25, 2)]
    assert sorted(r["id"] for r in store.stream(effects, ("id",))) == [f"e{i:03d}" for i in range(25)]
    assert list(store.stream(effects, ("id",), kind="none")) == []
    assert sorted(store.distinct(effects, "kind")) == ["even", "odd"]
    assert store.distinct(effects, "value", kind="even", id="e004") == ["4"]
    ordered = [r["id"] for r in store.stream(effects, ("id", "kind"), chunk=4, order_by=("kind", "id"))]
    assert ordered == [f"e{i:03d}" for i in range(0, 25, 2)] + [f"e{i:03d}" for i in range(1, 25, 2)]
    store.close()


def test_get_many_finds_every_key_asked_over_several_queries(store_url: str) -> None:
    """Keys in chunks (an IN list on SQLite, one array parameter a query on PostgreSQL), duplicates and missing
    keys among them."""
    store = with_effects(open_store(store_url))
    store.upsert(effects, [{"id": f"e{i:03d}", "kind": "k", "value": str(i)} for i in range(12)])
    keys = [f"e{i:03d}" for i in range(0, 12, 2)] + ["e000", "missing", "e011"]
    found = store.get_many(effects, keys, chunk=2)
    assert sorted(found) == ["e000", "e002", "e004", "e006", "e008", "e010", "e011"]
    assert found["e011"]["value"] == "11" and found["e004"] == {"id": "e004", "kind": "k", "value": "4"}
    store.close()


def test_upsert_all_writes_every_table_in_one_transaction_or_nothing(store_url: str) -> None:
    store = with_effects(open_store(store_url))
    store.upsert_all([(effects, [{"id": "a", "kind": "k", "value": "1"}]), (effects, []),
                      (schema.response_cache, [{"key": "c1", "model": "m", "payload": b"x"}])])
    assert store.count(effects) == 1 and store.count(schema.response_cache) == 1
    with pytest.raises(IntegrityError):  # a row the second table refuses (no model): the first table's row is not kept
        store.upsert_all([(effects, [{"id": "b", "kind": "k", "value": "2"}]),
                          (schema.response_cache, [{"key": "c2", "model": None, "payload": b"y"}])])
    assert store.ids(effects, ["a", "b"]) == {"a"}
    store.close()


def _value(column: Any, i: int, version: int) -> Any:
    """A value of `column`'s type for row `i` (`version` 2: another value, for the same key)."""
    kind = type(column.type).__name__
    if column.primary_key:
        return f"k{i}"
    if kind in ("String", "Text"):
        text = f"v{version}-{i}-é\"'\\,{{}}"
        return text[: column.type.length] if getattr(column.type, "length", None) else text
    if kind == "Integer":
        return 10 * i + version
    if kind == "Float":
        return i + version if i % 2 else (i + version) / 4  # an int in a float column too
    if kind == "LargeBinary":
        raw = bytes([i, version, 0, 255]) + b"\x00,{}"
        return memoryview(raw) if i % 2 else raw
    if kind == "DateTime":
        return datetime(2026, 1, 1 + i, 12, version, tzinfo=UTC)
    raise AssertionError(f"no test value for {kind} ({column})")


def _as_read(v: Any) -> Any:
    if isinstance(v, memoryview):
        return bytes(v)
    if isinstance(v, datetime) and v.tzinfo is None:  # SQLite returns naive datetimes
        return v.replace(tzinfo=UTC)
    return v


@pytest.mark.parametrize("table", sorted(schema.metadata.tables.values(), key=lambda t: t.name), ids=lambda t: t.name)
def test_every_table_takes_every_column_type_and_the_last_of_a_key_wins(store_url: str, table: Any) -> None:
    """Each table of the schema, every column given (PostgreSQL: one statement over arrays of each column's
    type): rows written, a batch holding one key twice keeps the last (as one write after another would), a
    second batch replaces the non-key columns, and what is read back is what was written."""
    store = open_store(store_url)
    pk = [c.name for c in table.primary_key.columns]
    cols = list(table.columns)

    def row(i: int, version: int) -> dict[str, Any]:
        return {c.name: _value(c, i, version) for c in cols}

    first = [row(i, 1) for i in range(4)] + [row(1, 2)]  # key 1 twice in one batch
    store.upsert(table, first)
    second = [row(2, 3), row(5, 3)]
    store.upsert_all([(table, second)])
    expected = {tuple(r[k] for k in pk): r for r in first + second}
    got = {tuple(r[k] for k in pk): r for r in store.select(table)}
    assert sorted(got) == sorted(expected)
    for key, want in expected.items():
        assert {k: _as_read(v) for k, v in got[key].items()} == {k: _as_read(v) for k, v in want.items()}, key
    store.close()


def _plain_columns(table: Any) -> list[Any] | None:
    """The columns a service writes (no timestamp: the database sets it), or None where a timestamp has no
    default and must be given."""
    stamps = [c for c in table.columns if type(c.type).__name__ == "DateTime"]
    if any(not c.nullable and c.server_default is None for c in stamps):
        return None
    return [c for c in table.columns if c not in stamps]


def _staging_tables(store: Any) -> int:
    with store.engine.connect() as conn:  # temporary tables of every session are in the catalogue
        return int(conn.exec_driver_sql("SELECT count(*) FROM pg_class WHERE relpersistence = 't' "
                                        "AND left(relname, 6) = '_copy_'").scalar_one())


@pytest.mark.parametrize("table", sorted(schema.metadata.tables.values(), key=lambda t: t.name), ids=lambda t: t.name)
def test_large_upserts_keep_what_small_ones_keep(store_url: str, table: Any) -> None:
    """An upsert of at least `COPY_MIN_ROWS` rows of plain columns goes through COPY on PostgreSQL
    (`Store._copy_upsert`: a staging table, then one INSERT ... ON CONFLICT), and keeps what row-by-row statements
    keep: of a key given twice in one batch the last, non-key columns replaced by a later batch, the same table
    written twice in one transaction (its staging table emptied between), and a transaction that fails keeps
    nothing, after which the next large upsert on that connection (its staging table gone with the rollback)
    works."""
    columns = _plain_columns(table)
    if columns is None:
        pytest.skip(f"{table.name} has a timestamp without a default")
    store = open_store(store_url)
    pk = [c.name for c in table.primary_key.columns]
    n = COPY_MIN_ROWS + 6

    def row(i: int, version: int) -> dict[str, Any]:
        return {c.name: _value(c, i, version) for c in columns}

    def key(r: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(r[k] for k in pk)

    refused = [{"key": "c", "model": None, "payload": b"y"}]  # a row the cache refuses (no model)
    with pytest.raises(IntegrityError):  # the transaction of the connection's first large upsert fails
        store.upsert_all([(table, [row(i, 8) for i in range(n)]), (schema.response_cache, refused)])
    assert store.count(table) == 0
    first = [row(i, 1) for i in range(n)] + [row(1, 2)]  # key 1 twice in one batch
    store.upsert(table, first)
    second = [row(i, 3) for i in range(n // 2, n + n // 2)]
    third = [row(i, 4) for i in range(n, n + COPY_MIN_ROWS)]  # keys of `second` again, in the same transaction
    store.upsert_all([(table, second), (table, third)])
    expected = {key(r): r for r in first + second + third}
    got = {key(r): r for r in store.select(table)}
    assert sorted(got) == sorted(expected)
    for k, want in expected.items():
        assert {c: _as_read(got[k][c]) for c in want} == {c: _as_read(v) for c, v in want.items()}, k
    if store.dialect == "postgresql":
        assert _staging_tables(store) >= 1  # the large upserts went through COPY
    store.close()


def test_rows_of_plain_columns_go_to_the_postgres_driver_as_they_are_and_read_back_the_same(store_url: str) -> None:
    """Results and judgments as the services write them (no timestamp: the database sets it) skip SQLAlchemy's
    per-row parameter processing on PostgreSQL (`Store._driver_upsert`: the same statement, as the driver's SQL);
    a row set with a column of another type (a timestamp), and every SQLite store, go through SQLAlchemy. Either
    way an upsert replaces the non-key columns and what is read back is what was written."""
    store = open_store(store_url)
    rows = [{"id": f"j{i}", "request_id": f"r{i}", "run_id": "run", "question_id": "q", "model": "m", "judge": "rubric",
             "family": "lookup", "verdict": "correct", "score": i, "payload": bytes([i]) * 5} for i in range(3)]
    columns = tuple(rows[0])
    driver = store._driver_upsert(schema.judgments, columns)
    if store.dialect == "postgresql":
        assert driver is not None and driver.startswith("INSERT INTO judgments") and "ON CONFLICT (id)" in driver
    else:
        assert driver is None
    assert store._driver_upsert(schema.judgments, (*columns, "created_at")) is None
    store.upsert(schema.judgments, rows)
    store.upsert_all([(schema.judgments, [rows[1] | {"verdict": "incorrect", "score": 0.5}])])
    got = {r["id"]: r for r in store.select(schema.judgments, run_id="run")}
    assert sorted(got) == ["j0", "j1", "j2"]
    assert (got["j1"]["verdict"], got["j1"]["score"], bytes(got["j1"]["payload"])) == ("incorrect", 0.5, b"\x01" * 5)
    assert (got["j2"]["score"], bytes(got["j2"]["payload"])) == (2.0, b"\x02" * 5)
    store.close()


def test_reads_built_once_bind_each_calls_values_and_none_still_means_null(store_url: str) -> None:
    """`get`, `select`, `count`, `count_by`, `distinct` and `payloads` reuse one statement per table and set of
    columns (`Store._equal`): each call's values are its own (a statement that kept the first call's value would
    answer the second call with the first's rows), several columns combine, and a None value still selects
    the rows where the column IS NULL, as a statement built for that call did."""
    store = open_store(store_url)
    runs = [{"id": f"run{i}", "team": "ab"[i % 2], "model": "m", "release": "r", "planned": i,
             "payload": bytes([i]), "refused": "", "cancelled_at": 1.5 if i == 3 else None,
             "published": None if i < 2 else i} for i in range(5)]
    store.upsert(schema.runs, runs)
    for _ in range(2):  # the second time round, every statement comes from the cache
        assert store.get(schema.runs, "run1")["planned"] == 1  # type: ignore[index]
        assert store.get(schema.runs, "run4")["planned"] == 4  # type: ignore[index]
        assert store.get(schema.runs, "nope") is None
        assert sorted(r["id"] for r in store.select(schema.runs, team="a")) == ["run0", "run2", "run4"]
        assert sorted(r["id"] for r in store.select(schema.runs, team="b")) == ["run1", "run3"]
        assert [r["id"] for r in store.select(schema.runs, team="b", planned=3)] == ["run3"]
        assert store.count(schema.runs, team="a") == 3 and store.count(schema.runs, team="b") == 2
        assert store.count(schema.runs) == 5 and store.count(schema.runs, team="c") == 0
        assert store.count(schema.runs, published=None) == 2 and store.count(schema.runs, published=3) == 1
        assert store.count(schema.runs, cancelled_at=None, team="b") == 1
        assert sorted(r["id"] for r in store.select(schema.runs, published=None)) == ["run0", "run1"]
        assert store.count_by(schema.runs, "team", release="r") == {"a": 3, "b": 2}
        assert store.count_by(schema.runs, "team", team="b") == {"b": 2}
        assert sorted(store.distinct(schema.runs, "team")) == ["a", "b"]
        assert store.distinct(schema.runs, "planned", team="b", published=3) == [3]
        assert sorted(store.payloads(schema.runs, team="b")) == [b"\x01", b"\x03"]
    store.close()


def test_reads_within_reading_share_one_connection_and_see_what_is_written_meanwhile(store_url: str) -> None:
    """`Store.reading()`: this thread's reads inside it take one connection from the pool (one checkout, not one a
    read), nested blocks share the outer one, a write inside keeps its own transaction and the reads after it see
    it, and reads outside (or on another thread meanwhile) take their own connection as before."""
    import threading

    from sqlalchemy import event

    store = open_store(store_url)
    checkouts: list[int] = []
    event.listen(store.engine, "checkout", lambda *a: checkouts.append(threading.get_ident()))
    store.upsert(schema.runs, [{"id": "run0", "team": "a", "model": "m", "release": "r", "planned": 1,
                                "payload": b"", "refused": ""}])
    checkouts.clear()
    with store.reading():
        assert store.get(schema.runs, "run0")["planned"] == 1  # type: ignore[index]
        with store.reading():
            assert store.count(schema.runs, team="a") == 1
        assert [r["id"] for r in store.select(schema.runs)] == ["run0"]
        assert store.count_by(schema.runs, "team") == {"a": 1} and store.distinct(schema.runs, "team") == ["a"]
        assert store.get_many(schema.runs, ["run0", "x"]).keys() == {"run0"}
        assert len(checkouts) == 1
        other: list[int] = []
        t = threading.Thread(target=lambda: other.append(store.count(schema.runs)))
        t.start()
        t.join()
        assert other == [1] and len(checkouts) == 2  # another thread: a connection of its own
        store.upsert(schema.runs, [{"id": "run1", "team": "a", "model": "m", "release": "r", "planned": 2,
                                    "payload": b"", "refused": ""}])
        assert len(checkouts) == 3  # the write's own transaction
        assert store.count(schema.runs, team="a") == 2 and len(checkouts) == 3
    assert store.get(schema.runs, "run1")["planned"] == 2 and len(checkouts) == 4  # type: ignore[index]
    store.close()


def test_migrations_match_schema(store_url: str) -> None:
    store = open_store(store_url)
    with store.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), schema.metadata)
    assert diff == [], f"migrations and livetab.store.schema disagree: {diff}"
    open_store(store_url).close()  # re-opening runs no migration twice
    store.close()


def _alembic_config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def test_head_revision_is_the_one_alembic_upgrades_to() -> None:
    assert head_revision() == ScriptDirectory.from_config(_alembic_config()).get_current_head()


def test_a_store_one_migration_behind_is_upgraded(store_url: str) -> None:
    """A store at the revision before the head is not taken for an up-to-date one: opening it upgrades it."""
    script = ScriptDirectory.from_config(_alembic_config())
    previous = script.get_revision(script.get_current_head()).down_revision
    assert isinstance(previous, str)
    engine = create_engine(store_url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.begin() as conn:
        cfg = _alembic_config()
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, previous)
    with engine.connect() as conn:
        assert MigrationContext.configure(conn).get_current_revision() == previous
    engine.dispose()
    store = open_store(store_url)
    with store.engine.connect() as conn:
        assert MigrationContext.configure(conn).get_current_revision() == head_revision()
        assert compare_metadata(MigrationContext.configure(conn), schema.metadata) == []
    store.close()


def test_opening_a_store_at_the_head_does_not_load_alembic(tmp_path: Path) -> None:
    """A command's start on an up-to-date store: one query, no alembic (its import is ~0.13 s)."""
    url = f"sqlite:///{tmp_path / 'livetab.db'}"
    open_store(url).close()  # new: migrated by alembic
    probe = ("import sys; from livetab.store import open_store; open_store(sys.argv[1]).close(); "
             "print(sorted(m for m in sys.modules if m.split('.')[0] == 'alembic'))")
    out = subprocess.run([sys.executable, "-c", probe, url], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stderr


def test_bad_urls_give_clear_errors() -> None:
    with pytest.raises(StoreError, match="unsupported database 'nosuchdb'"):
        open_store("nosuchdb://x")
    with pytest.raises(StoreError, match="bad database URL"):
        open_store("postgresql+nodriver://u@h/x")
    with pytest.raises(StoreError, match="unsupported database"):
        open_store("mysql://u:p@127.0.0.1:1/x")


@pytest.mark.postgres
def test_unreachable_postgres_is_named() -> None:
    with pytest.raises(StoreError, match=r"cannot reach the database at 'postgresql\+psycopg://u:\*\*\*@127.0.0.1:1/x'"):
        open_store("postgresql://u:secret@127.0.0.1:1/x")
