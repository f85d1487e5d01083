"""guided demo tables: a table without a facilitator, and the demo flag

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30

* `game_table.facilitator_id` becomes nullable: a guided demo opened from the
  home page (GameSpec.demo) belongs to no facilitator and is deleted a day
  later. Every existing table keeps its facilitator.
* `game_table.demo`: whether the table is a guided demo (its computer seats
  join when its visitor does); false for every existing table.
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game_table") as batch:
        batch.alter_column("facilitator_id", existing_type=sa.Integer(), nullable=True)
        batch.add_column(sa.Column("demo", sa.Boolean(), server_default=sa.false(), nullable=False))


def downgrade() -> None:
    bind = op.get_bind()
    # A table without a facilitator cannot survive the old schema: the demos go first.
    orphans = sa.text("SELECT id FROM game_table WHERE facilitator_id IS NULL")
    for child in ("event", "note", "seat"):
        bind.execute(sa.text(f"DELETE FROM {child} WHERE table_id IN ({orphans.text})"))
    bind.execute(sa.text("DELETE FROM game_table WHERE facilitator_id IS NULL"))
    with op.batch_alter_table("game_table") as batch:
        batch.drop_column("demo")
        batch.alter_column("facilitator_id", existing_type=sa.Integer(), nullable=False)
