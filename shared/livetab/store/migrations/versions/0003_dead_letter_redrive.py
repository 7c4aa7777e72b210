"""Dead letters keep the original record (key, value, headers) so they can be redriven to their source
topic after a fix, and when they were redriven, so redriving twice publishes once.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("dead_letters", sa.Column("key", sa.LargeBinary, nullable=True))
    op.add_column("dead_letters", sa.Column("value", sa.LargeBinary, nullable=True))
    op.add_column("dead_letters", sa.Column("headers", sa.Text, nullable=False, server_default="{}"))
    op.add_column("dead_letters", sa.Column("redriven_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    op.drop_column("dead_letters", "redriven_at")
    op.drop_column("dead_letters", "headers")
    op.drop_column("dead_letters", "value")
    op.drop_column("dead_letters", "key")
