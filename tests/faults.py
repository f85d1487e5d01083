"""Helpers for tests/test_faults.py: phones that play random legal moves from their
views on the real server and remember every acknowledged move; checks against the
stored event log and the replay; private Redis and PostgreSQL servers to stop."""
from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import requests
from sqlmodel import Session, select

from app.engines.contract import strip_label
from engines import properties
from live import LivePhone, free_port

ACK_TIMEOUT = 3.0   # a move's answer on a healthy local server takes milliseconds
NOT_RANDOM = {"autoplay", "hold", "resume", "restart"}  # War's pace controls: not moves of the game
PLAIN_REFUSALS = {"stale", "not_your_turn", "game_over"}  # a random phone meets these; anything else is a bug


def filled(action: dict) -> dict:
    """A listed action as a phone sends it (and the log keeps it): free text filled in, no label."""
    return strip_label(properties.filled(action))


class RandomPlayers:
    """One thread per phone: whenever its view offers actions, it sends a random one
    (seeded) from the version it shows. Acknowledged moves are kept as
    (version, seat, action); a dropped connection just makes the phone wait (it
    resumes by itself, tests/live.py)."""

    def __init__(self, phones: list[LivePhone], seed: int, unavailable_ok: bool = False):
        self.phones = phones
        self.seats = [p.view["seat"] for p in phones]
        self.rngs = [random.Random(f"{seed}:{i}") for i in range(len(phones))]
        self.acked: list[tuple[int, int, dict]] = []
        self.errors: list[dict] = []      # refusals no random phone should meet
        self.unavailable: list[tuple] = []  # (seat, error): `unavailable` answers while a service is down
        self.unavailable_ok = unavailable_ok
        self.lost_calls = 0                # calls that got no answer (the server died under them)
        self.running = threading.Event()
        self.running.set()
        self.stopped = False
        self.busy = [False] * len(phones)
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._run, args=(i,), daemon=True) for i in range(len(phones))]

    def start(self):
        for t in self._threads:
            t.start()
        return self

    def pause(self, timeout=ACK_TIMEOUT + 2):
        """Stop sending and wait for the calls in flight to finish."""
        self.running.clear()
        deadline = time.monotonic() + timeout
        while any(self.busy) and time.monotonic() < deadline:
            time.sleep(0.02)

    def resume(self):
        self.running.set()

    def stop(self):
        self.stopped = True
        self.running.set()
        for t in self._threads:
            t.join(ACK_TIMEOUT + 2)

    def ended(self) -> bool:
        return any(p.view and p.view["status"] == "ended" for p in self.phones)

    def _run(self, i: int):
        phone, rng = self.phones[i], self.rngs[i]
        tried: dict[int, int] = {}
        while not self.stopped:
            self.running.wait()
            if self.stopped:
                return
            view = phone.view
            choices = [a for a in (view["actions"] if view else []) if a["type"] not in NOT_RANDOM]
            if not choices or view["status"] != "playing" or tried.get(view["version"], 0) >= 3:
                time.sleep(0.01)
                continue
            tried[view["version"]] = tried.get(view["version"], 0) + 1
            action = filled(rng.choice(choices))
            self.busy[i] = True
            try:
                ack = phone.sio.call("act", {"version": view["version"], "action": action}, timeout=ACK_TIMEOUT)
            except Exception:  # noqa: BLE001 - not connected, or no answer: not acknowledged
                self.lost_calls += 1
                tried[view["version"]] -= 1  # no answer about the move: try it again once connected
                time.sleep(0.05)
                continue
            finally:
                self.busy[i] = False
            with self._lock:
                if ack.get("ok"):
                    self.acked.append((ack["version"], self.seats[i], action))
                elif ack["error"]["code"] == "unavailable" and self.unavailable_ok:
                    self.unavailable.append((self.seats[i], ack["error"]))
                    tried[view["version"]] -= 1  # not an answer about the move: try it again later
                    time.sleep(0.1)
                elif ack["error"]["code"] not in PLAIN_REFUSALS:
                    self.errors.append({"seat": self.seats[i], "action": action, "error": ack["error"]})

    def describe(self) -> str:
        """For a failure message: where each phone is."""
        phones = [(p.view["version"], p.view["status"], [a["type"] for a in p.view["actions"]], p.sio.connected)
                  for p in self.phones]
        seats = [s for s, _e in self.unavailable]
        return (f"{len(self.acked)} acked, errors {self.errors[:3]}, unavailable by seat "
                f"{ {s: seats.count(s) for s in set(seats)} }, {self.lost_calls} unanswered, phones {phones}")

    def wait_acked(self, count: int, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.acked) < count and not self.ended():
            assert time.monotonic() < deadline, f"only {len(self.acked)} moves acknowledged; errors {self.errors[:3]}"
            assert not self.errors, self.errors[:3]
            time.sleep(0.01)


