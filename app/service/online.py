"""Online matches (GameSpec.online): two players on two devices, no account.

`OnlineService.create(game, client)` makes a table without a facilitator with the
game's online options, seats its creator in seat 0 and locks it (no one joins with
the code). The creator receives a *resume secret*; everything else is derived from
it or from the opponent's own resume secret (app/edge/security.derive_token), and only
hashes are stored:

- seat token of seat N = derive(resume secret of N, "online", code, N); the seat row
  keeps its hash, as for any seat. Trading a resume secret for the seat token
  (`resume`) works any number of times, from any device: it restores that seat.
- invitation secret = derive(creator's resume secret, "online-invite", code); the
  table's `online` event keeps its hash (a later `online_link` event may replace it).
  `accept` seats the opponent in seat 1 once (a compare-and-swap on the table
  version: of two simultaneous acceptances one wins) with a fresh resume secret of
  their own, and starts the game. The creator's
  resume link shows the invitation again until it is used.

A player may replace their resume link (`new_link`, the match page's "New private
link"): a fresh resume secret, so a fresh seat token, whose hash replaces the seat's in
the same transaction as an `online_link` table event that keeps the old seat token's
hash (so the old link can say it was replaced) and, while the invitation is unused, the
new invitation's hash (the old invitation derived from the old link, so it goes too).
The event moves the table's version on, so every process's cached copy of the seats is
reloaded: the old token stops working everywhere at once.

Links carry a secret in their fragment (`/online/<CODE>#invite=…`, `#resume=…`),
which no request line carries; the page POSTs it and receives the seat token in the
answer. A match ends by the game's own rules or by its deadline timer (`time_up`,
fired by the timer loop or by `flask --app app matches expire`): such a match is
*expired* and its links say so.

Creating a match counts against the client's budget of tables opened without an
account (shared with guided demos: app/service/demo.py) and against ONLINE_GLOBAL_MAX
matches in play at once. Nothing here knows a game.
"""
from __future__ import annotations

import hmac
import time
from datetime import timezone

from sqlalchemy import func, select

from app import engines
from app.edge.security import check_polite, clean_name, derive_token, hash_token, new_token
from app.errors import ServiceError
from app.service.demo import DemoLimited, DemoService
from app.service.tables import AFTER_GAME, TableService, actor_name, checked
from app.store.models import Event, GameTable
from app.engines.text import NP_, N_

KIND = "online"           # the table event that marks an online match (it holds the invitation's hash)
LINK = "online_link"      # the table event of a replaced resume link (see `new_link`)
REPLACED = N_("This link was replaced; use your newest link.")
RETRIES = 8               # new links lost to simultaneous changes of the match before giving up
SECRET_MAX = 100          # a secret is 32 characters; anything much longer is not one
DEFAULTS = {"ONLINE_GLOBAL_MAX": 2000,   # online matches not yet ended, all clients together
            "ONLINE_EXPIRY_EVERY": 300}  # seconds between the timer loop's looks for unaccepted invitations


def seat_token(secret: str, code: str, seat: int) -> str:
    return derive_token(secret, "online", code, seat)


def invitation_secret(creator_secret: str, code: str) -> str:
    return derive_token(creator_secret, "online-invite", code)


