"""One accepted move through the table service vs a bare SQLite transaction.

A move here is what a phone's `act` costs the server: the transaction and every
viewer's payload, measured twice: with the table's board and teacher's page open
(6 views: board, facilitator and 4 seats) and with phones only (no page open, as
in bench/classroom_load.py and most tables of a class). The same script runs on the
service before the one-transaction rewrite (act, then `payloads`), and `--root DIR`
measures another checkout's app/ (say, the commit before a change), so a
before/after ratio comes from one machine in runs of the same script.

CPU time of this process (not wall time: the machine may be shared), the median
of `--repeat` rounds (default 5), each a fresh War table of 4 seats.

    python bench/bench_service.py [--repeat N] [--root DIR]
"""
from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

MOVES = 300


def service_moves(folder: Path, *, pages_open: bool = True) -> float:
    from app.engines import war
    from app.service.accounts import Accounts
    from app.service.tables import TableService
    from app.store.db import make_engine

    db = make_engine(f"sqlite:///{folder / 'bench.db'}")
    service = TableService(db, bot_delay_scale=0)
    # As app/realtime sets it: whether a table's board or teacher's page is open (a
    # service without the setting builds those views either way).
    service.watched = lambda _code, _viewer: pages_open
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
        start = time.process_time()
        if new_style:
            outcome = service.act(table.code, seat, version, {"type": "reveal"})
            version = outcome.version
            state = service.live(table.code).state
        else:
            version = service.act(table.code, seat, version, {"type": "reveal"})
            service.payloads(table.code)
        elapsed += time.process_time() - start
        if not new_style:
            state = service.get(table.code).state
        done += 1
    elapsed /= done
    db.dispose()
    return elapsed


def bare_transactions(folder: Path) -> float:
    conn = sqlite3.connect(folder / "bare.db", isolation_level=None)
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL"):  # as app/store/db.py sets them
        conn.execute(f"PRAGMA {pragma}")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, version INT, state TEXT)")
    conn.execute("CREATE TABLE e (id INTEGER PRIMARY KEY, t INT, version INT, body TEXT)")
    conn.execute("INSERT INTO t VALUES (1, 0, '{}')")
    payload = "x" * 6000  # about a War snapshot
    start = time.process_time()
    for v in range(MOVES):
        conn.execute("BEGIN")
        conn.execute("UPDATE t SET version = ?, state = ? WHERE id = 1 AND version = ?", (v + 1, payload, v))
        conn.execute("INSERT INTO e (t, version, body) VALUES (1, ?, '{}')", (v + 1,))
        conn.execute("COMMIT")
    elapsed = (time.process_time() - start) / MOVES
    conn.close()
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds (the median is reported)")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="the checkout whose app/ is measured (default: this one)")
    args = parser.parse_args()
    sys.path.insert(0, str(args.root.resolve()))
    rounds = {"pages open": [], "phones only": []}
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(args.repeat):
            folder = Path(tmp) / str(n)
            folder.mkdir()
            baseline = bare_transactions(folder)
            for setting in rounds:
                ours = service_moves(folder / setting.replace(" ", "-"), pages_open=setting == "pages open")
                rounds[setting].append((ours, baseline))
    print(f"app/ of {args.root.resolve()}, median of {args.repeat} rounds (CPU time)")
    for setting, measured in rounds.items():
        ours = statistics.median(x for x, _ in measured)
        ratio = statistics.median(x / base for x, base in measured)
        baseline = statistics.median(base for _, base in measured)
        print(f"{setting:>11}: service move {ours * 1e3:6.3f} ms   bare SQLite transaction {baseline * 1e3:6.3f} ms"
              f"   ratio {ratio:5.2f}x")


if __name__ == "__main__":
    main()
