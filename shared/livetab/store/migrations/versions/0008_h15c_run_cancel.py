"""A run can be cancelled (issue 15; POST /runs/{id}/cancel, `livetab cancel`): `runs.cancelled_at` holds
when (Unix seconds; NULL while not cancelled). The planner plans no cancelled run and the inference service
records its outstanding requests as failed with reason "cancelled".

Revision ID: 0008_h15c
Revises: 0007_h15a
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_h15c"
down_revision = "0007_h15a"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("cancelled_at", sa.Float, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("cancelled_at")
