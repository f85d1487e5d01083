"""reports: the teacher's paper size, and refused moves for the playtest report

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30

* `facilitator.paper`: "a4" (every existing teacher) or "letter", the size of their
  printed debriefs, chosen on the dashboard.
* `refusal`: one row per move a game refused (its error code and action type), so
  the playtest report can show where players got confused.
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN (with its default) on every database: SQLite's batch mode would
    # rebuild `facilitator`, which the tables of every teacher reference.
    op.add_column("facilitator", sa.Column("paper", sa.String(length=8), nullable=False, server_default="a4"))
    op.create_table(
        "refusal",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("actor", sa.String(length=40), nullable=False),
        sa.Column("action_type", sa.String(length=40), nullable=False),
        sa.Column("code", sa.String(length=40), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["table_id"], ["game_table.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_refusal_table_id"), "refusal", ["table_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_refusal_table_id"), table_name="refusal")
    op.drop_table("refusal")
    if op.get_bind().dialect.name == "sqlite":
        import sqlite3
        if sqlite3.sqlite_version_info >= (3, 35):  # drops a column in place (no rebuild)
            op.execute("ALTER TABLE facilitator DROP COLUMN paper")
        else:
            with op.batch_alter_table("facilitator") as batch:
                batch.drop_column("paper")
    else:
        op.drop_column("facilitator", "paper")
