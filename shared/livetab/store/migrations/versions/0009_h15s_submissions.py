"""Active submissions (issue 15): a run submitted with `rerun: true` is re-run on every release that goes live
(livetab_api.releases); `submissions` holds one row per (team, model name) with its latest run, active while
`stopped_at` is NULL (cancelling its latest run stops it). And `runs.published`: how many of a run's planned
requests the planner has published while it holds the rest back to share capacity between teams
(api.team_window); NULL: all.

Revision ID: 0009_h15s
Revises: 0008_h15c
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_h15s"
down_revision = "0008_h15c"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("published", sa.Integer, nullable=True))
    op.create_table(
        "submissions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("team", sa.String(64), nullable=False, index=True),
        sa.Column("model", sa.String(128), nullable=False),
        sa.Column("run_id", sa.String(64), nullable=False, index=True),
        sa.Column("release", sa.String(64), nullable=False),
        sa.Column("payload", sa.LargeBinary, nullable=False),
        sa.Column("stopped_at", sa.Float, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("submissions")
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("published")
