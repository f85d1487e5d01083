"""One accepted move through the table service vs a bare SQLite transaction.

A move here is what a phone's `act` costs the server: the transaction and every
viewer's payload (board, facilitator and 4 seats). The same script runs on the
service before the one-transaction rewrite (act, then `payloads`), so the
before/after ratio comes from one machine in one run of each.
"""
from __future__ import annotations

import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from app.accounts import Accounts  # noqa: E402
from app.db import make_engine  # noqa: E402
from app.engines import war  # noqa: E402
from app.tables import TableService  # noqa: E402

MOVES = 300


def service_moves(folder: Path) -> float:
    db = make_engine(f"sqlite:///{folder / 'bench.db'}")
    service = TableService(db, bot_delay_scale=0)
    fac = Accounts(db).add("bench", "bench-password")
    table = service.create_table(fac.id, "war", {})
    for name in ("A", "B", "C", "D"):
        service.join(table.code, name)
    service.act(table.code, 0, 4, {"type": "start"})
    new_style = hasattr(service, "act_as")  # the one-transaction service returns the payloads itself
    state, version = service.get(table.code).state, service.get(table.code).version
    done, elapsed = 0, 0.0
    while done < MOVES and war.result(state) is None:
        seat = next(p for p in range(4) if any(a["type"] == "reveal" for a in war.actions(state, p)))
        start = time.perf_counter()
        if new_style:
            outcome = service.act(table.code, seat, version, {"type": "reveal"})
            version = outcome.version
            state = service.live(table.code).state
        else:
            version = service.act(table.code, seat, version, {"type": "reveal"})
            service.payloads(table.code)
        elapsed += time.perf_counter() - start
        if not new_style:
            state = service.get(table.code).state
        done += 1
    elapsed /= done
    db.dispose()
    return elapsed


def bare_transactions(folder: Path) -> float:
    conn = sqlite3.connect(folder / "bare.db", isolation_level=None)
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL"):  # as app/db.py sets them
        conn.execute(f"PRAGMA {pragma}")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, version INT, state TEXT)")
    conn.execute("CREATE TABLE e (id INTEGER PRIMARY KEY, t INT, version INT, body TEXT)")
    conn.execute("INSERT INTO t VALUES (1, 0, '{}')")
    payload = "x" * 6000  # about a War snapshot
    start = time.perf_counter()
    for v in range(MOVES):
        conn.execute("BEGIN")
        conn.execute("UPDATE t SET version = ?, state = ? WHERE id = 1 AND version = ?", (v + 1, payload, v))
        conn.execute("INSERT INTO e (t, version, body) VALUES (1, ?, '{}')", (v + 1,))
        conn.execute("COMMIT")
    elapsed = (time.perf_counter() - start) / MOVES
    conn.close()
    return elapsed


def main():
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        baseline = bare_transactions(folder)
        ours = service_moves(folder)
    print(f"service move: {ours * 1e3:7.2f} ms   bare SQLite transaction: {baseline * 1e3:7.2f} ms   "
          f"ratio {ours / baseline:5.2f}x")


if __name__ == "__main__":
    main()
