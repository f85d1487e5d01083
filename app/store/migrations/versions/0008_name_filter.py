"""names: the teacher's choice to refuse rude names, per table and per class session

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30

* `game_table.name_filter` and `class_session.name_filter`: whether a join with a
  rude name (app/edge/names.py) is refused there. True for every existing table and
  class: the filter is on unless the teacher switches it off when creating one.
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

TABLES = ("game_table", "class_session")


def upgrade() -> None:
    # A plain ADD COLUMN (with its default) on every database: SQLite's batch mode would
    # rebuild the tables that seats, events and notes reference.
    for table in TABLES:
        op.add_column(table, sa.Column("name_filter", sa.Boolean(), server_default=sa.true(), nullable=False))


def downgrade() -> None:
    for table in TABLES:
        if op.get_bind().dialect.name == "sqlite":
            import sqlite3
            if sqlite3.sqlite_version_info >= (3, 35):  # drops a column in place (no rebuild)
                op.execute(f"ALTER TABLE {table} DROP COLUMN name_filter")
                continue
            with op.batch_alter_table(table) as batch:
                batch.drop_column("name_filter")
        else:
            op.drop_column(table, "name_filter")