class OnlineService:
    def __init__(self, tables: TableService, demos: DemoService, config: dict | None = None, limits=None):
        self.tables = tables
        self.demos = demos
        self.limits = limits
        self.config = {k: (config or {}).get(k, v) for k, v in DEFAULTS.items()}

    # ------------------------------------------------------------ helpers
    @staticmethod
    def spec_of(game):
        try:
            spec = engines.spec(game)
        except Exception:
            raise ServiceError("bad_request", N_("There is no such game."))
        if spec.online is None:
            raise ServiceError("bad_request", N_("{game} cannot be played as an online match.").format(game=spec.title))
        return spec

    def _marker(self, code: str) -> Event | None:
        return next((ev for ev in self.tables.events(code)
                     if ev.kind == "table" and ev.action.get("type") == KIND), None)

    def _invite_hash(self, code: str) -> str:
        """The hash of the invitation that works now: the newest one an event recorded."""
        return next((ev.action["invite"] for ev in reversed(self.tables.events(code))
                     if ev.kind == "table" and ev.action.get("type") in (KIND, LINK) and "invite" in ev.action), "")

    def is_online(self, code: str) -> bool:
        return self._marker(code) is not None

    def expired(self, code: str) -> bool:
        """The match ended because its deadline passed: its last change was a timer the
        clock fired (actor "system"), not a move."""
        table = self.tables.find(code)
        if table is None or table.status != "ended":
            return False
        # (not what came after the game: a player asking to play again, the rematch)
        last = [ev for ev in self.tables.events(code)
                if not (ev.kind == "table" and ev.action.get("type") in AFTER_GAME)][-1]
        return last.actor == "system" and (last.kind == "game" or last.action.get("type") == "expire")

    def expired_message(self, spec) -> str:
        return NP_("This match expired after {n} days without a move.", "This match expired after {n} days without a move.",
                   spec.online.expiry_days).format(n=spec.online.expiry_days)

    def _open_count(self) -> int:
        with self.tables.store.session() as s:
            return s.execute(select(func.count()).select_from(GameTable).where(
                GameTable.facilitator_id == None, GameTable.demo == False,  # noqa: E711,E712
                GameTable.status != "ended")).scalar_one()

    @staticmethod
    def _name(raw, default: str) -> str:
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            return default
        name = checked(clean_name, raw)
        if "<" in name or ">" in name:
            raise ServiceError("bad_request", N_("Use letters, digits and spaces in your name."))
        checked(check_polite, name)  # before a table is opened (a match's table always filters names)
        return name

    def _check(self, code: str, secret) -> tuple:
        """(table, spec, seats) of an online match, or a refusal."""
        if not isinstance(code, str) or not isinstance(secret, str):
            raise ServiceError("bad_request", N_("This link is incomplete: open the whole link again."))
        if not secret or len(secret) > SECRET_MAX or "\x00" in secret or "\x00" in code:
            raise ServiceError("bad_request", N_("This link is incomplete: open the whole link again."))
        table = self.tables.get(code)
        if table.facilitator_id is not None or self._marker(code) is None:
            raise ServiceError("unknown_table", N_("There is no online match with that code."))
        return table, engines.spec(table.game), self.tables.seats(code)

    # ------------------------------------------------------------- create
    def create(self, game, client: str, name=None) -> dict:
        """A new match with its creator in seat 0. Returns {code, seat, token, resume}
        (the resume secret; the invitation secret derives from it)."""
        spec = self.spec_of(game)
        name = self._name(name, spec.online.seats[0])
        if self._open_count() >= int(self.config["ONLINE_GLOBAL_MAX"]):
            raise DemoLimited("global", N_("Many online matches are being played right now. Please try again "
                                        "in a few minutes."))
        self.demos.admit(client)
        table = self.tables.create_table(None, spec.key, dict(spec.online.options), anonymous=True)
        resume = new_token()
        tables = self.tables
        with tables.store.session() as s:
            row = tables.store.table(s, table.code)
            _token, student, join = tables.seat_student(s, row, [], name)
            token = seat_token(resume, row.code, 0)
            student.token_hash = hash_token(token)
            tables.stage(s, row, **join)
            tables.stage(s, row, actor="system", kind="table",
                         action={"type": KIND, "invite": hash_token(invitation_secret(resume, row.code))},
                         log=[{"t": KIND, "text": N_("An online match: {name} has invited another player.").format(name=name)}],
                         changes={"locked": True})
            tables.commit(s)
        return {"code": table.code, "seat": 0, "token": token, "resume": resume}

    # ---------------------------------------------------------- invitation
    def _invitation(self, code: str, secret):
        table, spec, seats = self._check(code, secret)
        if not hmac.compare_digest(self._invite_hash(code), hash_token(secret)):
            raise ServiceError("forbidden", N_("This invitation link is not valid. Ask for the link again, and "
                                            "open all of it."))
        if self.expired(code):
            raise ServiceError("game_over", self.expired_message(spec))
        return table, spec, seats

    def _used(self, spec) -> ServiceError:
        return ServiceError("table_full", N_("This invitation has already been used: the match already has two {noun}. If you are one of them, "
                                             "open your own resume link.").format(noun=spec.online.noun))

    def invitation(self, code: str, secret) -> dict:
        """What an invitation link is worth now: {title, host, open}."""
        table, spec, seats = self._invitation(code, secret)
        return {"title": spec.title, "host": seats[0].name if seats else "", "noun": spec.online.noun,
                "open": table.status == "lobby" and len(seats) == 1, "default_name": spec.online.seats[1]}

    def accept(self, code: str, secret, name=None) -> dict:
        """Seat the invited player in seat 1 (once) and start the match.
        Returns {code, seat, token, resume}."""
        table, spec, seats = self._invitation(code, secret)
        if table.status != "lobby" or len(seats) != 1:
            raise self._used(spec)
        name = self._name(name, spec.online.seats[1])
        resume = new_token()
        tables = self.tables
        with tables.store.session() as s:
            row = tables.store.table(s, code)
            seats = tables.store.seats(s, row)
            if row.status != "lobby" or len(seats) != 1:
                raise self._used(spec)
            _token, student, join = tables.seat_student(s, row, seats, name)
            token = seat_token(resume, row.code, 1)
            student.token_hash = hash_token(token)
            try:
                tables.stage(s, row, **join)
                tables.commit(s)
            except ServiceError as exc:
                if exc.code == "stale":  # another acceptance got there first
                    raise self._used(spec)
                raise
        tables.start_now(code, actor="system")
        return {"code": code, "seat": 1, "token": token, "resume": resume}

    # -------------------------------------------------------------- resume
    def _seat_of(self, code: str, secret: str, seats):
        """The seat a resume secret holds now, or a refusal that says whether the link
        was replaced by a newer one or was never valid."""
        seat = next((x for x in seats if not x.computer and not x.kicked and hmac.compare_digest(
            x.token_hash, hash_token(seat_token(secret, code, x.seat_index)))), None)
        if seat is not None:
            return seat
        for ev in self.tables.events(code):
            index = ev.action.get("seat")
            if ev.kind == "table" and ev.action.get("type") == LINK and isinstance(index, int) and \
                    hmac.compare_digest(ev.action.get("replaced", ""), hash_token(seat_token(secret, code, index))):
                raise ServiceError("forbidden", REPLACED)
        raise ServiceError("forbidden", N_("This resume link is not valid for this match. Open the whole link "
                                        "again, exactly as you saved it."))

    def resume(self, code: str, secret) -> dict:
        """Trade a resume secret for its seat's token (any number of times). Returns
        {code, seat, name, token, title, noun, status, invite (the creator's, while it
        is unused, else None)}."""
        table, spec, seats = self._check(code, secret)
        seat = self._seat_of(code, secret, seats)
        if self.expired(code):
            raise ServiceError("game_over", self.expired_message(spec))
        invite = invitation_secret(secret, code) if seat.seat_index == 0 and table.status == "lobby" \
            and len(seats) == 1 else None
        return {"code": code, "seat": seat.seat_index, "name": seat.name, "token": seat_token(secret, code,
                                                                                              seat.seat_index),
                "title": spec.title, "noun": spec.online.noun, "status": table.status, "invite": invite,
                "opponent": next((x.name for x in seats if x.seat_index != seat.seat_index), None)}

    def new_link(self, code: str, secret) -> dict:
        """Replace a player's resume link with a new one: the old link, its seat token and
        (before the opponent came) its invitation stop working. Returns `resume`'s answer
        for the new link, with `replaced`: the old seat token's hash, whose connections
        the caller tells (app/realtime/notifier.py link_replaced)."""
        for _attempt in range(RETRIES):
            table, spec, seats = self._check(code, secret)
            seat = self._seat_of(code, secret, seats)  # after another new link won: "replaced"
            if self.expired(code):
                raise ServiceError("game_over", self.expired_message(spec))
            fresh = new_token()
            action = {"type": LINK, "seat": seat.seat_index, "replaced": seat.token_hash}
            if seat.seat_index == 0 and table.status == "lobby" and len(seats) == 1:
                action["invite"] = hash_token(invitation_secret(fresh, code))
            tables = self.tables
            with tables.store.session() as s:
                row = tables.store.table(s, code)
                student = next(x for x in tables.store.seats(s, row) if x.id == seat.id)
                student.token_hash = hash_token(seat_token(fresh, code, seat.seat_index))
                try:  # on the version read above: a move or another new link meanwhile means look again
                    if row.version != table.version:
                        continue
                    tables.stage(s, row, actor=actor_name(seat.seat_index), kind="table", action=action, log=[])
                    tables.commit(s)
                except ServiceError as exc:
                    if exc.code == "stale":
                        continue
                    raise
            return dict(self.resume(code, fresh), resume=fresh, replaced=seat.token_hash)
        raise ServiceError("rate_limited", N_("The match is busy; try again in a moment."))

    # -------------------------------------------------------------- expiry
    def expire(self, now: float | None = None) -> list[str]:
        """Fire the due deadline timers of online matches (a match waiting longer than
        its game allows ends). Returns the codes of the matches that expired."""
        now = time.time() if now is None else now
        expired = []
        for code, _due in self.tables.due_tables(now, limit=10_000):
            if not self.is_online(code):
                continue  # the server's timer loop fires other tables' timers
            self.tables.fire_due(code, now=now, check_db=True)
            if self.expired(code):
                expired.append(code)
        return expired + self.expire_unaccepted(now)

    def expire_unaccepted(self, now: float | None = None) -> list[str]:
        """Close the invitations nobody accepted within the game's expiry (a match
        nobody accepted has no game clock yet: it expires from its creation)."""
        now = time.time() if now is None else now
        expired = []
        with self.tables.store.session() as s:
            waiting = s.execute(select(GameTable).where(GameTable.facilitator_id == None,  # noqa: E711
                                                     GameTable.demo == False,  # noqa: E712
                                                     GameTable.status == "lobby")).scalars().all()
        for table in waiting:
            marker = self._marker(table.code)
            if marker is None:
                continue
            spec = engines.spec(table.game)
            created = marker.at.replace(tzinfo=marker.at.tzinfo or timezone.utc).timestamp()
            if now - created >= spec.online.expiry_days * 86400:
                if self.tables.close_unstarted(table.code, self.expired_message(spec)) is not None:
                    expired.append(table.code)
        return expired

    def expire_due(self) -> list[str]:
        """The timer loop's chore: `expire_unaccepted`, if no process has looked in the
        last ONLINE_EXPIRY_EVERY seconds (started matches expire by their own clock timer)."""
        if self.limits is not None and not self.limits.hit("online-expiry", "all", limit=1,
                                                           window=float(self.config["ONLINE_EXPIRY_EVERY"])):
            return []
        return self.expire_unaccepted()
