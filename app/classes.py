"""Class sessions: one code for a whole class, students seated into many tables.

The class code is accepted wherever a table code is (`join_any`): a student
joining with it is seated at one of the session's tables, and from then on
plays exactly as at a single table.
"""
from __future__ import annotations

from sqlmodel import Session, select

from app.models import ClassSession, GameTable
from app.tables import ServiceError, TableService


class ClassService:
    def __init__(self, db, tables: TableService):
        self.db = db
        self.tables = tables

    def _session(self) -> Session:
        return Session(self.db, expire_on_commit=False)

    def find(self, code: str) -> ClassSession | None:
        with self._session() as s:
            return s.exec(select(ClassSession).where(ClassSession.code == code)).first()

    def classes_of(self, facilitator_id: int) -> list[ClassSession]:
        with self._session() as s:
            return list(s.exec(select(ClassSession).where(ClassSession.facilitator_id == facilitator_id)
                               .order_by(ClassSession.created_at.desc())).all())

    def class_code_of_table(self, table_code: str) -> str | None:
        with self._session() as s:
            table = s.exec(select(GameTable).where(GameTable.code == table_code)).first()
            if table is None or table.class_id is None:
                return None
            klass = s.get(ClassSession, table.class_id)
            return klass.code if klass else None

    def join_any(self, code: str, name: str) -> dict:
        """`join` with a table code or a class code; returns {seat, token, table}."""
        klass = self.find(code)
        if klass is None:
            return self.tables.join(code, name)
        raise ServiceError("forbidden", "Class sessions are not open yet.")

    def overview(self, code: str) -> dict:
        return {}

    def public_overview(self, code: str) -> dict:
        return {}
