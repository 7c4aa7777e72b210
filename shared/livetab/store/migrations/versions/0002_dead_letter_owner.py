"""Dead letters name the service that gave up on them and the run they belong to, so a run's progress
can count them.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("dead_letters", sa.Column("service", sa.String(32), nullable=False, server_default=""))
    op.add_column("dead_letters", sa.Column("run_id", sa.String(64), nullable=False, server_default=""))
    op.create_index("ix_dead_letters_run_id", "dead_letters", ["run_id"])


def downgrade() -> None:
    op.drop_index("ix_dead_letters_run_id", "dead_letters")
    op.drop_column("dead_letters", "run_id")
    op.drop_column("dead_letters", "service")
