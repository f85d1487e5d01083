"""Play again: the same players, a new deal, at a new table.

When a game has ended, each player's phone offers *Play again*. A tap (`ready`) is a
table event of the ended table (`again`, by that seat), so every process and every
screen counts the same "2 of 3 want to play again"; the tap of the last human player
still seated deals the rematch. The teacher's *Play again* (the moderation action
`again`, moderation.py) deals it at once. A computer seat is always ready.

The rematch (`deal`) is a NEW table (a new code): the same game, options and table
settings (facilitator, class, name filter, text approval, phone notes, lock, demo),
the same seats in the same order with the same names. One transaction writes it:
the new table and its seats, each human seat's token moved to its new seat (as a
class re-seats a student after a match, app/service/classes/seats.py `move_seats`:
the ended table keeps its row, name and seat number, with a fresh token nobody
holds and `moved_to` naming the new row), the event that records where everyone
went (`rematch`, which the ended table's views carry as `again.next`: its board and
teacher's page follow), and the class row's version (its overview reads its tables
again). Then the new table starts through the move path (a timer for its computers
and its first views). A student the teacher removed is not carried over: a computer
plays that chair. The ended game's state and events stay as they were; the events
after it (`AFTER_GAME`) are left out of its report.
"""
from __future__ import annotations

from typing import Callable

from sqlalchemy import update
from sqlmodel import select

from app import engines
from app.edge.security import hash_token, name_key, new_code, new_token
from app.errors import ServiceError
from app.service import student_text
from app.service.tables.common import Live, Lost, Outcome, actor_name, guided_demo, people
from app.service.tables.live import LiveTables
from app.service.tables.lobby import Lobby
from app.service.tables.moves import Moves
from app.service.tables.views import Views
from app.store.models import ClassSession, GameTable, Seat
from app.engines.text import N_

COMPUTER = "Computer"


