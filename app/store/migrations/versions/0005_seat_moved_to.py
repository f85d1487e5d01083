"""re-seating after a match: a seat row records where its student moved on to

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01

* `seat.moved_to`: when the teacher moves a student from a class table whose
  match has ended to a waiting table, the student gets a new seat row there
  (which takes over the token) and the ended table keeps its row as the record
  of who played; `moved_to` is the new row's id. Null for every existing seat.
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seat") as batch:
        batch.add_column(sa.Column("moved_to", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seat") as batch:
        batch.drop_column("moved_to")
