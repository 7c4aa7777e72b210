"""Teams, members, API tokens (salted hashes only) and the audit log (issue 15; livetab_api.teams).

Revision ID: 0007_h15a
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_h15a"
down_revision = "0006"
branch_labels = None
depends_on = None


def _created() -> sa.Column[object]:
    return sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False)


def upgrade() -> None:
    op.create_table("teams", sa.Column("id", sa.String(64), primary_key=True), _created())
    op.create_table(
        "members",
        sa.Column("id", sa.String(128), primary_key=True),
        sa.Column("team", sa.String(64), nullable=False, index=True),
        sa.Column("role", sa.String(16), nullable=False),
        _created(),
    )
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("member", sa.String(128), nullable=False, index=True),
        sa.Column("team", sa.String(64), nullable=False, index=True),
        sa.Column("scopes", sa.String(64), nullable=False),
        sa.Column("salt", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(128), nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
        sa.Column("revoked_at", sa.Float, nullable=True),
        sa.Column("note", sa.Text, nullable=False, server_default=""),
        _created(),
    )
    op.create_table(
        "audit_log",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("at", sa.Float, nullable=False, index=True),
        sa.Column("actor", sa.String(128), nullable=False),
        sa.Column("token_id", sa.String(32), nullable=False, server_default=""),
        sa.Column("team", sa.String(64), nullable=False, server_default=""),
        sa.Column("action", sa.String(200), nullable=False),
        sa.Column("target", sa.Text, nullable=False, server_default=""),
        sa.Column("status", sa.Integer, nullable=False),
        _created(),
    )


def downgrade() -> None:
    for name in ("audit_log", "api_tokens", "members", "teams"):
        op.drop_table(name)
