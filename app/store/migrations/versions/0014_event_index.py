"""events: no separate index on `table_id`

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-07

The unique constraint on (`table_id`, `version`) is an index that starts with
`table_id`, so it already serves every look-up of a table's events (replay, the
reports, the log tail). The second index, on `table_id` alone, only cost every move
one more index page to write (bench/bench_service.py).
"""
from __future__ import annotations

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_event_table_id", table_name="event")


def downgrade() -> None:
    op.create_index("ix_event_table_id", "event", ["table_id"])
