"""The table service: create, join, act, moderate, note, fire timers, replay.

One move is one transaction (DESIGN.md "Persistence"): the table's live
state is kept in memory between moves (`Live`), the engine applies the move,
and one transaction compare-and-swaps the row on `version` and appends the
event. The service returns an `Outcome` (the new version and each viewer's
payload) and knows no sockets; the notifier (app/realtime/notifier.py) emits it.

The database stays the truth. A process whose compare-and-swap fails (another
process wrote meanwhile) reloads the table and tries again; every cold path
(joins, class moves) writes through the ORM (app/store/tables.py) and drops the
cached copy.

Concurrency (DESIGN.md): an action whose type the game lists as order-free is
accepted from any version while it is still legal; any other action must come
from the version its sender last saw change (else `stale`).

Time: a game's deadlines (`timers(state)`) and the computer seats' moves are
kept in the table row (`timers`, `next_due_at`), so any process can fire them,
a restart keeps them, and the version compare-and-swap fires each once.

The parts, one module each, are listed in service.py, whose `TableService`
composes them.
"""
from app.service.tables.common import (AFTER_GAME, Live, Outcome, SeatInfo, SeatRef, actor_name, actor_of, checked,
                                       start_options)
from app.service.tables.service import TableService

__all__ = ["AFTER_GAME", "Live", "Outcome", "SeatInfo", "SeatRef", "TableService", "actor_name", "actor_of", "checked",
           "start_options"]
