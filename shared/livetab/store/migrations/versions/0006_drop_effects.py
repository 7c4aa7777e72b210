"""The generic `effects` table is gone from livetab's schema: no service wrote it; the delivery tests that
counted effects with it keep a table of their own (tests/support/effects.py).

Revision ID: 0006
Revises: 0005_r1
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005_r1"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_table("effects")


def downgrade() -> None:
    op.create_table(
        "effects",
        sa.Column("id", sa.String(200), primary_key=True),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("value", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
    )
