"""playtest notes from phones: the teacher's switch, per table and per class

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02

* `game_table.phone_notes`: its players' phones offer the playtest note box and the
  table takes their notes. On for existing tables (every phone had the box), except the
  tables of a class, which take their class's setting.
* `class_session.phone_notes`: the same for every table of the class. Off: a lesson
  is not a playtest, and the teacher turns it on from the class page.
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMNs on every database: SQLite's batch mode would rebuild the tables
    # that seats, events and notes reference.
    op.add_column("game_table", sa.Column("phone_notes", sa.Boolean(), server_default=sa.true(), nullable=False))
    op.add_column("class_session", sa.Column("phone_notes", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.execute(sa.text("UPDATE game_table SET phone_notes = :off WHERE class_id IS NOT NULL")
               .bindparams(off=False))


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
    for table in ("game_table", "class_session"):
        _drop(table, "phone_notes")
