"""Local hotseat: one device plays every seat of a table (2 to 4 players).

The teacher names the players; `create` makes an ordinary table, seats every
name (the first is the starter), locks it (no one else can join) and returns a
one-time *hotseat secret*. The secret is not a seat token: each seat's token is
derived from it (HMAC-SHA256 of the table code and seat index, keyed by the
secret), and only the hashes of those derived tokens are stored, as for any seat.

The device receives the secret in the URL fragment (`/hotseat/<CODE>#<secret>`),
which browsers never send to the server, so it appears in no request line or
server log. The page posts it once to `claim`, which checks it against the
stored hashes and *rotates* every seat to a fresh random token: the answer
holds the new tokens, the device keeps them in localStorage and `resume`s each
seat over its own socket, and the link is dead from then on (a photographed QR
code is worth nothing). A teacher can make a new link (`relink`), which
replaces the seats' tokens again and so also retires a device that had them.

At the end, the device's *Play again* (static/js/hotseat.js) is one `again` for
every seat it holds (app/service/tables/rematch.py `ready`, `also`): the rematch is
dealt at once, every seat's token moves to the new table as a phone's does, and the
device follows it; the new table is a hotseat table too (`is_hotseat`).

Nothing here knows a game: any game whose spec allows two or more seats works.
"""
from __future__ import annotations

import hmac

from sqlalchemy import update

from app import engines
from app.edge.security import clean_name, derive_token, hash_token, name_key, new_token
from app.errors import ServiceError
from app.service.tables import TableService, checked
from app.store.models import Seat
from app.engines.text import N_

MIN_PLAYERS = 2
MAX_PLAYERS = 4
SECRET_MAX = 100  # a secret is 32 characters; anything much longer is not one
KIND = "hotseat"  # the table event that marks a hotseat table
REMATCHES_MAX = 200  # how far back `is_hotseat` follows a chain of rematches


def player_range(spec) -> tuple[int, int]:
    """How many players a hotseat table of this game takes (empty when lo > hi)."""
    return max(MIN_PLAYERS, spec.min_seats), min(MAX_PLAYERS, spec.max_seats)


def supports(spec) -> bool:
    lo, hi = player_range(spec)
    return lo <= hi


def derive(secret: str, code: str, seat: int) -> str:
    """The seat token a hotseat secret stands for (192 bits, URL-safe)."""
    return derive_token(secret, "hotseat", code, seat)


def clean_names(raw_names, spec) -> list[str]:
    """The players' names as a join would take them (control characters and NUL out,
    1-20 characters, distinct), blank fields skipped, and no HTML markup at all."""
    if not isinstance(raw_names, (list, tuple)):
        raise ServiceError("bad_request", N_("Type the players' names."))
    names = []
    for raw in raw_names:
        if not isinstance(raw, str) or "\x00" in raw:
            raise ServiceError("bad_request", N_("A name cannot contain a NUL character."))
        if not raw.strip():
            continue
        name = checked(clean_name, raw)
        if "<" in name or ">" in name:
            raise ServiceError("bad_request", N_("The name {name} contains < or >: use letters, digits and spaces.").format(name=repr(name)))
        names.append(name)
    lo, hi = player_range(spec)
    if lo > hi:
        raise ServiceError("bad_request", N_("{game} cannot be played by several people on one device.").format(game=spec.title))
    if not lo <= len(names) <= hi:
        raise ServiceError("bad_request", N_("Type {lo} to {hi} names for a {game} hotseat game ({n} given).").format(
            lo=lo, hi=hi, game=spec.title, n=len(names)))
    seen = set()
    for name in names:
        if name_key(name) in seen:
            raise ServiceError("name_taken", N_("Two players are called {name}: add an initial to one of them.").format(name=name))
        seen.add(name_key(name))
    return names


