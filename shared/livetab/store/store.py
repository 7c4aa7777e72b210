"""The store: one SQLAlchemy engine, migrations applied on open, upsert by id on SQLite and PostgreSQL."""

from __future__ import annotations

import functools
import logging
import operator
import re
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Connection,
    Engine,
    Float,
    Integer,
    LargeBinary,
    SmallInteger,
    String,
    Table,
    any_,
    bindparam,
    create_engine,
    event,
    func,
    select,
    text,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, OperationalError

__all__ = ["Store", "StoreError", "open_store", "stored_revisions"]

log = logging.getLogger(__name__)
MIGRATIONS = Path(__file__).parent / "migrations"
# column types whose values the PostgreSQL driver takes as SQLAlchemy would hand them to it (`Store._driver_upsert`)
_DRIVER_TYPES = (String, Integer, Float, LargeBinary, Boolean)
# PostgreSQL's binary COPY type of each driver type (`Store._copy_upsert`), the first that matches (BigInteger and
# SmallInteger are Integers, Text is a String)
_COPY_TYPES = ((LargeBinary, "bytea"), (Boolean, "bool"), (Float, "float8"), (BigInteger, "int8"),
               (SmallInteger, "int2"), (Integer, "int4"), (String, "text"))
COPY_MIN_ROWS = 64  # an upsert of at least this many rows goes through COPY on PostgreSQL (`Store._copy_upsert`)
ARRAY_CHUNK = 5000  # keys a query of `get_many` asks on PostgreSQL, where they are one array parameter


class StoreError(Exception):
    """The store cannot be opened; the message says why and names the URL (password hidden)."""


@dataclass(frozen=True)
class _CopyPlan:
    """How `Store._copy_upsert` writes one table's rows of one set of columns: a row's primary key (of several
    rows with one key the last is kept), each column's COPY type, and its statements."""

    key_of: Callable[[Mapping[str, Any]], Any]  # operator.itemgetter of the key's columns
    types: list[str]
    create: str
    truncate: str
    copy: str
    insert: str


def _copy_type(t: Any) -> str:
    return next(name for kind, name in _COPY_TYPES if isinstance(t, kind))


def _redact(url: str) -> str:
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        creds, host = rest.rsplit("@", 1)
        user = creds.split(":", 1)[0]
        return f"{scheme}://{user}:***@{host}"
    return url


