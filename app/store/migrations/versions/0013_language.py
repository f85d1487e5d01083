"""languages: a seat's reader's, a table's and a class's board's

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03

* `seat.language`: the language its student's phone reads ("" until a phone says;
  app/i18n). Every view built for the seat, in any process, is in it.
* `game_table.language`, `class_session.language`: the language the teacher chose for
  the projected board (and a class's tables), "en" for every existing one.
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMNs on every database: SQLite's batch mode would rebuild the tables
    # that seats, events and notes reference.
    op.add_column("seat", sa.Column("language", sa.String(length=8), server_default="", nullable=False))
    op.add_column("game_table", sa.Column("language", sa.String(length=8), server_default="en", nullable=False))
    op.add_column("class_session", sa.Column("language", sa.String(length=8), server_default="en", nullable=False))


def _drop(table: str, column: str) -> None:
    if op.get_bind().dialect.name == "sqlite":
        import sqlite3
        if sqlite3.sqlite_version_info >= (3, 35):  # drops a column in place (no rebuild)
            op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
            return
        with op.batch_alter_table(table) as batch:
            batch.drop_column(column)
    else:
        op.drop_column(table, column)


def downgrade() -> None:
    for table in ("seat", "game_table", "class_session"):
        _drop(table, "language")
