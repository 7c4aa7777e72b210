"""Initial schema: every table of livetab.store.schema as it was at revision 0001.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _created() -> sa.Column:  # type: ignore[type-arg]
    return sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False)


def upgrade() -> None:
    op.create_table(
        "tables",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("release", sa.String(64), nullable=False, index=True),
        sa.Column("source_uri", sa.Text, nullable=False),
        sa.Column("language", sa.String(16), nullable=False),
        sa.Column("domain", sa.String(32), nullable=False),
        sa.Column("source_created_at", sa.String(32), nullable=False),
        sa.Column("payload", sa.LargeBinary, nullable=False),
        _created(),
    )
    op.create_table(
        "questions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("table_id", sa.String(64), nullable=False, index=True),
        sa.Column("release", sa.String(64), nullable=False, index=True),
        sa.Column("family", sa.String(32), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("payload", sa.LargeBinary, nullable=False),
        _created(),
    )
    op.create_table(
        "runs",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("team", sa.String(64), nullable=False),
        sa.Column("model", sa.String(128), nullable=False),
        sa.Column("release", sa.String(64), nullable=False),
        sa.Column("planned", sa.Integer, nullable=False),
        sa.Column("payload", sa.LargeBinary, nullable=False),
        _created(),
    )
    op.create_table(
        "results",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("run_id", sa.String(64), nullable=False, index=True),
        sa.Column("question_id", sa.String(64), nullable=False),
        sa.Column("model", sa.String(128), nullable=False),
        sa.Column("sample_index", sa.Integer, nullable=False),
        sa.Column("error", sa.Text, nullable=False),
        sa.Column("payload", sa.LargeBinary, nullable=False),
        _created(),
    )
    op.create_table(
        "judgments",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("request_id", sa.String(64), nullable=False),
        sa.Column("run_id", sa.String(64), nullable=False, index=True),
        sa.Column("question_id", sa.String(64), nullable=False),
        sa.Column("model", sa.String(128), nullable=False),
        sa.Column("judge", sa.String(64), nullable=False),
        sa.Column("family", sa.String(32), nullable=False),
        sa.Column("verdict", sa.String(16), nullable=False),
        sa.Column("score", sa.Float, nullable=False),
        sa.Column("payload", sa.LargeBinary, nullable=False),
        _created(),
    )
    op.create_table(
        "leaderboard",
        sa.Column("id", sa.String(200), primary_key=True),
        sa.Column("run_id", sa.String(64), nullable=False, index=True),
        sa.Column("model", sa.String(128), nullable=False),
        sa.Column("slice", sa.String(128), nullable=False),
        sa.Column("n", sa.Integer, nullable=False),
        sa.Column("correct", sa.Integer, nullable=False),
        sa.Column("accuracy", sa.Float, nullable=False),
        sa.Column("ci_low", sa.Float, nullable=False),
        sa.Column("ci_high", sa.Float, nullable=False),
        _created(),
    )
    op.create_table(
        "dead_letters",
        sa.Column("id", sa.String(300), primary_key=True),
        sa.Column("source_topic", sa.String(128), nullable=False),
        sa.Column("partition", sa.Integer, nullable=False),
        sa.Column("offset", sa.Integer, nullable=False),
        sa.Column("consumer_group", sa.String(128), nullable=False),
        sa.Column("error", sa.Text, nullable=False),
        _created(),
    )
    op.create_table(
        "failures",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("stage", sa.String(32), nullable=False),
        sa.Column("entity", sa.Text, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("release", sa.String(64), nullable=False),
        _created(),
    )
    op.create_table(
        "response_cache",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("model", sa.String(128), nullable=False),
        sa.Column("payload", sa.LargeBinary, nullable=False),
        _created(),
    )
    op.create_table(
        "effects",
        sa.Column("id", sa.String(200), primary_key=True),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("value", sa.Text, nullable=False),
        _created(),
    )


def downgrade() -> None:
    for name in ("effects", "response_cache", "failures", "dead_letters", "leaderboard", "judgments", "results",
                 "runs", "questions", "tables"):
        op.drop_table(name)
