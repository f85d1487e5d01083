"""Storage: SQLModel tables. The services write them: a table through app/store/tables.py
(the cold path) or the move path (app/service/tables/moves.py).

A game table is event-sourced: `GameTable.state` is the snapshot and
`GameTable.version` its version; every accepted change appends one `Event`
in the same transaction that compare-and-swaps the snapshot.
"""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Optional

import sqlalchemy as sa
from sqlalchemy import JSON, BigInteger, Column, Text, UniqueConstraint
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class Facilitator(SQLModel, table=True):
    id: Optional[int] = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True, max_length=40)
    password_hash: str
    created_at: datetime = Field(default_factory=utcnow)
    # The paper size of this teacher's printed reports: "a4" or "letter" (chosen on the dashboard).
    paper: str = Field(default="a4", max_length=8, sa_column_kwargs={"server_default": "a4"})
    # Stored in the login cookie and compared on every request: logging out bumps it,
    # so every cookie issued before (a copied one too) stops working.
    session_epoch: int = Field(default=0, sa_column_kwargs={"server_default": "0"})


class ApiToken(SQLModel, table=True):
    """A facilitator's bearer token for the JSON API and the Socket.IO `auth`."""

    id: Optional[int] = Field(default=None, primary_key=True)
    facilitator_id: int = Field(foreign_key="facilitator.id", index=True)
    token_hash: str = Field(index=True, unique=True)
    created_at: datetime = Field(default_factory=utcnow)
    # API_TOKEN_DAYS after it was issued; revoking deletes the row.
    expires_at: Optional[datetime] = None
    last_used_at: Optional[datetime] = None


class SetupToken(SQLModel, table=True):
    """The one-time link printed on first start to create the first facilitator."""

    id: Optional[int] = Field(default=None, primary_key=True)
    token_hash: str = Field(index=True, unique=True)
    used: bool = False
    created_at: datetime = Field(default_factory=utcnow)


class ClassSession(SQLModel, table=True):
    """One code for a whole class; students are seated into its tables."""

    __tablename__ = "class_session"
    id: Optional[int] = Field(default=None, primary_key=True)
    code: str = Field(index=True, unique=True, max_length=8)
    game: str
    options: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    table_size: int = 4
    fill_with_computer: bool = False
    # Refuse rude names (app/edge/names.py) at its tables: the teacher's choice, on by default.
    name_filter: bool = Field(default=True, sa_column_kwargs={"server_default": sa.true()})
    # Its tables hold student text back from the board and other phones until the teacher approves it.
    text_approval: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    # Its students' phones offer the playtest note box: off until the teacher turns it on
    # (a lesson is not a playtest); each of its tables carries the choice (GameTable.phone_notes).
    phone_notes: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    status: str = "lobby"  # lobby | playing | ended
    version: int = 0
    facilitator_id: int = Field(foreign_key="facilitator.id", index=True)
    created_at: datetime = Field(default_factory=utcnow)
    # The class's lesson clock (app/service/tables/lesson.py): its length (0: none), then, from the
    # class's start, its due time (epoch seconds) while it runs, or the seconds left while it is
    # stopped (every table paused). Every table of the class runs its `lesson` timer to it.
    lesson_minutes: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    lesson_due: Optional[float] = None
    lesson_left: Optional[float] = None
    language: str = Field(default="en", max_length=8, sa_column_kwargs={"server_default": "en"})  # its boards' (app/i18n)


class GameTable(SQLModel, table=True):
    __tablename__ = "game_table"
    id: Optional[int] = Field(default=None, primary_key=True)
    code: str = Field(index=True, unique=True, max_length=8)
    game: str
    engine_version: str
    # The data files' versions the table was created with: {file: version}.
    data_versions: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False, server_default="{}"))
    options: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))  # 62 random bits
    status: str = "lobby"  # lobby | playing | ended
    version: int = 0
    state: Optional[dict] = Field(default=None, sa_column=Column(JSON, nullable=True))
    locked: bool = False
    paused: bool = False
    # Scheduled system actions (DESIGN.md "Time"): {key: {"due": epoch seconds or
    # None while paused, "left": seconds left when paused, "actor", "action"}};
    # `next_due_at` is the earliest due time, indexed so any process can find it.
    timers: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False, server_default="{}"))
    next_due_at: Optional[float] = Field(default=None, index=True)
    # None only for a guided demo opened from the home page: no one moderates it and
    # it is deleted a day later (app/service/demo.py).
    facilitator_id: Optional[int] = Field(default=None, foreign_key="facilitator.id", index=True)
    class_id: Optional[int] = Field(default=None, foreign_key="class_session.id", index=True)
    # A guided demo (GameSpec.demo): its computer seats join when its visitor does.
    demo: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    # Refuse rude names (app/edge/names.py) at this table: the teacher's choice, on by default.
    name_filter: bool = Field(default=True, sa_column_kwargs={"server_default": sa.true()})
    # Student text reaches the board and other phones only once the teacher approves it.
    text_approval: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    # Its players' phones offer the playtest note box and the table takes their notes. On for a
    # teacher's own table (a playtest, as before this setting); a class table takes its class's.
    phone_notes: bool = Field(default=True, sa_column_kwargs={"server_default": sa.true()})
    # The student texts typed into game actions, by ref ("e<version>"): {seat, field, text,
    # hidden, approved} (app/service/student_text.py). Written in the same transaction as the event.
    texts: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False, server_default="{}"))
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    # When the retention clean-up replaced its students' names by "Player N" (app/service/privacy.py):
    # set once, so a cleaned table is never rewritten again.
    names_removed_at: Optional[datetime] = None
    # The table's lesson length in minutes (0: no lesson clock): its `lesson` timer starts at the
    # deal (app/service/tables/lesson.py). A class table runs to its class's clock instead.
    lesson_minutes: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    # The projected board's language (app/i18n); a class table takes its class's.
    language: str = Field(default="en", max_length=8, sa_column_kwargs={"server_default": "en"})


