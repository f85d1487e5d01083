"""auth hardening: login sessions that logging out ends, API tokens that expire

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-30

* `facilitator.session_epoch`: the login cookie carries it and must match; logging
  out increments it, so cookies issued before stop working. 0 for every teacher.
* `apitoken.expires_at` and `apitoken.last_used_at`: a token works until it expires
  (API_TOKEN_DAYS after it was issued) or is revoked (its row deleted). Existing
  tokens are given 30 days from their creation, the default.
"""
from __future__ import annotations

from datetime import timedelta

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMNs (no SQLite batch rebuild of tables other tables reference).
    op.add_column("facilitator", sa.Column("session_epoch", sa.Integer(), nullable=False, server_default="0"))
    op.add_column("apitoken", sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("apitoken", sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True))
    tokens = sa.table("apitoken", sa.column("id", sa.Integer()), sa.column("created_at", sa.DateTime(timezone=True)),
                      sa.column("expires_at", sa.DateTime(timezone=True)))
    bind = op.get_bind()
    for token_id, created in bind.execute(sa.select(tokens.c.id, tokens.c.created_at)).all():
        bind.execute(tokens.update().where(tokens.c.id == token_id).values(expires_at=created + timedelta(days=30)))


def downgrade() -> None:
    for table, column in (("apitoken", "last_used_at"), ("apitoken", "expires_at"), ("facilitator", "session_epoch")):
        if op.get_bind().dialect.name == "sqlite":
            import sqlite3
            if sqlite3.sqlite_version_info >= (3, 35):  # drops a column in place (no rebuild)
                op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
                continue
            with op.batch_alter_table(table) as batch:
                batch.drop_column(column)
        else:
            op.drop_column(table, column)
