"""${message}

Revision ID: ${up_revision}
Revises: ${down_revision | comma,n}
Create Date: ${create_date}

Runs on SQLite (inside `op.batch_alter_table` for anything ALTER TABLE cannot
do there) and PostgreSQL. Spell types with plain SQLAlchemy (sa.String, not
sqlmodel's AutoString) so the revision never depends on the models module.
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op
${imports if imports else ""}

revision = ${repr(up_revision)}
down_revision = ${repr(down_revision)}
branch_labels = ${repr(branch_labels)}
depends_on = ${repr(depends_on)}


def upgrade() -> None:
    ${upgrades if upgrades else "pass"}


def downgrade() -> None:
    ${downgrades if downgrades else "pass"}
