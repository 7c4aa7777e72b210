"""A run the planner refused (its release not live, or unknown) keeps the reason on its row, so `livetab`
and the api show it as refused instead of as an empty, complete run.

Revision ID: 0005_r1
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_r1"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("refused", sa.Text, nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("refused")
