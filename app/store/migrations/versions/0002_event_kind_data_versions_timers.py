"""event kind; a table's data versions, timers and next due time

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30

* `event.kind`: "table" for the platform's own events, "game" for engine
  actions, so replay never confuses the two. Old events are classified by their
  action type: join, kick, lock, unlock, pause, resume, move, computers and
  start were table events already (the service's SERVICE_ONLY_ACTIONS plus the
  start), and so is every facilitator `end` (the platform replays it as the
  engine's `finish`). Everything else (reveal, autoplay, ...) was an engine action.
* `game_table.data_versions` and `game_table.timers`: JSON, `{}` for old tables.
* `game_table.next_due_at`: when the earliest timer fires, indexed; NULL.
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

TABLE_EVENT_TYPES = ("join", "kick", "lock", "unlock", "pause", "resume", "move", "computers", "start", "end")


def upgrade() -> None:
    with op.batch_alter_table("event") as batch:
        batch.add_column(sa.Column("kind", sa.String(length=8), server_default="game", nullable=False))
    with op.batch_alter_table("game_table") as batch:
        batch.add_column(sa.Column("data_versions", sa.JSON(), server_default="{}", nullable=False))
        batch.add_column(sa.Column("timers", sa.JSON(), server_default="{}", nullable=False))
        batch.add_column(sa.Column("next_due_at", sa.Float(), nullable=True))
        batch.create_index("ix_game_table_next_due_at", ["next_due_at"], unique=False)
    _classify_old_events()


def _classify_old_events() -> None:
    bind = op.get_bind()
    types = sa.bindparam("types", list(TABLE_EVENT_TYPES), expanding=True)
    if bind.dialect.name == "sqlite":
        bind.execute(sa.text("UPDATE event SET kind = 'table' "
                             "WHERE json_extract(action, '$.type') IN :types").bindparams(types))
    elif bind.dialect.name == "postgresql":
        bind.execute(sa.text("UPDATE event SET kind = 'table' "
                             "WHERE (action ->> 'type') IN :types").bindparams(types))
    else:
        raise NotImplementedError(f"0002 supports SQLite and PostgreSQL, not {bind.dialect.name}.")


def downgrade() -> None:
    with op.batch_alter_table("game_table") as batch:
        batch.drop_index("ix_game_table_next_due_at")
        batch.drop_column("next_due_at")
        batch.drop_column("timers")
        batch.drop_column("data_versions")
    with op.batch_alter_table("event") as batch:
        batch.drop_column("kind")