class Store:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.dialect = engine.dialect.name
        self._upserts: dict[tuple[str, tuple[str, ...]], Any] = {}
        self._driver_sql: dict[tuple[str, tuple[str, ...]], str | None] = {}  # `_driver_upsert`'s, by table, columns
        self._copy_plans: dict[tuple[str, tuple[str, ...]], _CopyPlan] = {}  # `_copy_upsert`'s, by table, columns
        self._by_key_stmts: dict[tuple[str, bool], Any] = {}  # (table, whole rows or the key alone) -> statement
        self._local = threading.local()  # `reading`'s connection, per thread
        self._equal_stmts: dict[tuple[tuple[str, ...], Table, tuple[str, ...]], Any] = {}  # `_equal`'s

    # -- writes -----------------------------------------------------------------------------------------
    def upsert(self, table: Table, rows: Sequence[Mapping[str, Any]]) -> None:
        """Insert rows, or replace the non-key columns of rows whose key exists. Idempotent; of several rows
        with one key, the last is what is stored.

        Every row has the columns of the first. One statement per table and column set, built once and run
        for all rows at once (executemany): a multi-row VALUES clause would be compiled anew for each batch. (On
        PostgreSQL, one `INSERT ... SELECT FROM unnest(%s::type[], ...)` over column arrays was tried, 3 December
        2026: ~10 % less client CPU for a batch of 20 results and 20 cache rows, but 40-50 % more time to commit,
        205 against 135-148 µs a row pair.) On PostgreSQL, `COPY_MIN_ROWS` rows or more go through COPY
        (`_copy_upsert`)."""
        self.upsert_all([(table, rows)])

    def upsert_all(self, writes: Sequence[tuple[Table, Sequence[Mapping[str, Any]]]]) -> None:
        """`upsert` into several tables in one transaction, in order: all of it is stored or none."""
        writes = [(table, rows) for table, rows in writes if rows]
        if not writes:
            return
        copied: set[tuple[str, tuple[str, ...]]] = set()  # staging tables this transaction has filled
        with self.engine.begin() as conn:
            for table, rows in writes:
                columns = tuple(rows[0])
                sql = self._driver_upsert(table, columns)
                if sql is None:
                    conn.execute(self._upsert_statement(table, columns), list(rows))
                elif len(rows) >= COPY_MIN_ROWS:
                    self._copy_upsert(conn, table, columns, rows, again=(table.name, columns) in copied)
                    copied.add((table.name, columns))
                else:
                    conn.exec_driver_sql(sql, list(rows))

    def _copy_upsert(self, conn: Connection, table: Table, columns: tuple[str, ...],
                     rows: Sequence[Mapping[str, Any]], *, again: bool = False) -> None:
        """A large upsert on PostgreSQL: the rows copied (binary COPY) into a temporary table of the connection,
        then one `INSERT ... SELECT ... ON CONFLICT` from it, in the caller's transaction; the temporary table
        (one per table and set of columns) empties at each commit (ON COMMIT DELETE ROWS) and lives as long as
        the database session. `again`: this transaction filled it already (the same table twice in one
        `upsert_all`), so it is emptied first.

        `executemany` sends each row as a statement of its own and handles each row's result in Python. 2,000
        results and 125 cache rows (an inference batch), `python -m bench store` (7 December 2026): 78 ms of the
        client's CPU, 90 of PostgreSQL's, 99 ms in all that way; through COPY 12, 50 and 64 ms. At 200 rows the
        client's CPU 9.7 → 4.3 ms and the time about even (15.0 → 13.7 ms); at 20 rows COPY's extra statements cost
        what they save, so fewer rows than `COPY_MIN_ROWS` keep `executemany`. Of several rows with one key the
        last is kept first, as `executemany` would leave it (one INSERT cannot update a row twice)."""
        plan = self._copy_plan(table, columns)
        rows = list({plan.key_of(row): row for row in rows}.values())
        raw = conn.connection.driver_connection
        assert raw is not None
        with raw.cursor() as cur:
            # made where this session has none (once per connection; inside the transaction, so a rollback of it
            # takes the table away with it and the next upsert makes it again): cheaper to ask each time (one
            # statement, ~0.1 ms) than to know, as a flag beside the connection would not see such a rollback
            cur.execute(plan.create)
            if again:
                cur.execute(plan.truncate)
            with cur.copy(plan.copy) as copy:
                copy.set_types(plan.types)
                for row in rows:
                    copy.write_row([row[c] for c in columns])
            cur.execute(plan.insert)

    def _copy_plan(self, table: Table, columns: tuple[str, ...]) -> _CopyPlan:
        """`_copy_upsert`'s statements and COPY types for a table and set of columns, made once."""
        plan = self._copy_plans.get((table.name, columns))
        if plan is None:
            q = self.engine.dialect.identifier_preparer.quote  # a column may be named as a keyword ("offset")
            pk = tuple(c.name for c in table.primary_key.columns)
            names = ", ".join(q(c) for c in columns)
            staging = f"_copy_{table.name}_{zlib.crc32(names.encode()):08x}"  # one a set of columns
            updates = ", ".join(f"{q(c)} = excluded.{q(c)}" for c in columns if c not in pk)
            plan = self._copy_plans[(table.name, columns)] = _CopyPlan(
                key_of=operator.itemgetter(*pk), types=[_copy_type(table.c[c].type) for c in columns],
                create=(f"CREATE TEMPORARY TABLE IF NOT EXISTS {staging} ON COMMIT DELETE ROWS AS "
                        f"SELECT {names} FROM {q(table.name)} WITH NO DATA"),
                truncate=f"TRUNCATE {staging}",
                copy=f"COPY {staging} ({names}) FROM STDIN (FORMAT BINARY)",
                insert=(f"INSERT INTO {q(table.name)} ({names}) SELECT {names} FROM {staging} "
                        f"ON CONFLICT ({', '.join(q(k) for k in pk)}) "
                        + (f"DO UPDATE SET {updates}" if updates else "DO NOTHING")))
        return plan

    def _upsert_statement(self, table: Table, columns: tuple[str, ...]) -> Any:
        key = (table.name, columns)
        stmt = self._upserts.get(key)
        if stmt is None:
            pk = [c.name for c in table.primary_key.columns]
            insert = postgresql.insert(table) if self.dialect == "postgresql" else sqlite.insert(table)
            cols = {c: insert.excluded[c] for c in columns if c not in pk}
            stmt = self._upserts[key] = (insert.on_conflict_do_update(index_elements=pk, set_=cols) if cols
                                         else insert.on_conflict_do_nothing(index_elements=pk))
        return stmt

    def _driver_upsert(self, table: Table, columns: tuple[str, ...]) -> str | None:
        """On PostgreSQL, the upsert statement of `_upsert_statement` as the driver's SQL with a named parameter
        per column, when every column is of a type the driver adapts as SQLAlchemy would (text, numbers, bytes):
        the rows then go to the driver's `executemany` as they are, without SQLAlchemy processing each row's
        parameters (~12 % of the judge service's time, ~5 % of the inference service's, in `python -m bench
        pipeline`). None: the statement goes through SQLAlchemy (SQLite, or a column of another type)."""
        key = (table.name, columns)
        if key in self._driver_sql:
            return self._driver_sql[key]
        sql = None
        if self.dialect == "postgresql" and all(
                c in table.c and isinstance(table.c[c].type, _DRIVER_TYPES) for c in columns):
            compiled = self._upsert_statement(table, columns).compile(dialect=self.engine.dialect,
                                                                      column_keys=list(columns))
            if compiled.positiontup is None and sorted(compiled.bind_names.values()) == sorted(columns):
                sql = compiled.string
        self._driver_sql[key] = sql
        return sql

    def insert_new(self, table: Table, rows: Sequence[Mapping[str, Any]]) -> None:
        """Insert rows whose key is not there yet; existing rows stay as they are."""
        if not rows:
            return
        pk = [c.name for c in table.primary_key.columns]
        insert = postgresql.insert(table) if self.dialect == "postgresql" else sqlite.insert(table)
        with self.engine.begin() as conn:
            conn.execute(insert.values(list(rows)).on_conflict_do_nothing(index_elements=pk))

    # -- reads ------------------------------------------------------------------------------------------
    @contextmanager
    def reading(self) -> Iterator[None]:
        """Within it, this thread's reads (`get`, `select`, `count`, ..., not `stream`) share one connection:
        one pool checkout (with its ping of the database) for all of them instead of one each. GET /runs/{id}
        reads eight times; each checkout cost the api ~0.2 ms and PostgreSQL a round trip. Writes keep their own
        transactions. Nested, the outer connection serves."""
        if getattr(self._local, "conn", None) is not None:
            yield
            return
        with self.engine.connect() as conn:
            self._local.conn = conn
            try:
                yield
            finally:
                self._local.conn = None

    def _reader(self) -> AbstractContextManager[Connection]:
        conn: Connection | None = getattr(self._local, "conn", None)
        return nullcontext(conn) if conn is not None else self.engine.connect()

    def update(self, table: Table, key: str, **values: Any) -> int:
        """Set `values` on the row whose key is `key` (its other columns stay); how many rows changed (0 or 1)."""
        pk = next(iter(table.primary_key.columns))
        with self.engine.begin() as conn:
            return int(conn.execute(table.update().where(pk == key).values(**values)).rowcount)

    def get(self, table: Table, key: str) -> dict[str, Any] | None:
        pk = next(iter(table.primary_key.columns))
        stmt, params = self._equal(("get",), table, lambda: select(table), {pk.name: key})
        with self._reader() as conn:
            rows = _dicts(conn.execute(stmt, params))
        return rows[0] if rows else None

    def select(self, table: Table, **where: Any) -> list[dict[str, Any]]:
        stmt, params = self._equal(("select",), table, lambda: select(table), where)
        with self._reader() as conn:
            return _dicts(conn.execute(stmt, params))

    def _equal(self, kind: tuple[str, ...], table: Table, make: Callable[[], Any],
               where: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """`make()` restricted to the rows whose columns equal `where`'s values, and its parameters: the statement
        built once per kind, table and set of columns, the values bound per call. Building a select and its cache
        key anew for each call was most of what a read cost the client (GET /runs/{id} reads a run eight times
        over: 5.4 ms of the api's CPU). A None value (`IS NULL`, not `= NULL`) gets a statement of its own."""
        if any(v is None for v in where.values()):
            return _where(make(), table, where), {}
        key = (kind, table, tuple(where))
        stmt = self._equal_stmts.get(key)
        if stmt is None:
            stmt = make()
            for column in where:
                stmt = stmt.where(table.c[column] == bindparam(f"w_{column}"))
            self._equal_stmts[key] = stmt
        return stmt, {f"w_{column}": v for column, v in where.items()}

    def stream(self, table: Table, columns: Sequence[str], *, chunk: int = 2000, order_by: Sequence[str] = (),
               **where: Any) -> Iterator[dict[str, Any]]:
        """The rows `select` would return, only `columns` of each, read `chunk` rows at a time (a server-side
        cursor on PostgreSQL): for a reader that goes through a large result once and keeps none of its rows, so
        what it holds is a chunk, not the result (a 100,000-answer run's results and judgments as `select`
        dicts are ~0.3 GB). `order_by`: columns the rows come sorted by (ascending; in no set order otherwise).
        Consume it to the end (or close it): the connection is held until then."""
        stmt = _where(select(*(table.c[c] for c in columns)), table, where)
        if order_by:
            stmt = stmt.order_by(*(table.c[c] for c in order_by))
        with self.engine.connect() as conn:
            result = conn.execution_options(yield_per=chunk).execute(stmt)
            names = list(result.keys())
            for part in result.partitions():
                for row in part:
                    yield dict(zip(names, row, strict=True))

    def distinct(self, table: Table, column: str, **where: Any) -> list[Any]:
        """The distinct values of `column` over the rows `select` would return, in one query."""
        col = table.c[column]
        stmt, params = self._equal(("distinct", column), table, lambda: select(col).distinct(), where)
        with self._reader() as conn:
            return [r[0] for r in conn.execute(stmt, params)]

    def payloads(self, table: Table, **where: Any) -> list[bytes]:
        """The `payload` column of the rows `select` would return, alone: for a reader that parses the message and
        needs no other column (a third of the time of `select` for the results of a 2,000-request run)."""
        stmt, params = self._equal(("payloads",), table, lambda: select(table.c.payload), where)
        with self._reader() as conn:
            return [bytes(r[0]) for r in conn.execute(stmt, params)]

    def count(self, table: Table, **where: Any) -> int:
        stmt, params = self._equal(("count",), table, lambda: select(func.count()).select_from(table), where)
        with self._reader() as conn:
            return int(conn.execute(stmt, params).scalar_one())

    def count_by(self, table: Table, column: str, **where: Any) -> dict[Any, int]:
        """Row counts grouped by the values of `column`, in one query."""
        col = table.c[column]
        stmt, params = self._equal(("count_by", column), table,
                                   lambda: select(col, func.count()).select_from(table).group_by(col), where)
        with self._reader() as conn:
            return {r[0]: int(r[1]) for r in conn.execute(stmt, params)}

    def ids(self, table: Table, keys: Iterable[str], chunk: int = 500) -> set[str]:
        """Which of `keys` are stored, asked as `get_many` asks (`_by_keys`)."""
        pk = next(iter(table.primary_key.columns))
        return {r[pk.name] for r in self._by_keys(table, pk, keys, chunk)}

    def get_many(self, table: Table, keys: Iterable[str], chunk: int = 500) -> dict[str, dict[str, Any]]:
        """Rows by primary key; missing keys are simply absent (`_by_keys`)."""
        pk = next(iter(table.primary_key.columns))
        return {row[pk.name]: row for row in self._by_keys(table, table, keys, chunk)}

    def _by_keys(self, table: Table, what: Any, keys: Iterable[str], chunk: int) -> list[dict[str, Any]]:
        """`what` (the table, or its key column) of the rows whose primary key is among `keys`, in one query per
        `chunk` keys.

        On PostgreSQL the keys are one array parameter (`= ANY(%s)`), a query of one text whatever their number, in
        chunks of `ARRAY_CHUNK`; elsewhere an IN list of `chunk` parameters (databases cap a statement's parameters).
        The IN list of 500 parameters is a long text the driver converts anew at each query (too long for its cache):
        2,000 stored results by key took 55 ms (37 ms of the client's CPU) as IN lists and 37 ms (12.5 ms) as one
        array, 20,000 took 370 ms (251) and 275 ms (150) (6 December 2026, a 100,000-answer run's results)."""
        keys = list(dict.fromkeys(keys))
        if not keys:
            return []
        pk = next(iter(table.primary_key.columns))
        stmt = self._by_key_stmts.get((table.name, what is table))
        if stmt is None:  # built once per table and selection: its keys are bound per call
            where = (pk == any_(bindparam("keys", type_=postgresql.ARRAY(pk.type))) if self.dialect == "postgresql"
                     else pk.in_(bindparam("keys", expanding=True)))
            stmt = self._by_key_stmts[(table.name, what is table)] = select(what).where(where)
        if self.dialect == "postgresql":
            chunk = max(chunk, ARRAY_CHUNK)
        out: list[dict[str, Any]] = []
        with self._reader() as conn:
            for i in range(0, len(keys), chunk):
                out += _dicts(conn.execute(stmt, {"keys": keys[i:i + chunk]}))
        return out

    def close(self) -> None:
        self.engine.dispose()


_REVISION = re.compile(r'^revision\s*=\s*"([^"]+)"\s*$', re.M)
_DOWN_REVISION = re.compile(r'^down_revision\s*=\s*(?:None|"([^"]+)")\s*$', re.M)
@functools.cache
def head_revision() -> str | None:
    """The newest migration's revision, read from the `revision` and `down_revision` lines of the migration
    files (the chain alembic follows); None when they do not form a single chain with one head, and alembic
    then decides. Read once per process."""
    revisions: dict[str, str | None] = {}
    for path in sorted((MIGRATIONS / "versions").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        rev, down = _REVISION.findall(source), _DOWN_REVISION.findall(source)
        if len(rev) != 1 or len(down) != 1 or rev[0] in revisions:
            return None
        revisions[rev[0]] = down[0] or None
    downs = [d for d in revisions.values() if d is not None]
    heads = [r for r in revisions if r not in downs]
    chain = len(heads) == 1 and len(set(downs)) == len(downs) == len(revisions) - 1 and set(downs) <= set(revisions)
    return heads[0] if chain else None


def stored_revisions(engine: Engine) -> list[str]:
    """The migration revisions the store records (Alembic's `alembic_version`); none for a new store."""
    with engine.connect() as conn:
        try:
            return [str(r) for r in conn.execute(text("SELECT version_num FROM alembic_version")).scalars()]
        except DBAPIError:  # no alembic_version table: a new store
            return []


def _at_head(engine: Engine) -> bool:
    """The store's recorded revision is the migrations' head (nothing to upgrade); False when it has none yet."""
    head = head_revision()
    return head is not None and stored_revisions(engine) == [head]


def migrate(engine: Engine) -> None:
    """Bring the store's schema to the migrations' head. A store already there is recognised by one query and
    alembic is not loaded (its import is ~0.13 s of a command's start); otherwise alembic upgrades it."""
    if _at_head(engine):
        return
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            # Several services may start at once: one migrates, the others wait for it.
            conn.execute(text("SELECT pg_advisory_xact_lock(742010)"))
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


def open_store(url: str, *, migrate_schema: bool = True) -> Store:
    """Open (and migrate) the store at `url`; a bad URL or unreachable server raises StoreError."""
    if url.startswith("sqlite:///"):
        db_path = url[len("sqlite:///"):]
        if db_path and db_path != ":memory:":
            Path(db_path).parent.mkdir(parents=True, exist_ok=True)
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://"):]
    scheme = url.split(":", 1)[0].split("+", 1)[0]
    if scheme not in ("sqlite", "postgresql"):
        raise StoreError(f"unsupported database {scheme!r} in {_redact(url)!r}: use sqlite:///path or postgresql://...")
    try:
        # A server connection can drop between uses (pinged on checkout); a SQLite file cannot, and a ping per
        # transaction is a measurable share of a busy service's time.
        engine = create_engine(url, pool_pre_ping=scheme == "postgresql", future=True)
    except (ArgumentError, NoSuchModuleError, ValueError, ImportError) as e:
        raise StoreError(f"bad database URL {_redact(url)!r}: {e}") from None
    if engine.dialect.name == "sqlite":
        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _rec: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.close()
    try:
        if migrate_schema:
            migrate(engine)
        else:
            with engine.connect():
                pass
    except OperationalError as e:
        raise StoreError(f"cannot reach the database at {_redact(url)!r}: {str(e.orig).strip().splitlines()[0]}") from None
    return Store(engine)


def _where(stmt: Any, table: Table, where: dict[str, Any]) -> Any:
    """`stmt` restricted to the rows whose columns equal `where`'s values."""
    for k, v in where.items():
        stmt = stmt.where(table.c[k] == v)
    return stmt


def _dicts(result: Any) -> list[dict[str, Any]]:
    """A result's rows as dicts, its column names read once (`dict(row)` over `.mappings()` asks every row for
    them: a third of the time of reading a few thousand rows)."""
    names = list(result.keys())
    return [dict(zip(names, row, strict=True)) for row in result]