class Rematch:
    def __init__(self, cache: LiveTables, moves: Moves, views: Views, lobby: Lobby):
        self.cache = cache
        self.store = cache.store
        self.moves = moves
        self.views = views
        self.lobby = lobby

    # ------------------------------------------------------------ a player's tap
    def ready(self, token_hash: str, *, admit: Callable[[], None] | None = None,
              also: tuple[str, ...] = ()) -> Outcome:
        """The player holding this seat token wants to play again. Returns the ended
        table's outcome (everyone sees the count), which carries the new table's start
        in `follow` when this was the last player to agree. `admit` is asked first at a
        table without a teacher (the budget of tables opened without an account).

        `also`: the token hashes of the other seats of this table that the same device
        holds (a shared hotseat device, app/service/hotseat.py, holds them all): one tap
        says every one of them is ready, in one event (`seats` lists them), so the device
        that holds every seat deals the rematch at once."""
        ref = self.cache.seat_ref(token_hash)
        hashes = list(dict.fromkeys((token_hash, *also)))

        def change(live: Live) -> Outcome:
            mine = [next((x for x in live.seats if x.token_hash == h), None) for h in hashes]
            if any(seat is None or seat.kicked for seat in mine):
                raise ServiceError("forbidden", N_("Your seat changed meanwhile; reload the page."))
            self.check(live)
            seat, fresh = mine[0], [x for x in mine if x.index not in live.again]
            if not fresh:
                raise ServiceError("illegal", N_("You are ready to play again: waiting for the others."))
            ready = live.again | {x.index for x in fresh}
            if admit is not None and live.facilitator_id is None:
                admit()
            if all(x.index in ready for x in people(live)):
                return self.deal(live, by=actor_name(seat.index))
            live.again = frozenset(ready)  # before the write: its views count this player (a lost write reloads)
            action = {"type": "again"} if len(mine) == 1 else {"type": "again", "seats": [x.index for x in fresh]}
            return self.moves.write(live, actor=actor_name(seat.index), kind="table", action=action,
                                    log=[{"t": "again", "seat": x.index, "text": N_("{name} wants to play again.").format(name=x.name)}
                                         for x in fresh])

        return self.cache.with_live(ref.table, change)

    def check(self, live: Live) -> None:
        """Refuse Play again where it has no meaning, with the reason."""
        if live.status != "ended":
            raise ServiceError("illegal", N_("Play again is offered once this game has ended."))
        if live.state is None:
            raise ServiceError("illegal", N_("This table was closed before its game started: there is nothing "
                                          "to play again."))
        if live.successor is not None:
            raise ServiceError("illegal", N_("Everyone already plays again at table {code}.").format(code=live.successor))
        if guided_demo(live):
            raise ServiceError("illegal", N_("The guided demo is over: ask your teacher for a game code, or "
                                          "start a game from the home page."))
        if not people(live):
            raise ServiceError("illegal", N_("No player is left at this table to play again."))

    # ------------------------------------------------------------ the rematch
    def deal(self, live: Live, *, by: str) -> Outcome:
        """Open the rematch of this ended table (under its lock, in `with_live`) and start it.
        Returns the ended table's outcome, with the new table's in `follow`."""
        self.check(live)
        spec = engines.spec(live.game)
        moved: list[str] = []
        with self.store.session() as s:
            old = self.store.table(s, live.code)
            if old.version != live.version:
                raise Lost()  # another process wrote meanwhile: look again
            if old.class_id is not None:
                klass = s.get(ClassSession, old.class_id)
                if klass is None or klass.status == "ended":
                    raise ServiceError("game_over", N_("This class session has ended."))
                # The class's overviews read its tables again (a new one joined them).
                s.execute(update(ClassSession).where(ClassSession.id == klass.id)
                          .values(version=ClassSession.version + 1))
            code = new_code()
            while s.exec(select(GameTable.id).where(GameTable.code == code)).first() is not None:
                code = new_code()
            new = GameTable(code=code, game=old.game, engine_version=spec.version,
                            data_versions=dict(spec.data_versions), options=dict(old.options),
                            seed=self.lobby.deals.next("rematch", old.seed), facilitator_id=old.facilitator_id, class_id=old.class_id,
                            demo=old.demo, name_filter=old.name_filter, text_approval=old.text_approval,
                            phone_notes=old.phone_notes, locked=old.locked, lesson_minutes=old.lesson_minutes,
                            language=old.language)
            s.add(new)
            s.flush()
            seats = self.store.seats(s, old)
            taken = {name_key(x.name) for x in seats if not x.kicked}
            hidden = {}
            for x in seats:
                if x.kicked:  # a removed student is not carried over: a computer takes the chair
                    name, number = COMPUTER, 2
                    while name_key(name) in taken:
                        name, number = f"{COMPUTER} {number}", number + 1
                    taken.add(name_key(name))
                    s.add(Seat(table_id=new.id, seat_index=x.seat_index, name=name,
                               token_hash=hash_token(new_token()), computer=True))
                elif x.computer:  # nobody ever holds a computer seat's token
                    s.add(Seat(table_id=new.id, seat_index=x.seat_index, name=x.name,
                               token_hash=hash_token(new_token()), computer=True))
                else:  # the student's token sits down at the new table; the record keeps a token nobody holds
                    token_hash = x.token_hash
                    x.token_hash = hash_token(new_token())
                    s.add(x)
                    s.flush()  # free the unique token hash before the new row takes it
                    seat = Seat(table_id=new.id, seat_index=x.seat_index, name=x.name, token_hash=token_hash,
                                language=x.language)
                    s.add(seat)
                    s.flush()
                    x.moved_to = seat.id
                    s.add(x)
                    moved.append(token_hash)
                    name = (old.texts or {}).get(student_text.name_ref(x.id))
                    if name and name["hidden"]:  # a name the teacher hid stays hidden in the new game
                        hidden[student_text.name_ref(seat.id)] = dict(name)
            names = [x.name for x in seats]
            self.store.stage(s, new, actor=by, action={"type": "rematch", "from": old.code, "seats": names},
                             log=[{"t": "rematch", "text": N_("The players of table {code} play again.").format(code=old.code)}],
                             changes={"texts": hidden} if hidden else None)
            self.store.stage(s, old, actor=by, action={"type": "rematch", "to": new.code},
                             log=[{"t": "rematch", "text": N_("Everyone plays again at table {code}.").format(code=new.code)}])
            self.lobby.commit(s)
        for token_hash in moved:
            self.cache.forget_seat(token_hash)
        try:
            started = self.lobby.start_now(new.code, actor="system")
        except ServiceError:  # (the same seats and options started before) its first seat can start it
            started = self.views.refresh(new.code)
        ended = self.views.refresh(live.code)
        ended.follow.append(started)
        return ended