# --------------------------------------------------------------- the stored truth
class Store:
    """The table service of the test process, on the server's database (read-only use)."""

    def __init__(self, url: str):
        from app.store.db import make_engine
        from app.service.tables import TableService

        self.engine = make_engine(url, migrate=False)
        self.tables = TableService(self.engine)

    def events(self, code: str) -> dict[int, tuple[str, dict]]:
        from app.store.models import Event, GameTable

        with Session(self.engine) as s:
            table = s.exec(select(GameTable).where(GameTable.code == code)).one()
            return {e.version: (e.actor, e.action) for e in s.exec(select(Event).where(Event.table_id == table.id))}

    def missing(self, code: str, acked: list[tuple[int, int, dict]]) -> list:
        """Acknowledged moves that are not in the event log as acknowledged."""
        events = self.events(code)
        return [(v, seat, action) for v, seat, action in acked
                if events.get(v) != (f"seat:{seat}", action)]

    def replay_matches(self, code: str, tries: int = 20) -> int:
        """Replay the log and compare with the stored snapshot; returns the version checked.
        (Timers may still move the table: compare only a snapshot that did not change meanwhile.)"""
        for _ in range(tries):
            before = self.tables.get(code)
            replayed = self.tables.replay(code)
            after = self.tables.get(code)
            if before.version == after.version and max(self.events(code)) == after.version:
                assert json.loads(json.dumps(replayed)) == after.state, f"replay differs from the snapshot of {code}"
                return after.version
            time.sleep(0.05)
        raise AssertionError(f"{code} kept changing; could not compare its replay")

    def close(self):
        self.engine.dispose()


def create_table(url: str, token: str, game: str, options: dict) -> str:
    response = requests.post(url + "/api/tables", json={"game": game, "options": options},
                             headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert response.status_code == 201, response.text
    return response.json()["code"]


def seat_and_start(url: str, code: str, names: list[str]) -> list[LivePhone]:
    phones = [LivePhone(url) for _ in names]
    for phone, name in zip(phones, names):
        phone.join(code, name)
    first = phones[0].wait_for(lambda v: len(v["players"]) == len(names) and v["actions"])
    ack = phones[0].call("act", {"version": first["version"], "action": {"type": "start"}})
    assert ack["ok"], ack
    for phone in phones:
        phone.wait_for(lambda v: v["status"] == "playing")
    return phones


# ------------------------------------------------------------ private services
class PrivateRedis:
    """A throw-away redis-server on a free port (never the machine's own, which CI uses)."""

    def __init__(self):
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                      "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import redis
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                return
            except redis.exceptions.ConnectionError:
                assert time.monotonic() < deadline, "private redis did not start"
                time.sleep(0.05)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


PG_BIN = Path("/usr/lib/postgresql/15/bin")


class PrivatePostgres:
    """A throw-away PostgreSQL cluster (initdb in a temporary directory owned by the
    postgres user, on a free port), so stopping it cannot disturb CI's server."""

    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="faults-pg-"))
        # PostgreSQL refuses to run as root: as root, run it as the postgres user.
        self.runas = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.runas:
            shutil.chown(self.dir, "postgres")
        self.port = free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _as_postgres(self, *args, check=True):
        done = subprocess.run([*self.runas, *map(str, args)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 or not check, f"{args[0]} failed:\n{done.stdout}{done.stderr}"
        return done

    def init(self):
        self._as_postgres(PG_BIN / "initdb", "-D", self.dir / "data", "-A", "trust", "-U", "postgres", "--no-sync")
        return self

    def start(self):
        self._as_postgres(PG_BIN / "pg_ctl", "-D", self.dir / "data", "-l", self.dir / "log", "-w", "-o",
                          f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off", "start")

    def stop(self):
        self._as_postgres(PG_BIN / "pg_ctl", "-D", self.dir / "data", "-m", "fast", "-w", "stop", check=False)

    def remove(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

