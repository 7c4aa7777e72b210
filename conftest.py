"""Session fixtures shared by every test: the real Kafka broker and the real PostgreSQL server.

Both are started on demand (only when a test asks for them) by the scripts in deploy/ and stopped at the
end of the session. Set LIVETAB_TEST_KAFKA=host:port or LIVETAB_TEST_POSTGRES=url to use running ones.
When a Docker engine is present and LIVETAB_TEST_TESTCONTAINERS=1, testcontainers' Kafka serves the
same fixture.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.deploy import deploy_down, deploy_up

ROOT = Path(__file__).resolve().parent
STATE = ROOT / ".state" / f"test-{os.getpid()}"
# The tests' model servers listen on loopback: the tests' admin allows it (guard.allow); each test that scrapes
# through the api names its folders in its config (guard.scrape_locations). The safety tests build their own,
# stricter GuardSettings.
os.environ.setdefault("LIVETAB_GUARD__ALLOW", '["127.0.0.0/8", "::1/128"]')
os.environ.setdefault("LIVETAB_GUARD__SCRAPE_KINDS",
                      '["local_html", "local_csv", "local_files", "wikipedia", "gsm8k", "freshtab", "tata"]')


@pytest.fixture(scope="session")
def kafka_bootstrap() -> Iterator[str]:
    if os.environ.get("LIVETAB_TEST_KAFKA"):
        yield os.environ["LIVETAB_TEST_KAFKA"]
        return
    if os.environ.get("LIVETAB_TEST_TESTCONTAINERS") == "1" and shutil.which("docker"):
        from testcontainers.kafka import KafkaContainer  # pragma: no cover - needs a Docker engine

        with KafkaContainer().with_kraft() as kafka:
            yield kafka.get_bootstrap_server()
        return
    state = STATE / "kafka"
    try:
        yield deploy_up("kafka.sh", state)
    finally:
        deploy_down("kafka.sh", state)


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    if os.environ.get("LIVETAB_TEST_POSTGRES"):
        yield os.environ["LIVETAB_TEST_POSTGRES"]
        return
    state = STATE / "postgres"
    try:
        yield deploy_up("postgres.sh", state)
    finally:
        deploy_down("postgres.sh", state)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The same store tests run on SQLite and on PostgreSQL (a fresh schema per test on the latter)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'livetab.db'}"
    base: str = request.getfixturevalue("postgres_url")
    import uuid

    import sqlalchemy as sa

    db = "t_" + uuid.uuid4().hex[:12]
    admin = sa.create_engine(base.replace("postgresql://", "postgresql+psycopg://"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f"CREATE DATABASE {db}"))
    admin.dispose()
    return base.rsplit("/", 1)[0] + "/" + db


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    shutil.rmtree(STATE, ignore_errors=True)
