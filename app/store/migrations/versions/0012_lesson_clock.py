"""the lesson clock: a lesson length per table and per class, and the class's clock

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02

* `game_table.lesson_minutes`: the table's lesson length (0: no lesson clock). Its clock
  starts at the deal, as the `lesson` timer in the table's `timers`.
* `class_session.lesson_minutes`: the same for a class; every table of the class runs
  to the class's clock.
* `class_session.lesson_due` (epoch seconds) while the class's clock runs, or
  `class_session.lesson_left` (seconds) while it is stopped (every table paused);
  both empty until the class starts.
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMNs on every database: SQLite's batch mode would rebuild the tables
    # that seats, events and notes reference.
    op.add_column("game_table", sa.Column("lesson_minutes", sa.Integer(), server_default="0", nullable=False))
    op.add_column("class_session", sa.Column("lesson_minutes", sa.Integer(), server_default="0", nullable=False))
    op.add_column("class_session", sa.Column("lesson_due", sa.Float(), nullable=True))
    op.add_column("class_session", sa.Column("lesson_left", sa.Float(), nullable=True))


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
    _drop("game_table", "lesson_minutes")
    for column in ("lesson_minutes", "lesson_due", "lesson_left"):
        _drop("class_session", column)
