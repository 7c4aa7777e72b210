"""Releases get a lifecycle in the store (draft, frozen, live, retired) with their frozen question set, and
the human review queue moves from a JSONL file into the store, so it works across pods.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def _created() -> sa.Column[object]:
    return sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False)


def upgrade() -> None:
    op.create_table(
        "releases",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("manifest_hash", sa.String(64), nullable=False, server_default=""),
        sa.Column("questions", sa.Integer, nullable=False, server_default="0"),
        sa.Column("history", sa.Text, nullable=False, server_default="[]"),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        _created(),
    )
    op.create_table(
        "release_members",
        sa.Column("id", sa.String(140), primary_key=True),
        sa.Column("release", sa.String(64), nullable=False),
        sa.Column("question_id", sa.String(64), nullable=False),
        _created(),
    )
    op.create_index("ix_release_members_release", "release_members", ["release"])
    op.create_table(
        "review_items",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("release", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("payload", sa.LargeBinary, nullable=False),
        sa.Column("reviewer", sa.String(128), nullable=False, server_default=""),
        sa.Column("note", sa.Text, nullable=False, server_default=""),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        _created(),
    )
    op.create_index("ix_review_items_release", "review_items", ["release"])
    op.create_index("ix_review_items_status", "review_items", ["status"])


def downgrade() -> None:
    op.drop_table("review_items")
    op.drop_table("release_members")
    op.drop_table("releases")