class Seat(SQLModel, table=True):
    """A student's place at a table. `seat_index` is the engine's seat number;
    a seat removed in the lobby keeps its row (so its token stays refused) but
    loses its index. A student the teacher re-seats after their match ended gets
    a new row at the new table, which takes over the token; the ended table's row
    stays as its record of who played, with a token nobody holds and `moved_to`
    naming the new row (app/service/classes/seats.py `move_seats`)."""

    id: Optional[int] = Field(default=None, primary_key=True)
    table_id: int = Field(foreign_key="game_table.id", index=True)
    seat_index: Optional[int] = None
    name: str = Field(max_length=20)
    token_hash: str = Field(index=True, unique=True)
    kicked: bool = False
    computer: bool = False  # the computer plays this seat (removed student or filler)
    moved_to: Optional[int] = None  # the seat row this student moved on to after the match ended
    language: str = Field(default="", max_length=8, sa_column_kwargs={"server_default": ""})  # its phone's (app/i18n)
    joined_at: datetime = Field(default_factory=utcnow)


class Event(SQLModel, table=True):
    # The unique (table_id, version) index serves every look-up by table: no index of its own.
    __table_args__ = (UniqueConstraint("table_id", "version"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    table_id: int = Field(foreign_key="game_table.id")
    version: int
    # "table" (join, start, lock, kick, move, …: the platform's) or "game"
    # (an engine action, a fired timer included): replay dispatches on this.
    kind: str = Field(default="game", max_length=8, sa_column_kwargs={"server_default": "game"})
    actor: str  # "seat:N", "seat:N:auto", "facilitator", "system"
    action: dict = Field(sa_column=Column(JSON, nullable=False))
    log: list = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    at: datetime = Field(default_factory=utcnow)


class Note(SQLModel, table=True):
    """A playtest note. Who wrote it is recorded by the connection's role, never guessed
    from `author` (a name anyone can type); who may read it is `audience`
    (app/service/student_text.py `note_readable`)."""

    id: Optional[int] = Field(default=None, primary_key=True)
    table_id: int = Field(foreign_key="game_table.id", index=True)
    version: int
    game_version: str
    author: str = Field(max_length=40)
    text: str = Field(sa_column=Column(Text, nullable=False))
    at: datetime = Field(default_factory=utcnow)
    role: str = Field(default="seat", max_length=8, sa_column_kwargs={"server_default": "seat"})  # teacher|seat|board
    seat: Optional[int] = None  # the author's seat index, for a seat's note
    # "teacher": the teacher alone; "table": the teacher, the table's players and its board.
    audience: str = Field(default="teacher", max_length=8, sa_column_kwargs={"server_default": "teacher"})
    hidden: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    approved: bool = Field(default=True, sa_column_kwargs={"server_default": sa.true()})


class Refusal(SQLModel, table=True):
    """A move the game refused (an illegal action, not your turn...): where players got
    confused, for the playtest report. A stale move is not a refusal (the phone retries)."""

    id: Optional[int] = Field(default=None, primary_key=True)
    table_id: int = Field(foreign_key="game_table.id", index=True)
    version: int
    actor: str = Field(max_length=40)
    action_type: str = Field(max_length=40)
    code: str = Field(max_length=40)
    at: datetime = Field(default_factory=utcnow)


class ContentBank(SQLModel, table=True):
    """A teacher's uploaded content for a game (a bank of quiz questions, say): the
    parsed items, validated by the game's `Upload.parse`, chosen later when the
    teacher creates a table or a class. A table keeps its own copy in its options,
    so deleting a bank never changes a game already created with it."""

    __tablename__ = "content_bank"
    id: Optional[int] = Field(default=None, primary_key=True)
    facilitator_id: int = Field(foreign_key="facilitator.id", index=True)
    game: str = Field(max_length=40)
    kind: str = Field(max_length=40)
    name: str = Field(max_length=80)
    items: list = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    count: int = 0
    created_at: datetime = Field(default_factory=utcnow)


JsonDict = dict[str, Any]
