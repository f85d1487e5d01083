"""The timer loop (app/realtime/scheduler.py Scheduler) in one process: a table whose timer
cannot be fired must not hold up the others' (the multi-process behaviour is in
test_scaled.py and test_service.py)."""
from __future__ import annotations

import time

from app.extensions import services


def computer_due(tables, teacher):
    """A started War table whose Ben was removed: the computer owes his reveal now."""
    table = tables.create_table(teacher.id, "war", {})
    tables.join(table.code, "Ana")
    tables.join(table.code, "Ben")
    tables.act(table.code, 0, 2, {"type": "start"})
    tables.moderate(teacher.id, table.code, 3, {"type": "kick", "seat": 1})
    assert tables.get(table.code).next_due_at is not None
    return table.code


def test_a_table_whose_timer_fails_does_not_stop_the_others(app, tables, teacher, caplog):
    broken, fine = computer_due(tables, teacher), computer_due(tables, teacher)  # the broken one is due first
    real = tables.fire_due
    tries = []

    def fire_due(code, **kw):
        if code == broken:  # e.g. a game's bug, or a game this process cannot load
            tries.append(code)
            raise RuntimeError("this table's game is broken")
        return real(code, **kw)

    tables.fire_due = fire_due
    services(app).notifier.scheduler.start()
    deadline = time.monotonic() + 5
    while tables.events(fine)[-1].actor != "seat:1:auto":
        assert time.monotonic() < deadline, "the broken table held up the other table's timer"
        time.sleep(0.05)
    assert "this table's game is broken" in caplog.text  # logged, for us to fix
    time.sleep(1.5)  # three of the loop's polls: the broken table is not retried (nor logged) at each
    assert len(tries) == 1
