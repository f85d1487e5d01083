"""The live copies: each table this process plays, kept in memory between moves.

The database stays the truth: a copy is loaded on first use, checked against the
row's version when a view is sent outside a change this process made (`current`),
and reloaded when a compare-and-swap is lost to another process (`with_live`).
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from datetime import timezone
from typing import Callable

from app import engines
from app.edge.security import hash_token
from app.errors import ServiceError
from app.service.tables.common import AFTER_GAME, LOG_TAIL, Live, Lost, Outcome, SeatInfo, SeatRef, actor_of
from app.store.models import ClassSession, GameTable
from app.store.tables import TableStore
from app.engines.text import N_

RETRIES = 8            # compare-and-swaps lost to other processes before giving up
LIVE_TABLES = 2000     # tables a process keeps in memory (a 400-phone school plays about 100)


class LiveTables:
    def __init__(self, store: TableStore):
        self.store = store
        self._live: OrderedDict[str, Live] = OrderedDict()  # least recently loaded first
        self._lock = threading.Lock()
        self._by_token: dict[str, str] = {}   # seat token hash -> table code (a cache)

    def __len__(self) -> int:
        return len(self._live)

    def __contains__(self, code: str) -> bool:
        return code in self._live

    def copies(self) -> list[Live]:
        """The live copies this process holds now (no database read)."""
        with self._lock:
            return list(self._live.values())

    def forget(self, code: str) -> None:
        with self._lock:
            self._live.pop(code, None)

    def forget_seat(self, token_hash: str) -> None:
        """The seat moved or was removed: look it up again next time."""
        self._by_token.pop(token_hash, None)

    def live(self, code: str, *, fresh: bool = False) -> Live:
        """The table's live copy, loaded on first use (or reloaded when `fresh`)."""
        if not fresh:
            live = self._live.get(code)
            if live is not None:
                return live
        live = self._load(code)
        with self._lock:
            known = self._live.get(code)
            if known is not None and known.version >= live.version and not fresh:
                return known
            self._live[code] = live
            self._live.move_to_end(code)
            while len(self._live) > LIVE_TABLES:  # a term of tables must not pile up in memory:
                self._live.popitem(last=False)    # the database has them; a forgotten one reloads
        return live

    def _load(self, code: str) -> Live:
        with self.store.session() as s:
            table = self.store.table(s, code)
            seats = self.store.seats(s, table)
            events = self.store.recent_events(s, table, LOG_TAIL)
            klass = s.get(ClassSession, table.class_id) if table.class_id else None
            # After the game: who asked to play again, and where everyone plays again (rematch.py).
            after = [ev for ev in self.store.table_events(s, table) if ev.action.get("type") in AFTER_GAME] \
                if table.status == "ended" else []
        state = table.state
        engine = engines.get(table.game)
        if state is not None and table.engine_version != engine.GAME.version and hasattr(engine, "upgrade"):
            state = engine.upgrade(state)  # a game saved by an earlier engine version plays on
        live = Live(id=table.id, code=table.code, game=table.game, status=table.status, version=table.version,
                    state=state, options=table.options, seed=table.seed, locked=table.locked,
                    paused=table.paused, timers=dict(table.timers or {}), next_due_at=table.next_due_at,
                    facilitator_id=table.facilitator_id,
                    demo=bool(table.demo), class_id=table.class_id, class_code=klass.code if klass else None,
                    engine_version=table.engine_version, data_versions=dict(table.data_versions or {}),
                    seats=[SeatInfo(x.id, x.seat_index, x.name, x.token_hash, x.computer, x.kicked, x.language or "")
                           for x in seats],
                    name_filter=table.name_filter, text_approval=table.text_approval,
                    phone_notes=table.phone_notes, texts=dict(table.texts or {}),
                    lesson_minutes=table.lesson_minutes or 0,
                    language=(klass.language if klass else table.language) or "en",  # a class's tables: its
                    again=frozenset(seat for ev in after
                                    if ev.action["type"] == "again" and ev.actor.startswith("seat:")
                                    for seat in ev.action.get("seats") or [actor_of(ev.actor)]),
                    successor=next((ev.action.get("to") for ev in after if ev.action["type"] == "rematch"
                                    and ev.action.get("to")), None))
        last_at = events[0].at if events else table.created_at
        # SQLite hands datetimes back without their zone; every stored time is UTC.
        live.last_at = last_at.replace(tzinfo=timezone.utc) if last_at.tzinfo is None else last_at
        entries = [dict(e, v=ev.version) for ev in reversed(events) for e in ev.log]
        live.log.extend(entries[-LOG_TAIL:])
        for x in seats:
            self._by_token[x.token_hash] = table.code
        return live

    def current(self, code: str) -> Live:
        """The live copy, checked against the database's version (a cheap read):
        for views sent outside a change this process made (watch, resume, stale)."""
        live = self.live(code)
        return live if self.in_step(live) else self.live(code, fresh=True)

    def in_step(self, live: Live) -> bool:
        """Whether the copy has the database's version (no other process wrote since)."""
        return self.store.version(live.id) == live.version

    def with_live(self, code: str, change: Callable[[Live], Outcome]) -> Outcome:
        """Run `change` under the table's lock; a lost compare-and-swap reloads and retries."""
        fresh = False
        for _ in range(RETRIES):
            live = self.live(code, fresh=fresh)
            with live.lock:
                if self._live.get(code) is not live:  # replaced while we waited for the lock
                    fresh = False
                    continue
                live.reloaded = fresh
                try:
                    return change(live)
                except Lost:
                    fresh = True
                    continue
                except ServiceError:
                    # A refusal read from our copy (paused, not your turn, stale...) must not
                    # rest on a change another process has already undone: check, then refuse.
                    if fresh or self.in_step(live):
                        raise
                    fresh = True
                    continue
        raise ServiceError("rate_limited", N_("The table is very busy; please try again."))

    # ------------------------------------------------------------------ seats
    def resume(self, token) -> SeatRef:
        if not isinstance(token, str) or not token or "\x00" in token:
            raise ServiceError("bad_request", N_("resume needs the seat token."))
        return self.seat_ref(hash_token(token), fresh=True)

    def cached_table(self, token_hash: str) -> str | None:
        """The table of a seat if this process holds that table in memory (no database read)."""
        code = self._by_token.get(token_hash)
        return code if code in self._live else None

    def seat_ref(self, token_hash: str, *, fresh: bool = False) -> SeatRef:
        """Where a seat (by token hash) sits now: it may have been moved or removed."""
        code = None if fresh else self._by_token.get(token_hash)
        if code is not None:
            live = self.live(code)
            seat = next((x for x in live.seats if x.token_hash == token_hash), None)
            # A student at a finished class match may have been re-seated at a new table
            # (its seat row stays behind, with another token) by another process: ask the database.
            if seat is not None and not seat.kicked and live.status != "ended":
                return SeatRef(table=code, seat=seat.index, name=seat.name, token_hash=token_hash)
        with self.store.session() as s:
            seat = self.store.seat_by_token(s, token_hash)
            if seat is None:
                raise ServiceError("not_joined", N_("That seat is not known here. Join again with the table code."))
            if seat.kicked:
                raise ServiceError("forbidden", N_("Your teacher removed you from this table."))
            table = s.get(GameTable, seat.table_id)
        self._by_token[token_hash] = table.code
        live = self.live(table.code)
        if live.version < table.version:
            live = self.live(table.code, fresh=True)
        return SeatRef(table=table.code, seat=seat.seat_index, name=seat.name, token_hash=token_hash)
