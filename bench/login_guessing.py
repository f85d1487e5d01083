"""Password guessers against the live server: do a table's acknowledgements slow down?

    .venv/bin/python bench/login_guessing.py                 # 200 moves per phase, 8 guessers
    .venv/bin/python bench/login_guessing.py 100 16          # moves per phase, guessers

Starts the real server (`python -m app`, eventlet, SQLite in a temporary
INSTANCE_PATH) with the login brakes raised out of the way (every guess is hashed:
the worst case, an attacker spreading over many addresses), a facilitator made
by the CLI, and a War table of two phones (python-socketio clients) through the
JSON API. Then, in turn:

1. quiet: the two phones reveal as fast as their views allow; the time from each
   `act` to its acknowledgement is recorded (p50, p95);
2. guessed: the same while GUESSERS threads post wrong passwords for the
   teacher's name to POST /api/login as fast as the answers come;

and prints both, the ratio guessed/quiet of p50 and p95 (the baseline is the same
server in the same run with nobody guessing), and the guesses a second. Before
hashing moved off the event loop, 8 guessers took a table's acks from 8 ms to 1.7 s.
"""
from __future__ import annotations

import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import requests  # noqa: E402

from live import LivePhone, LiveServer  # noqa: E402

UNBRAKED = {"LOGIN_PER_ACCOUNT_ADDRESS": "1000000", "LOGIN_PER_ADDRESS": "1000000",
            "LOGIN_PER_ACCOUNT": "1000000"}


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def war_table(server: LiveServer) -> list[LivePhone]:
    """Two phones seated at a started War table."""
    code = server.create_table(server.api_token())
    phones = [LivePhone(server.url) for _ in range(2)]
    for phone, name in zip(phones, ["Ana", "Ben"]):
        phone.join(code, name)
    phones[0].wait_for(lambda v: any(a["type"] == "start" for a in v["actions"]))
    assert phones[0].call("act", {"version": phones[0].view["version"], "action": {"type": "start"}})["ok"]
    for phone in phones:
        phone.wait_for(lambda v: v["status"] == "playing")
    return phones


class WarTable:
    """Reveals at a two-phone War table, timed. A full-elimination War can end inside a
    measure's moves (a lucky run of wars): then a fresh table is seated and the count
    goes on, since the measure is about acknowledgements, not one game."""

    def __init__(self, server: LiveServer):
        self.server = server
        self.phones = war_table(server)

    def close(self) -> None:
        for phone in self.phones:
            phone.close()

    def ack_times(self, moves: int, timeout: float = 120.0) -> list[float]:
        """Seconds from `act` to its acknowledgement for `moves` accepted reveals."""
        times: list[float] = []
        deadline = time.monotonic() + timeout
        while len(times) < moves:
            assert time.monotonic() < deadline, f"only {len(times)} moves in {timeout} s"
            if self.phones[0].view["status"] != "playing":
                self.close()
                self.phones = war_table(self.server)
            moved = False
            for phone in self.phones:
                if phone.can("reveal"):
                    t0 = time.perf_counter()
                    ack = phone.call("act", {"version": phone.view["version"], "action": {"type": "reveal"}})
                    elapsed = time.perf_counter() - t0
                    if ack["ok"]:
                        times.append(elapsed)
                        moved = True
                    else:
                        assert ack["error"]["code"] in ("stale", "not_your_turn", "game_over"), ack
            if not moved:
                time.sleep(0.005)  # the other phone's move is on its way
        return times


class Guessers:
    """Threads posting wrong passwords for one name until stopped."""

    def __init__(self, url: str, count: int, name: str = "teacher"):
        self.url, self.name, self.stop_flag = url, name, threading.Event()
        self.answers: list[int] = []
        self.threads = [threading.Thread(target=self._run, args=(i,), daemon=True) for i in range(count)]

    def _run(self, i: int) -> None:
        with requests.Session() as http:
            n = 0
            while not self.stop_flag.is_set():
                n += 1
                r = http.post(self.url + "/api/login", json={"name": self.name, "password": f"guess-{i}-{n}"},
                              timeout=60)
                self.answers.append(r.status_code)

    def __enter__(self):
        self.started = time.perf_counter()
        for t in self.threads:
            t.start()
        time.sleep(0.5)  # every guesser is hashing by now
        return self

    def __exit__(self, *exc):
        self.stop_flag.set()
        self.elapsed = time.perf_counter() - self.started
        for t in self.threads:
            t.join(timeout=60)


def measure(server: LiveServer, moves: int, guessers: int) -> dict:
    """Ack times of a War table's moves, quiet and with `guessers` password guessers."""
    table = WarTable(server)
    try:
        table.ack_times(10)  # warm-up
        quiet = table.ack_times(moves)
        with Guessers(server.url, guessers) as guessing:
            guessed = table.ack_times(moves)
    finally:
        table.close()
    return {"quiet_p50": statistics.median(quiet), "quiet_p95": p95(quiet),
            "guessed_p50": statistics.median(guessed), "guessed_p95": p95(guessed),
            "p50_ratio": statistics.median(guessed) / statistics.median(quiet),
            "p95_ratio": p95(guessed) / p95(quiet),
            "guesses": len(guessing.answers), "guesses_per_s": len(guessing.answers) / guessing.elapsed,
            "answers": sorted(set(guessing.answers))}


def report(result: dict, guessers: int) -> str:
    return (f"ack p50 {result['quiet_p50'] * 1000:.1f} ms quiet, {result['guessed_p50'] * 1000:.1f} ms with "
            f"{guessers} guessers (x{result['p50_ratio']:.2f}); p95 {result['quiet_p95'] * 1000:.1f} ms -> "
            f"{result['guessed_p95'] * 1000:.1f} ms (x{result['p95_ratio']:.2f}); "
            f"{result['guesses']} guesses, {result['guesses_per_s']:.1f}/s, answered {result['answers']}")


def main(argv: list[str]) -> None:
    moves = int(argv[0]) if argv else 200
    guessers = int(argv[1]) if len(argv) > 1 else 8
    with tempfile.TemporaryDirectory() as tmp:
        server = LiveServer(Path(tmp), **UNBRAKED)
        try:
            server.add_facilitator()
            server.start()
            print(report(measure(server, moves, guessers), guessers))
        finally:
            server.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
