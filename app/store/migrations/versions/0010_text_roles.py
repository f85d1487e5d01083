"""text roles: who wrote a note and who may read it; the teacher's say over student text

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01

* `note.role` ("teacher", "seat" or "board"), `note.seat` (the author's seat, for a
  seat's note) and `note.audience` ("teacher": the teacher alone; "table": the
  teacher, the table's players and its board). The old code guessed a teacher's
  note from its author's name ("Facilitator ..."), which a student could forge,
  so every existing note is classified the safe way: private to the teacher
  (`audience` "teacher"); `role` keeps the old guess for the teacher's reports.
* `note.hidden` and `note.approved`: the teacher hid the note from the table, or
  (at a table that holds student text for approval) let it through. False and true
  for existing notes.
* `game_table.texts`: the table's student texts typed into game actions (a
  Crisis explanation, words of power) with the teacher's hide and approval, {}
  for existing tables.
* `game_table.text_approval` and `class_session.text_approval`: student text
  reaches the board and other phones only once the teacher approves it. Off for
  existing tables and classes.
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

NOTE_COLUMNS = ("role", "seat", "audience", "hidden", "approved")


def upgrade() -> None:
    # Plain ADD COLUMNs on every database: SQLite's batch mode would rebuild the tables
    # that seats, events and notes reference.
    op.add_column("note", sa.Column("role", sa.String(length=8), server_default="seat", nullable=False))
    op.add_column("note", sa.Column("seat", sa.Integer(), nullable=True))
    op.add_column("note", sa.Column("audience", sa.String(length=8), server_default="teacher", nullable=False))
    op.add_column("note", sa.Column("hidden", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.add_column("note", sa.Column("approved", sa.Boolean(), server_default=sa.true(), nullable=False))
    op.execute("UPDATE note SET role = 'teacher' WHERE author LIKE 'Facilitator %'")
    op.add_column("game_table", sa.Column("texts", sa.JSON(), server_default="{}", nullable=False))
    for table in ("game_table", "class_session"):
        op.add_column(table, sa.Column("text_approval", sa.Boolean(), server_default=sa.false(), nullable=False))


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
    for column in NOTE_COLUMNS:
        _drop("note", column)
    _drop("game_table", "texts")
    for table in ("game_table", "class_session"):
        _drop(table, "text_approval")
