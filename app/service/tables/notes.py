"""Playtest notes: what the teacher, a seat or the board writes down about a table."""
from __future__ import annotations

from app.edge.security import check_polite, clean_note
from app.errors import ServiceError
from app.service import student_text
from app.service.tables.common import checked
from app.store.models import Note
from app.store.tables import TableStore
from app.engines.text import N_

NOTE_ROLES = ("teacher", "seat", "board")


class Notes:
    def __init__(self, store: TableStore):
        self.store = store

    def add_note(self, code: str, text, *, role: str, author: str, seat: int | None = None) -> Note:
        """A playtest note, by its author's role (the connection's, never its name):
        a seat's note is the table's to read (student text: filtered, and the teacher may
        hide it or must first approve it); the teacher's and the board's are the teacher's
        alone (app/service/student_text.py `note_readable`). A seat may write one only while
        the teacher lets the phones write notes (`phone_notes`: a phone left open on an old
        view, or a hand-made client, is refused)."""
        if role not in NOTE_ROLES:
            raise ValueError(f"unknown note role {role!r}")
        text = checked(clean_note, text)
        with self.store.session() as s:
            table = self.store.table(s, code)
            if role == "seat" and not table.phone_notes:
                raise ServiceError("forbidden", N_("Your teacher has not turned on playtest notes for this table."))
            if role != "teacher" and table.name_filter:
                checked(lambda t: check_polite(t, "note"), text)
            note = Note(table_id=table.id, version=table.version, game_version=table.engine_version,
                        author=author[:40], text=text, role=role, seat=seat if role == "seat" else None,
                        audience="table" if role == "seat" else "teacher",
                        approved=role != "seat" or not table.text_approval)
            s.add(note)
            s.commit()
            return note

    def notes_for(self, code: str, reader) -> list[Note]:
        """The table's notes `reader` may read: "teacher", a seat index or "board"."""
        return [n for n in self.store.notes(code) if student_text.note_readable(n, reader)]
