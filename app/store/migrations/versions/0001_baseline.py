"""baseline: the schema create_all wrote before migrations existed

Revision ID: 0001
Revises:
Create Date: 2026-11-30

Exactly the tables of app/models.py at the commit before "Contract: GameSpec ...
schema: event kind, data versions, timers" (what every school database has).
Databases from that time have no alembic_version table: app.store.migrations stamps
them with this revision instead of running it.
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

# sqlmodel stores datetimes timezone-aware (TIMESTAMP WITH TIME ZONE on PostgreSQL).
Timestamp = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "facilitator",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("password_hash", sa.String(), nullable=False),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_facilitator_name", "facilitator", ["name"], unique=True)

    op.create_table(
        "setuptoken",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(), nullable=False),
        sa.Column("used", sa.Boolean(), nullable=False),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_setuptoken_token_hash", "setuptoken", ["token_hash"], unique=True)

    op.create_table(
        "apitoken",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("facilitator_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(), nullable=False),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.ForeignKeyConstraint(["facilitator_id"], ["facilitator.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_apitoken_facilitator_id", "apitoken", ["facilitator_id"], unique=False)
    op.create_index("ix_apitoken_token_hash", "apitoken", ["token_hash"], unique=True)

    op.create_table(
        "class_session",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(length=8), nullable=False),
        sa.Column("game", sa.String(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("table_size", sa.Integer(), nullable=False),
        sa.Column("fill_with_computer", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("facilitator_id", sa.Integer(), nullable=False),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.ForeignKeyConstraint(["facilitator_id"], ["facilitator.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_class_session_code", "class_session", ["code"], unique=True)
    op.create_index("ix_class_session_facilitator_id", "class_session", ["facilitator_id"], unique=False)

    op.create_table(
        "game_table",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(length=8), nullable=False),
        sa.Column("game", sa.String(), nullable=False),
        sa.Column("engine_version", sa.String(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("state", sa.JSON(), nullable=True),
        sa.Column("locked", sa.Boolean(), nullable=False),
        sa.Column("paused", sa.Boolean(), nullable=False),
        sa.Column("facilitator_id", sa.Integer(), nullable=False),
        sa.Column("class_id", sa.Integer(), nullable=True),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.Column("updated_at", Timestamp, nullable=False),
        sa.ForeignKeyConstraint(["facilitator_id"], ["facilitator.id"]),
        sa.ForeignKeyConstraint(["class_id"], ["class_session.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_game_table_facilitator_id", "game_table", ["facilitator_id"], unique=False)
    op.create_index("ix_game_table_class_id", "game_table", ["class_id"], unique=False)
    op.create_index("ix_game_table_code", "game_table", ["code"], unique=True)

    op.create_table(
        "event",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("actor", sa.String(), nullable=False),
        sa.Column("action", sa.JSON(), nullable=False),
        sa.Column("log", sa.JSON(), nullable=False),
        sa.Column("at", Timestamp, nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("table_id", "version"),
        sa.ForeignKeyConstraint(["table_id"], ["game_table.id"]),
    )
    op.create_index("ix_event_table_id", "event", ["table_id"], unique=False)

    op.create_table(
        "note",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("game_version", sa.String(), nullable=False),
        sa.Column("author", sa.String(length=40), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("at", Timestamp, nullable=False),
        sa.ForeignKeyConstraint(["table_id"], ["game_table.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_note_table_id", "note", ["table_id"], unique=False)

    op.create_table(
        "seat",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("seat_index", sa.Integer(), nullable=True),
        sa.Column("name", sa.String(length=20), nullable=False),
        sa.Column("token_hash", sa.String(), nullable=False),
        sa.Column("kicked", sa.Boolean(), nullable=False),
        sa.Column("computer", sa.Boolean(), nullable=False),
        sa.Column("joined_at", Timestamp, nullable=False),
        sa.ForeignKeyConstraint(["table_id"], ["game_table.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_seat_table_id", "seat", ["table_id"], unique=False)
    op.create_index("ix_seat_token_hash", "seat", ["token_hash"], unique=True)


def downgrade() -> None:
    for table in ("seat", "note", "event", "game_table", "class_session", "apitoken", "setuptoken", "facilitator"):
        op.drop_table(table)