class HotseatService:
    def __init__(self, tables: TableService):
        self.tables = tables

    def create(self, facilitator_id: int, game: str, options: dict | None, raw_names,
               lesson_minutes=0) -> tuple[str, str]:
        """A locked table with every name seated, nothing started. Returns (code, secret).
        `lesson_minutes`: its lesson clock, from the deal (0: none)."""
        try:
            spec = engines.spec(game)
        except Exception:
            raise ServiceError("bad_request", N_("Choose a game that can be played."))
        names = clean_names(raw_names, spec)
        table = self.tables.create_table(facilitator_id, game, options, lesson_minutes=lesson_minutes)
        secret = new_token()
        tables = self.tables
        with tables.store.session() as s:
            row = tables.store.table(s, table.code)
            seated = []
            for name in names:
                _token, student, join = tables.seat_student(s, row, seated, name)
                student.token_hash = hash_token(derive(secret, row.code, student.seat_index))
                seated.append(student)
                tables.stage(s, row, **join)
            tables.stage(s, row, actor="facilitator", kind="table",
                         action={"type": KIND, "seats": names},
                         log=[{"t": KIND, "text": N_("Hotseat play on one device: {names}. No one else can join this table.").format(
                             names=", ".join(names))}],
                         changes={"locked": True})
            tables.commit(s)
        return table.code, secret

    def is_hotseat(self, code: str) -> bool:
        """A hotseat table, or the rematch (Play again, app/service/tables/rematch.py) of
        one: the device that held every seat holds them at the new table too."""
        for _ in range(REMATCHES_MAX):
            events = self.tables.events(code)
            if any(ev.kind == "table" and ev.action.get("type") == KIND for ev in events):
                return True
            code = next((ev.action.get("from") for ev in events
                         if ev.kind == "table" and ev.action.get("type") == "rematch" and ev.action.get("from")), None)
            if code is None:
                return False
        return False

    def claim(self, code: str, secret) -> list[dict]:
        """Trade the link's secret for the seats' tokens, once: every seat gets a fresh
        token and the secret stops working. Returns [{seat, name, token}]."""
        used = ServiceError("forbidden", N_("This hotseat link has already been used (or the teacher made a new "
                                         "one). Ask your teacher for a new hotseat link."))
        if not isinstance(secret, str) or not secret or len(secret) > SECRET_MAX or "\x00" in secret:
            raise ServiceError("bad_request", N_("This hotseat link is incomplete: open the whole link again."))
        tables = self.tables
        with tables.store.session() as s:
            row = tables.store.table(s, code)
            seats = tables.store.seats(s, row)
            if len(seats) < MIN_PLAYERS or any(x.computer or x.kicked for x in seats):
                raise used
            for x in seats:
                if not hmac.compare_digest(x.token_hash, hash_token(derive(secret, row.code, x.seat_index))):
                    raise used
            out = []
            for x in seats:
                token = new_token()
                done = s.execute(update(Seat).where(Seat.id == x.id, Seat.token_hash == x.token_hash)
                                 .values(token_hash=hash_token(token)))
                if done.rowcount != 1:  # another claim got there first
                    s.rollback()
                    raise used
                out.append({"seat": x.seat_index, "name": x.name, "token": token})
            try:
                tables.stage(s, row, actor="facilitator", kind="table", action={"type": "hotseat_claim"},
                             log=[{"t": "hotseat_claim", "visible_to": ["facilitator"],
                                   "text": N_("The hotseat device opened its link; the link cannot be used again.")}])
                tables.commit(s)
            except ServiceError as exc:
                if exc.code == "stale":
                    raise used
                raise
        return out

    def relink(self, facilitator_id: int, code: str) -> str:
        """A new one-time link for a hotseat table: the seats' tokens are replaced, so
        a device that had them (or an unused older link) no longer works. Returns the secret."""
        tables = self.tables
        tables.owned(code, facilitator_id)
        if not self.is_hotseat(code):
            raise ServiceError("bad_request", N_("This table is not a hotseat table."))
        secret = new_token()
        with tables.store.session() as s:
            row = tables.store.table(s, code)
            if row.status == "ended":
                raise ServiceError("game_over", N_("This game has ended."))
            for x in tables.store.seats(s, row):
                s.execute(update(Seat).where(Seat.id == x.id)
                          .values(token_hash=hash_token(derive(secret, row.code, x.seat_index))))
            tables.stage(s, row, actor="facilitator", kind="table", action={"type": "hotseat_link"},
                         log=[{"t": "hotseat_link", "visible_to": ["facilitator"],
                               "text": N_("The teacher made a new hotseat link; the previous one stopped working.")}])
            tables.commit(s)
        return secret
