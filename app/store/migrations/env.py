"""Alembic environment for Classroom Games.

Alembic is configured in code (app/store/migrations/__init__.py), never from an
alembic.ini: the caller hands this script an open connection in
`config.attributes["connection"]`, inside the transaction (and, on PostgreSQL,
the advisory lock) that `app.store.migrations.upgrade` holds. Use
`flask --app app db upgrade|current|revision` rather than the `alembic` command.
"""
from __future__ import annotations

from alembic import context
from sqlalchemy.types import TypeDecorator
from sqlmodel import SQLModel

from app.store import models  # noqa: F401  (registers the tables on SQLModel.metadata)

config = context.config
connection = config.attributes.get("connection")
if connection is None or context.is_offline_mode():
    raise RuntimeError("Run migrations through app.store.migrations (flask --app app db upgrade), "
                       "which passes the connection in.")


def render_item(kind, obj, _autogen_context):
    """Autogenerate writes sqlmodel's column types (AutoString, UTCDateTime) as the
    plain SQLAlchemy types they store as, so revisions never import sqlmodel."""
    if kind == "type" and isinstance(obj, TypeDecorator) and type(obj).__module__.startswith("sqlmodel"):
        return f"sa.{obj.impl!r}"
    return False


context.configure(
    connection=connection,
    target_metadata=SQLModel.metadata,
    # SQLite cannot ALTER most things: batch mode rebuilds the table instead.
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
    render_item=render_item,
)
# The caller owns the transaction; this joins it.
with context.begin_transaction():
    context.run_migrations()
