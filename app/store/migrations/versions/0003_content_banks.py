"""content banks: a teacher's uploaded content for a game (GameSpec.uploads)

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30

* `content_bank`: one row per uploaded bank (say, a file of quiz questions), kept
  per facilitator: the game and upload kind it is for, the teacher's name for
  it, the parsed items (JSON), their count and when it was uploaded. A new
  table only: nothing to backfill.
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "content_bank",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("facilitator_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=40), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("items", sa.JSON(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["facilitator_id"], ["facilitator.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_content_bank_facilitator_id", "content_bank", ["facilitator_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_content_bank_facilitator_id", table_name="content_bank")
    op.drop_table("content_bank")
