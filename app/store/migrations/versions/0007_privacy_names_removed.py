"""privacy: when a table's student names were removed by the retention clean-up

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30

* `game_table.names_removed_at`: set when app/service/privacy.py replaced the students' names of
  an ended table by "Player 1", "Player 2"... after RETENTION_DAYS, so it is done once.
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain nullable ADD COLUMN: no table rebuild on SQLite, instant on PostgreSQL.
    op.add_column("game_table", sa.Column("names_removed_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        import sqlite3
        if sqlite3.sqlite_version_info >= (3, 35):  # drops a column in place (no rebuild)
            op.execute("ALTER TABLE game_table DROP COLUMN names_removed_at")
        else:
            with op.batch_alter_table("game_table") as batch:
                batch.drop_column("names_removed_at")
    else:
        op.drop_column("game_table", "names_removed_at")
