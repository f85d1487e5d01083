"""Classroom load: phones playing over Socket.IO, the real server against a floor and a peer.

    python bench/classroom_load.py                 # 4, 100, 500, 1000 phones, 20 s each
    python bench/classroom_load.py --quick         # 4 and 100 phones, 8 s each (about 2 minutes)
    python bench/classroom_load.py --war --phones 4,100,200,400   # War only: one game over time
    python bench/classroom_load.py --war --phones 4,100 --repeat 3   # medians of 3 interleaved runs
    python bench/classroom_load.py --phones 4,100 --seconds 10 --pace 0.2
    python bench/classroom_load.py --servers bare,echo --phones 4 --nagle   # the floor as it was
    python bench/classroom_load.py --servers real --war --phones 4 --real-nodelay   # real, no Nagle
    python bench/classroom_load.py --war --phones 100 --servers real,bare --real-unwritten   # a ceiling
    python bench/classroom_load.py --phones 500 --scaled 2   # 2 workers, PostgreSQL, Redis, nginx
    python bench/classroom_load.py --phones 500 --only real --profile /tmp/prof   # where the CPU went

For every load it starts, each in its own fresh subprocess and in turn (`--servers`,
default all four):

* the REAL server, `python -m app --host 127.0.0.1 --port P` (eventlet, SQLite in a
  temporary INSTANCE_PATH, SOCKET_RATE/SOCKET_BURST and SEATS_PER_ADDRESS raised so
  the rate limiters stay out of the way, BOT_DELAY_SCALE=1), with a facilitator account made by
  `flask --app app facilitator add`; tables come from the JSON API;
* a BARE Socket.IO server (this file, `--bare-server PORT`): Flask-SocketIO on
  eventlet with no database and no game engine. It seats phones, and for every
  accepted `act` sends each phone of the table its own `view`, built from a view
  the real server sent during the same load (same fields; brought to the median
  size of the real views by dropping or repeating its log entries). It keeps
  just enough table state for the phones to behave as they do on the real server:
  a `version`, and rounds in which every seat may make one game move (War's reveal
  rhythm). Game moves are order-free there (DESIGN.md, Concurrency): accepted
  whatever version the phone saw while the seat may still make one this round,
  so the bare server never answers `stale`. It is the floor: what Socket.IO, JSON
  and eventlet cost without the platform. Without a real run (`--servers` without
  `real`) its view is a synthetic War view of 3,500 B.
* a minimal ECHO (bench/echo_server.py): Flask-SocketIO on eventlet, one tiny view to
  the table's room per act, no rounds. The check that the bare server is a floor: at
  4 phones their p95 should be within a few milliseconds (the table prints the gap).
* the PEER, when Node and bench/peer/node_modules are there (`cd bench/peer && npm ci`;
  the bench installs nothing and otherwise says why the column was skipped): a
  boardgame.io 0.50.2 server (bench/peer/server.js, one Node process, in-memory
  storage) playing a War-like game (all players reveal per round, `playerView` strips
  the hands to counts), tables of `--table-size` (2 to 4), whatever `--games` says.
  The same phones speak boardgame.io's protocol (PeerPhone): seats from its Lobby API,
  `sync`, then `update` with a MAKE_MOVE; boardgame.io sends no ack, so a move's ack
  is the first state whose log holds it.

The bench's own servers (bare, echo) listen with TCP_NODELAY, as Node's HTTP server
and nginx do. Before issue 24 the bare server had eventlet's default, Nagle's
algorithm: a view written while the previous one to the same phone was still
unacknowledged waited for the phone's delayed ACK (about 40 ms on Linux), which was
the 30-40 ms of the bare server's p95 at 4 phones (43 ms; a minimal echo with Nagle
shows the same, 3 ms without). `--nagle` brings that back for comparison. The real
server sets TCP_NODELAY itself (app/__main__.py `listen`, issue 19); a checkout from
before that (`--server-root`) paid those waits, and `--real-nodelay` starts it through
bench/sample_server.py with TCP_NODELAY on its listening socket, to show the difference.
`--real-unwritten` is a ceiling experiment, not a server: the real server with every
move's transaction skipped (sample_server.py `--unwritten`), so that it persists no move.
Its CPU a move is the least any work on persistence could bring ours to (issue 19).

With `--scaled N` (see the Servers class): N real workers on a fresh PostgreSQL schema
(`--pg`) and a private redis-server (`--redis`), PROXY_COUNT=1, behind nginx as
deploy/run_workers.py runs them (deploy/nginx_conf.py, sticky cookie); the bare server
as N processes sharing that Redis as their message queue, behind the same nginx.

Load generator: tables of 4 phones (`--table-size`, within the seats each game's spec
allows: a Wizard duel seats 2), each phone a `socketio.AsyncClient` in one of
several generator processes (`--phones-per-process`, default 100, whole tables
per process). A phone joins with a name; whenever its latest `view` lists actions
for it that it has not acted on yet, it waits a human pace (`--pace`, default
0.2 s, +/- `--jitter`) and sends one action chosen uniformly among the listed
ones whose type is not in `--skip` (default `autoplay`, so War keeps the human
pace instead of the server's auto-play), with the version of the newest view it
has then and the action as listed less its display-only `label` (an empty text field,
which a player writes in, gets a short sentence). The first
seated phone's only action in the lobby is `start`, so it starts the game.
Nobody acts before every phone of the load has joined; then a warm-up, then the
measured window.

Games: every game GET /api/games lists as playable (or `--games`; `--war`: War
only, the game the peer's is like, to follow one game's cost over time), spread over
the tables round-robin. When a table's game ends, its four phones join a fresh
table of the same game (created through the API) so the load stays steady; the
notes count how often that happened.

Latency of an accepted `act` (version V): from sending it to the moment the LAST
phone of that table that was sent a view of version V received it. The server sends a
view only to the viewers whose view the change altered (app/service/tables/views.py `changed`), so a
phone sent nothing at V is not waited for: counting its next view instead (sent with
somebody's later move, seconds later at a human pace) was the 1-5 s p99 tail this bench
used to report (the notes still give that p99 for comparison). If no phone got V
itself, every phone's first view after it counts; an act no phone has any view of by
the end is undelivered. Views and the ack may come in either order; every phone records
when it first saw each version of each table and the latencies are computed after the
window. After
the window the phones stop acting and the run waits, at most 15 s, for the acks
and views of the acts sent in it.

Per load and server: p50/p95/p99 act->last view, acts sent per second (accepted and
refused: the offered load), accepted moves per second, CPU milliseconds per accepted
move (the server's CPU seconds over the window / the acts sent in it it accepted),
errors of acts sent in the window by code (stale included; `timeout` = no ack in
10 s), the server's CPU (% of one core over the window) and RSS at its end, the
generators' CPU (sum, and the busiest process), and real/bare, real/echo, real/peer
ratios of p95, CPU a move and moves/s (the same phones at the same pace). A
generator process above 80 % of a core means the phones themselves were a
bottleneck: the row is marked (cpu) and the numbers are not trustworthy; so is a
generator whose event loop ran more than 100 ms late (lag), as on a machine whose
cores are taken by other work. The notes also give what other processes used.
"""
from __future__ import annotations

import sys

if __name__ == "__main__" and "--bare-server" in sys.argv:
    # The bare server's process: eventlet first, as app/__main__.py does.
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import eventlet

    eventlet.monkey_patch()

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import urllib.error  # noqa: E402
import urllib.request  # noqa: E402
from bisect import bisect_left  # noqa: E402
from collections import Counter  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the bare server borrows the real one's wire encoding (app/wire.py)
FACILITATOR = ("loadbench", "loadbench-password-1")
ACT_TIMEOUT = 10.0  # seconds an act may wait for its ack before it counts as `timeout`
STALL = 3.0  # a phone that saw nothing new for this long may act again on its current view
GRACE = ACT_TIMEOUT + 5.0  # at most this long after the window for the last acks and views
LAG_WARN = 100.0  # ms: a generator loop later than this (p99) marks its row
MAX_REJOINS = 50  # per table group: fresh tables after games that ended, at most
KINDS = ("real", "bare", "echo", "peer")  # what the bench can measure, in the order it does
PEER = ROOT / "bench" / "peer"  # the boardgame.io peer: server.js, package.json (npm ci there)
PEER_GAME = "war"  # its game's name: the Lobby API's /games/war/..., the socket.io namespace /war
PEER_NAMESPACE = "/" + PEER_GAME


# ======================================================================= helpers
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:
    """preexec_fn: the server gets SIGKILL if this process dies without cleaning up."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def start_process(cmd: list[str], env: dict, cwd: Path, log_path: Path,
                  preexec_fn=_die_with_parent) -> subprocess.Popen:
    """A server in its own session (process group), output to a file."""
    log = open(log_path, "wb")
    try:
        return subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=preexec_fn)
    finally:
        log.close()


def stop_process(proc: subprocess.Popen | None) -> None:
    """SIGTERM to its process group, then SIGKILL."""
    if proc is None or proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def http(method: str, url: str, body=None, token: str | None = None, timeout: float = 10.0):
    """One JSON request to 127.0.0.1; returns (status, parsed body)."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            raw = resp.read()
            status = resp.status
    except urllib.error.HTTPError as exc:
        raw, status = exc.read(), exc.code
    try:
        return status, json.loads(raw or b"null")
    except ValueError:
        return status, raw.decode(errors="replace")


def wait_http(url: str, proc: subprocess.Popen, log_path: Path, timeout: float = 40.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited ({proc.returncode}):\n{tail(log_path)}")
        try:
            with urllib.request.urlopen(url + "/", timeout=1) as resp:
                if resp.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            time.sleep(0.1)
    raise RuntimeError(f"server did not answer in {timeout:.0f} s:\n{tail(log_path)}")


def tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def cpu_seconds(pid: int) -> float:
    """user + system CPU seconds of one process (psutil if installed, else /proc)."""
    try:
        import psutil

        t = psutil.Process(pid).cpu_times()
        return t.user + t.system
    except ImportError:
        pass
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    try:
        import psutil

        return psutil.Process(pid).memory_info().rss / 2**20
    except ImportError:
        pass
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(k), math.ceil(k)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def wire_size(payload) -> int:
    return len(json.dumps(payload, separators=(",", ":")))


def peer_match(url: str, seats: int):
    """A fresh match of the peer's game (its Lobby API): (status, {"matchID": ...})."""
    return http("POST", f"{url}/games/{PEER_GAME}/create", {"numPlayers": seats})


def peer_missing() -> str | None:
    """Why the boardgame.io peer cannot run here (None: it can). The bench installs nothing."""
    node = shutil.which("node")
    if node is None:
        return ("Node.js is not installed (Debian: apt-get install -y nodejs npm; then "
                "cd bench/peer && npm ci)")
    try:
        version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=10).stdout.strip()
        major = int(version.lstrip("v").split(".")[0])
    except (OSError, ValueError, subprocess.SubprocessError):
        return "`node --version` did not answer"
    if major < 14:
        return f"Node.js {version} is too old for boardgame.io 0.50 (14 or newer)"
    if not (PEER / "node_modules" / "boardgame.io" / "package.json").exists():
        return f"boardgame.io is not installed in {PEER} (cd bench/peer && npm ci)"
    return None


# =================================================================== bare server
def bare_server_main(port: int, template_file: str, table_size: int, skip: list[str], end_after: int = 0,
                     queue: str | None = None, nagle: bool = False) -> None:
    """Flask-SocketIO on eventlet: seats phones, answers acts, sends real-sized views,
    encoded the cheapest way the real server knows (orjson, once per view, spliced into
    the packet as it is: app/wire.py), so that no cost of ours is hidden under the floor."""
    from flask import Flask, request
    from flask_socketio import SocketIO, join_room

    from app.wire import Encoded, packet_json

    template = json.loads(Path(template_file).read_text())
    game_actions = [a for a in template.get("actions") or [] if a.get("type") not in skip]
    other_actions = [a for a in template.get("actions") or [] if a.get("type") in skip]
    if not game_actions:
        game_actions = [{"type": "reveal"}]

    app = Flask("bare")
    # With --scaled, its emits cross the same Redis queue as the real workers' do.
    sio = SocketIO(app, async_mode="eventlet", max_http_buffer_size=64 * 1024, ping_interval=10, ping_timeout=20,
                   message_queue=queue, json=packet_json)
    tables: dict[str, dict] = {}
    seats: dict[str, tuple[str, int]] = {}  # sid -> (table code, seat)

    @app.get("/")
    def index():
        return "bare"

    def actions_for(table: dict, seat: int) -> list:
        if table["status"] == "ended":
            return []
        if table["status"] == "lobby":
            return [{"type": "start"}] if seat == 0 and len(table["seats"]) >= table["size"] else []
        mine = list(other_actions)
        if seat not in table["moved"]:
            mine = game_actions + mine
        return mine

    def view(table: dict, seat: int) -> dict:
        return dict(template, code=table["code"], version=table["version"], status=table["status"], seat=seat,
                    actions=actions_for(table, seat))

    def broadcast(table: dict) -> None:
        for seat, room in enumerate(table["seats"]):  # one emit per phone: each seat its own view
            sio.emit("view", Encoded.of(view(table, seat)), to=room)

    def error(code: str, message: str, **extra) -> dict:
        return {"ok": False, "error": {"code": code, "message": message}, **extra}

    @sio.on("join")
    def on_join(payload=None):
        if not isinstance(payload, dict) or not isinstance(payload.get("code"), str):
            return error("bad_request", "Send {code, name}.")
        code = payload["code"]
        # The bench's phones say how many sit at their table (a real table's game says it).
        size = payload.get("seats") if isinstance(payload.get("seats"), int) else table_size
        table = tables.setdefault(code, {"code": code, "version": 0, "status": "lobby", "seats": [], "moved": set(),
                                         "size": size})
        if len(table["seats"]) >= table["size"]:
            return error("table_full", "This table is full.")
        seat = len(table["seats"])
        token = os.urandom(16).hex()
        room = "seat:" + token
        join_room(room)
        table["seats"].append(room)
        table["version"] += 1
        seats[request.sid] = (code, seat)
        if len(table["seats"]) == table["size"]:
            broadcast(table)
        return {"ok": True, "seat": seat, "token": token, "table": code}

    def on_act(sid, payload=None, *_args):
        if not isinstance(payload, dict) or not isinstance(payload.get("version"), int) \
                or not isinstance(payload.get("action"), dict):
            return error("bad_request", "Send {version, action}.")
        where = seats.get(sid)
        if where is None:
            return error("not_joined", "Join a table first.")
        table, seat = tables[where[0]], where[1]
        if table["status"] == "ended":
            return error("game_over", "This game has ended.")
        kind = payload["action"].get("type")
        if table["status"] == "lobby":
            if kind != "start" or seat != 0 or len(table["seats"]) < table["size"]:
                return error("illegal", "The game has not started yet.")
            table["status"] = "playing"
        elif kind in skip:
            pass
        elif seat in table["moved"]:
            return error("not_your_turn", "Wait for the others.")
        else:
            table["moved"].add(seat)
            if len(table["moved"]) >= len(table["seats"]):
                table["moved"] = set()
        table["version"] += 1
        table["moves"] = table.get("moves", 0) + 1
        if end_after and table["moves"] >= end_after:  # --bare-end-after: exercises the phones' re-seating
            table["status"] = "ended"
        broadcast(table)
        return {"ok": True, "version": table["version"]}

    # Every move arrives here: registered with python-socketio itself, as the real server's
    # `act` is (app/realtime/handlers.py `light`), without the request context Flask-SocketIO
    # builds and tears down around each event; the floor needs no app context either.
    sio.server.on("act", on_act, namespace="/")

    @sio.on("disconnect")
    def on_disconnect(*_args):
        seats.pop(request.sid, None)

    from app.edge.serving import settle_garbage_collector

    settle_garbage_collector()  # as the real server does (app/__main__.py)
    print(f"bare server on 127.0.0.1:{port}, view template {wire_size(template)} bytes", flush=True)
    if not nagle:
        from echo_server import nodelay_listen

        nodelay_listen()  # see the module's docstring: the floor's views are not held back by Nagle
    sio.run(app, host="127.0.0.1", port=port, use_reloader=False, log_output=False,
            max_size=10_000)  # as app/__main__.py: eventlet's default serves only 1,024 sockets at once


# ================================================================ load generator
def worker_main(cfg: dict, conn) -> None:
    """One generator process: its tables' phones on one asyncio loop."""
    import asyncio

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the orchestrator ends us (Ctrl-C reaches the whole group)

    async def main():
        await Worker(cfg, conn).run()

    try:
        asyncio.run(main())
    except (KeyboardInterrupt, BrokenPipeError, EOFError):
        pass


class Phone:
    def __init__(self, worker: "Worker", group: "Group", index: int):
        import asyncio

        import socketio

        self.worker, self.group, self.index = worker, group, index
        self.sio = socketio.AsyncClient(reconnection=False, handle_sigint=False)
        self.sio.on("view", self.on_view)
        self.changed = asyncio.Event()
        self.latest: dict | None = None
        self.acted_version = -1
        self.inflight = False
        self.last_error: str | None = None
        self.joined = False
        self.arrivals: dict[str, tuple[list[int], list[float]]] = {}

    def on_view(self, data, size: int | None = None) -> None:
        """A view (the peer's phones: its state, translated); `size`: its bytes on the wire
        when `data` is not what came."""
        now = time.monotonic()
        if not isinstance(data, dict):
            return
        code, version = data.get("code"), data.get("version")
        if not isinstance(version, int):
            return
        versions, times = self.arrivals.setdefault(code, ([], []))
        if not versions or version > versions[-1]:
            versions.append(version)
            times.append(now)
        w = self.worker
        w.views += 1
        if w.views % 7 == 0 and len(w.sizes) < 5000:
            w.sizes.append(size if size is not None else wire_size(data))
            if w.cfg["keep_samples"] and w.go and data.get("status") == "playing" \
                    and any(a.get("type") not in w.skip for a in data.get("actions") or [] if isinstance(a, dict)):
                w.sampled += 1  # reservoir: 40 views drawn evenly from the whole run
                if len(w.samples) < 40:
                    w.samples.append(data)
                elif random.randrange(w.sampled) < 40:
                    w.samples[random.randrange(40)] = data
        if code != self.group.code:
            return
        if self.latest is None or version >= self.latest.get("version", -1):
            self.latest = data
        if data.get("status") == "ended":
            self.group.game_over()
        self.changed.set()

    def choices(self, view: dict) -> list[dict]:
        return [a for a in view.get("actions") or [] if isinstance(a, dict) and a.get("type") not in self.worker.skip]

    async def connect(self) -> None:
        headers = {}
        if self.worker.cfg["sticky_table"]:  # a bare table lives in one process: its phones meet there
            headers["Cookie"] = f"cg_lb={self.group.code}"
        await self.sio.connect(self.worker.cfg["url"], transports=["websocket"], wait_timeout=10, headers=headers)

    async def join(self, code: str, name: str, seats: int) -> dict:
        self.latest, self.acted_version, self.joined = None, -1, False
        payload = {"code": code, "name": name}
        if self.worker.cfg["kind"] != "real":  # the bench's own servers have no game to ask
            payload["seats"] = seats
        ack = await self.sio.call("join", payload, timeout=ACT_TIMEOUT)
        self.joined = isinstance(ack, dict) and bool(ack.get("ok"))
        return ack

    async def play(self) -> None:
        import asyncio

        w = self.worker
        while not w.stopped:
            try:
                await asyncio.wait_for(self.changed.wait(), STALL)
            except asyncio.TimeoutError:
                # Nothing new for a while: act again on the view we have (a skipped view
                # or an error must not stall the table for the rest of the run).
                # Only after an error that no view follows (stale brings the fresh view,
                # an accepted act its new version).
                if w.go and not w.stopped and self.last_error not in (None, "stale") and not self.inflight \
                        and self.latest is not None and self.choices(self.latest):
                    self.acted_version = -1
                    w.stall_after[self.last_error] += 1
                    self.last_error = None
                    w.stall_retries += 1
                else:
                    continue
            self.changed.clear()
            if w.stopped:
                return
            if not w.go or self.inflight or self.group.switching or not self.joined:
                continue
            view = self.latest
            if view is None or view["version"] <= self.acted_version or not self.choices(view):
                continue
            await asyncio.sleep(w.pace * random.uniform(1 - w.jitter, 1 + w.jitter))
            view = self.latest
            if w.stopped or self.group.switching or view is None or view["version"] <= self.acted_version:
                continue
            options = self.choices(view)
            if not options:
                continue
            await self.act(view, random.choice(options))
            self.changed.set()  # look again at whatever arrived meanwhile

    async def send_act(self, view: dict, action: dict):
        """The act; returns its ack."""
        return await self.sio.call("act", {"version": view["version"], "action": action}, timeout=ACT_TIMEOUT)

    async def act(self, view: dict, action: dict) -> None:
        import socketio

        w = self.worker
        self.acted_version = view["version"]
        code = self.group.code
        # An empty text field in a listed action is for the player to write in (an
        # explanation, a reason): a human types something, so the phone does too.
        action = {k: ("Because the cards fit." if v == "" and k != "type" else v)
                  for k, v in action.items() if k != "label"}
        self.inflight = True
        sent = time.monotonic()
        try:
            ack = await self.send_act(view, action)
        except socketio.exceptions.TimeoutError:
            ack = {"ok": False, "error": {"code": "timeout"}}
        except Exception as exc:  # disconnected and friends
            ack = {"ok": False, "error": {"code": type(exc).__name__}}
        finally:
            self.inflight = False
        ok = isinstance(ack, dict) and ack.get("ok") and isinstance(ack.get("version"), int)
        error = None if ok else (ack.get("error") if isinstance(ack, dict) else None)
        error = None if ok else (error.get("code", "?") if isinstance(error, dict) else "bad_ack")
        self.last_error = error
        if not (w.win_start <= sent < w.win_end):
            return
        if ok:
            w.accepted.append((self.group, code, sent, ack["version"]))
        else:
            w.errors[error] += 1
            if error != "stale":  # what was refused, to tell a bench mistake from a server one
                message = ack.get("error", {}).get("message", "") if isinstance(ack, dict) else ""
                w.refused[f"{self.group.game} {action.get('type')}: {error} ({message})"] += 1


class PeerPhone(Phone):
    """A phone of the boardgame.io peer (bench/peer/server.js): the same phone, through
    boardgame.io's protocol. It takes its seat over the Lobby API (credentials), then
    `sync`s on the socket.io namespace /war; every state the server sends is a view (its
    `_stateID` the version, `reveal` listed while this player's card is still face down);
    an act is an `update` with a MAKE_MOVE action, and since boardgame.io acknowledges
    nothing, its ack is the first state whose log holds this player's move (its version
    that state's). A move no state shows within the act timeout counts as `timeout`."""

    def __init__(self, worker: "Worker", group: "Group", index: int):
        super().__init__(worker, group, index)
        self.sio.handlers.pop("/", None)  # the peer speaks on its game's namespace only
        self.sio.on("update", self.on_update, namespace=PEER_NAMESPACE)
        self.sio.on("sync", self.on_sync, namespace=PEER_NAMESPACE)
        self.player_id = str(index)
        self.credentials: str | None = None
        self.pending = None  # the future of the act in flight

    def on_sync(self, match_id, info=None, *_rest) -> None:
        if isinstance(info, dict):
            self.on_state(match_id, info.get("state"), [], [match_id, info])

    def on_update(self, match_id, state=None, log=None, *_rest) -> None:
        self.on_state(match_id, state, log if isinstance(log, list) else [], [match_id, state, log])

    def on_state(self, match_id, state, log: list, raw: list) -> None:
        if not isinstance(state, dict) or not isinstance(state.get("_stateID"), int):
            return
        g, ctx = state.get("G") or {}, state.get("ctx") or {}
        ended = ctx.get("gameover") is not None
        mine = not ended and (g.get("faceUp") or {}).get(self.player_id, 0) is None \
            and (g.get("hands") or {}).get(self.player_id, 0) > 0
        if self.pending is not None and not self.pending.done():
            for entry in log:
                action = entry.get("action") if isinstance(entry, dict) else None
                if isinstance(action, dict) and action.get("type") == "MAKE_MOVE" \
                        and (action.get("payload") or {}).get("playerID") == self.player_id:
                    self.pending.set_result(state["_stateID"])
                    break
        self.on_view({"code": match_id, "version": state["_stateID"], "status": "ended" if ended else "playing",
                      "actions": [{"type": "reveal"}] if mine else []}, size=wire_size(raw))

    async def connect(self) -> None:
        await self.sio.connect(self.worker.cfg["url"], namespaces=[PEER_NAMESPACE], transports=["websocket"],
                               wait_timeout=10)

    async def join(self, code: str, name: str, seats: int) -> dict:
        import asyncio

        self.latest, self.acted_version, self.joined = None, -1, False
        url = f"{self.worker.cfg['url']}/games/{PEER_GAME}/{code}/join"
        status, body = await asyncio.get_running_loop().run_in_executor(
            None, lambda: http("POST", url, {"playerID": self.player_id, "playerName": name}))
        if status != 200 or not isinstance(body, dict) or not body.get("playerCredentials"):
            return {"ok": False, "error": {"code": f"HTTP {status}", "message": str(body)[:80]}}
        self.credentials = body["playerCredentials"]
        await self.sio.emit("sync", (code, self.player_id, self.credentials, seats), namespace=PEER_NAMESPACE)
        self.joined = True
        return {"ok": True}

    async def send_act(self, view: dict, action: dict):
        import asyncio

        self.pending = asyncio.get_running_loop().create_future()
        move = {"type": "MAKE_MOVE", "payload": {"type": action["type"], "args": [], "playerID": self.player_id,
                                                 "credentials": self.credentials}}
        try:
            await self.sio.emit("update", (move, view["version"], self.group.code, self.player_id),
                                namespace=PEER_NAMESPACE)
            version = await asyncio.wait_for(self.pending, ACT_TIMEOUT)
        except asyncio.TimeoutError:
            return {"ok": False, "error": {"code": "timeout", "message": "no state showed the move"}}
        finally:
            self.pending = None
        return {"ok": True, "version": version}


class Group:
    """The phones of one table (whole tables stay in one process)."""

    def __init__(self, worker: "Worker", number: int, code: str, game: str, seats: int):
        self.worker, self.number, self.code, self.game = worker, number, code, game
        self.phones = [(PeerPhone if worker.cfg["kind"] == "peer" else Phone)(worker, self, i) for i in range(seats)]
        self.switching = False
        self.rejoins = 0

    async def setup(self, gate) -> None:
        async with gate:
            for phone in self.phones:
                try:
                    await phone.connect()
                except Exception as exc:
                    self.worker.setup_errors[f"connect: {type(exc).__name__}"] += 1
            await self.join_all()

    async def join_all(self) -> None:
        for phone in self.phones:
            if not phone.sio.connected:
                continue
            name = f"P{self.worker.cfg['index']}-{self.number}-{self.rejoins}-{phone.index}"
            try:
                ack = await phone.join(self.code, name, len(self.phones))
            except Exception as exc:
                self.worker.setup_errors[f"join: {type(exc).__name__}"] += 1
                continue
            if not phone.joined:
                err = ack.get("error") if isinstance(ack, dict) else None
                self.worker.setup_errors[f"join: {err.get('code') if isinstance(err, dict) else ack}"] += 1

    def game_over(self) -> None:
        if self.switching or self.worker.stopped or self.rejoins >= MAX_REJOINS:
            return
        self.switching = True
        self.worker.spawn(self.rejoin())

    async def rejoin(self) -> None:
        """The game ended: the four phones sit down at a fresh table of the same game."""
        try:
            code = await self.worker.new_table(self.game, len(self.phones))
            if code is None:
                return
            self.worker.tables_finished += 1
            self.rejoins += 1
            self.code = code
            await self.join_all()
        finally:
            self.switching = False
            for phone in self.phones:
                phone.changed.set()


class Worker:
    def __init__(self, cfg: dict, conn):
        self.cfg, self.conn = cfg, conn
        self.pace, self.jitter, self.skip = cfg["pace"], cfg["jitter"], set(cfg["skip"])
        self.go = False
        self.stopped = False
        self.win_start = self.win_end = float("inf")
        self.accepted: list = []
        self.errors: Counter = Counter()
        self.setup_errors: Counter = Counter()
        self.views = 0
        self.sizes: list[int] = []
        self.samples: list[dict] = []
        self.sampled = 0
        self.stall_retries = 0
        self.stall_after: Counter = Counter()  # the error that preceded each stall retry
        self.refused: Counter = Counter()
        self.tables_finished = 0
        self.lags: list[float] = []
        self.tasks: set = set()
        self.groups = [Group(self, n, t["code"], t["game"], t["seats"]) for n, t in enumerate(cfg["tables"])]

    def spawn(self, coro):
        import asyncio

        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def new_table(self, game: str, seats: int) -> str | None:
        import asyncio

        if self.cfg["kind"] in ("bare", "echo"):
            return "B" + os.urandom(6).hex()
        loop = asyncio.get_running_loop()
        if self.cfg["kind"] == "peer":
            status, body = await loop.run_in_executor(None, lambda: peer_match(self.cfg["url"], seats))
            if status == 200 and isinstance(body, dict) and body.get("matchID"):
                return body["matchID"]
            self.setup_errors[f"create match: HTTP {status}"] += 1
            return None
        status, body = await loop.run_in_executor(None, lambda: http(
            "POST", self.cfg["url"] + "/api/tables", {"game": game, "options": {}}, self.cfg["token"]))
        if status == 201 and isinstance(body, dict) and body.get("code"):
            return body["code"]
        self.setup_errors[f"create table: HTTP {status}"] += 1
        return None

    async def recv(self, timeout: float):
        import asyncio

        def wait():
            if not self.conn.poll(timeout):
                raise TimeoutError("no word from the orchestrator")
            return self.conn.recv()

        return await asyncio.get_running_loop().run_in_executor(None, wait)

    async def lag_monitor(self) -> None:
        import asyncio

        while not self.stopped:
            before = time.monotonic()
            await asyncio.sleep(0.05)
            if self.win_start <= before < self.win_end:
                self.lags.append(time.monotonic() - before - 0.05)

    async def run(self) -> None:
        import asyncio

        gate = asyncio.Semaphore(self.cfg["connect_concurrency"])
        try:
            await asyncio.wait_for(asyncio.gather(*(g.setup(gate) for g in self.groups)),
                                   timeout=self.cfg["setup_timeout"])
        except asyncio.TimeoutError:
            self.setup_errors["setup timed out"] += 1
        phones = [p for g in self.groups for p in g.phones]
        self.conn.send(("ready", {"joined": sum(p.joined for p in phones), "phones": len(phones),
                                  "setup_errors": dict(self.setup_errors)}))
        message = await self.recv(self.cfg["setup_timeout"] + 120)
        if message[0] != "go":
            await self.close(phones)
            return
        offset = time.time() - time.monotonic()
        go_at, self.win_start, self.win_end = (message[1][k] - offset for k in ("go_at", "start", "end"))
        for phone in phones:
            self.spawn(phone.play())
        self.spawn(self.lag_monitor())
        await asyncio.sleep(max(0.0, go_at - time.monotonic()))
        self.go = True
        for phone in phones:
            phone.changed.set()
        await asyncio.sleep(max(0.0, self.win_start - time.monotonic()))
        cpu0 = time.process_time()
        await asyncio.sleep(max(0.0, self.win_end - time.monotonic()))
        cpu1 = time.process_time()
        self.stopped = True  # no new acts; those in flight finish
        for phone in phones:
            phone.changed.set()
        # Let the acts sent in the window finish: their acks, then every phone's view.
        deadline = self.win_end + GRACE
        while time.monotonic() < deadline and (any(p.inflight for p in phones) or self.deliveries()[1]):
            await asyncio.sleep(0.1)
        result = self.results(cpu1 - cpu0)
        self.conn.send(("result", result))
        await self.close(phones)

    def deliveries(self) -> tuple[list[float], int, list[float], int]:
        """(latencies, undelivered, latencies counting every phone, acts not sent to every phone).

        The server sends a view only to the viewers whose view the change altered
        (app/service/tables/views.py `changed`): a phone sent nothing at version V must not count from
        its next view (which comes with somebody's later move, up to seconds later). So an
        act's latency ends when the last phone that got a view of exactly its version got
        it; if no phone got that version, at the first later view of each phone.
        `undelivered`: acts no phone of the table has a view of by the end, at that version
        or later (a lost view: the mover's own view always changes with its move). The third
        list is the old measure (every phone's first view at or after V; acts some phone saw
        nothing after are left out of it) and the fourth how many acts it differs for."""
        latencies, undelivered, every, partial = [], 0, [], 0
        for group, code, sent, version in self.accepted:
            last_any, exact, missing, have = sent, None, False, 0
            for phone in group.phones:
                versions, times = phone.arrivals.get(code, ((), ()))
                if not versions:
                    continue  # this phone never sat at that table
                i = bisect_left(versions, version)
                if i == len(versions):
                    missing = True
                    continue
                have += 1
                last_any = max(last_any, times[i])
                if versions[i] == version:
                    exact = max(exact or sent, times[i])
            if not have:
                undelivered += 1
                continue
            latencies.append((exact if exact is not None else last_any) - sent)
            if not missing:
                every.append(last_any - sent)
            partial += exact is not None and (missing or exact != last_any)
        return latencies, undelivered, every, partial

    def results(self, cpu: float) -> dict:
        latencies, undelivered, every, partial = self.deliveries()
        window = self.win_end - self.win_start
        return {"accepted": len(self.accepted), "latencies": latencies, "undelivered": undelivered,
                "latencies_every": every, "partial": partial, "stall_after": dict(self.stall_after),
                "refused": dict(self.refused),
                "errors": dict(self.errors), "cpu": cpu, "window": window, "views": self.views,
                "lags": self.lags, "sizes": self.sizes, "samples": self.samples,
                "stall_retries": self.stall_retries, "tables_finished": self.tables_finished,
                "setup_errors": dict(self.setup_errors)}

    async def close(self, phones) -> None:
        import asyncio

        for task in list(self.tasks):
            task.cancel()

        async def bye(phone):
            try:
                await phone.sio.disconnect()
            except Exception:
                pass

        try:
            await asyncio.wait_for(asyncio.gather(*(bye(p) for p in phones)), timeout=10)
        except asyncio.TimeoutError:
            pass


# ================================================================== orchestrator
class Running:
    """One server set-up under load: the address phones use, its server processes (CPU and
    memory are theirs) and the infrastructure in front or behind (nginx, Redis)."""

    def __init__(self, url: str, servers: list[subprocess.Popen], infra: list[subprocess.Popen] = (),
                 shared: list[subprocess.Popen] = ()):
        # infra stops with the servers; shared (the run's redis-server) is only measured.
        self.url, self.servers, self.infra, self.shared = url, list(servers), list(infra), list(shared)

    @property
    def server_pids(self) -> list[int]:
        return [p.pid for p in self.servers]

    def infra_pids(self) -> list[int]:
        """nginx's master and its worker processes (psutil: the children), and our redis-server."""
        pids = [p.pid for p in self.infra + self.shared]
        try:
            import psutil

            for p in self.infra:
                pids += [c.pid for c in psutil.Process(p.pid).children(recursive=True)]
        except Exception:
            pass
        return pids


def _deploy():
    """deploy/nginx_conf.py and deploy/run_workers.py: the bench runs what a school would."""
    sys.path.insert(0, str(ROOT / "deploy"))
    import run_workers

    return run_workers


class Servers:
    """Starts and always stops the servers of one run; knows the temp folder.

    Embedded (default): one `python -m app` on SQLite, phones straight to it; the bare
    server alone. --scaled N: N workers on PostgreSQL (a fresh schema per load) and Redis
    behind nginx (deploy/run_workers.py), each with PROXY_COUNT=1; the bare server as N
    processes sharing the same Redis as their Socket.IO message queue, behind the same nginx
    configuration. Real phones get no cookie, so nginx spreads them one by one as it would
    a class; bare phones carry the sticky cookie set to their table's code, so a table's
    phones meet in one bare process (it keeps its tables in memory)."""

    def __init__(self, args, tmp: Path, preexec=_die_with_parent):
        # preexec: what the real (embedded) server's process runs before it starts;
        # bench/hostile.py adds an open-files limit there.
        self.args, self.tmp, self.preexec = args, tmp, preexec
        self.root = Path(args.server_root).resolve()
        self.procs: list[subprocess.Popen] = []
        self.seed_instance: Path | None = None
        self.redis_url: str | None = None
        self.schemas: list[str] = []
        self.redis_proc: subprocess.Popen | None = None

    def env(self, instance: Path, url: str) -> dict:
        env = dict(os.environ, INSTANCE_PATH=str(instance), DATABASE_URL=f"sqlite:///{instance / 'bench.db'}",
                   SECRET_KEY="loadbench-secret", PUBLIC_URL=url, BOT_DELAY_SCALE="1",
                   SOCKET_RATE="1000000", SOCKET_BURST="1000000", PYTHONUNBUFFERED="1",
                   SEATS_PER_ADDRESS="1000000", CONNECTIONS_PER_ADDRESS="0")  # every phone is 127.0.0.1
        env.pop("ASYNC_MODE", None)  # the entry point's default: eventlet
        env.pop("SOCKETIO_MESSAGE_QUEUE", None)
        env.pop("PROXY_COUNT", None)
        return env

    def prepare(self) -> None:
        """The facilitator account (embedded: in an instance folder each load copies) and,
        scaled, the Redis every process of the run shares."""
        self.seed_instance = self.tmp / "seed-instance"
        self.seed_instance.mkdir()
        if self.args.scaled:
            if _deploy().find_nginx() is None:
                raise RuntimeError("--scaled needs nginx (apt-get install nginx)")
            self.redis_url = self.args.redis or self.start_redis()
            return
        self.add_facilitator(self.env(self.seed_instance, "http://127.0.0.1"))

    def add_facilitator(self, env: dict) -> None:
        result = subprocess.run([self.args.server_python, "-m", "flask", "--app", "app", "facilitator", "add",
                                 FACILITATOR[0], "--password", FACILITATOR[1]], cwd=self.root, env=env,
                                capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
        if result.returncode != 0:
            raise RuntimeError(f"creating the facilitator failed:\n{result.stdout}{result.stderr}")

    def start_redis(self) -> str:
        """A private redis-server: the machine's shared one carries other programs' Socket.IO
        channels (the same default channel name) and their rate-limit keys."""
        if shutil.which("redis-server") is None:
            raise RuntimeError("--scaled needs redis-server, or --redis URL")
        port = free_port()
        proc = start_process(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                              "--appendonly", "no"], dict(os.environ), self.tmp, self.tmp / "redis.log")
        self.procs.append(proc)
        self.redis_proc = proc
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    return f"redis://127.0.0.1:{port}/0"
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"redis-server did not start:\n{tail(self.tmp / 'redis.log')}")

    def new_schema(self) -> str:
        import psycopg

        schema = "bench_" + os.urandom(5).hex()
        with psycopg.connect(self.args.pg, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
        self.schemas.append(schema)
        return f"{self.args.pg}?options=-csearch_path%3D{schema}"

    def drop_schemas(self) -> None:
        if not self.schemas:
            return
        import psycopg

        with psycopg.connect(self.args.pg, autocommit=True) as conn:
            for schema in self.schemas:
                conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        self.schemas = []

    def _behind_nginx(self, kind: str, label: str, ports: list[int], servers: list) -> Running:
        deploy = _deploy()
        listen = free_port()
        # One nginx worker process: this is a 2-core machine and nginx is not the subject.
        # No cap per address: every phone of the bench is 127.0.0.1.
        nginx = deploy.start_nginx(ports, f"127.0.0.1:{listen}", self.tmp / f"nginx-{kind}-{label}",
                                   worker_processes=1, per_address=0)
        self.procs.append(nginx)
        url = f"http://127.0.0.1:{listen}"
        deploy.wait_ready(url, servers + [nginx])
        return Running(url, servers, [nginx], [self.redis_proc] if self.redis_proc else [])

    def entry(self, label: str, port: int) -> tuple:
        """How the real server starts: `-m app`, or under bench/sample_server.py with --profile,
        --real-nodelay (which runs it with TCP_NODELAY on its listening socket) or
        --real-unwritten (which skips every move's transaction: a ceiling, not a server)."""
        nodelay = getattr(self.args, "real_nodelay", False)
        unwritten = getattr(self.args, "real_unwritten", False)
        if not self.args.profile and not nodelay and not unwritten:
            return ("-m", "app")
        out = "-"
        if self.args.profile:
            folder = Path(self.args.profile).resolve()
            folder.mkdir(parents=True, exist_ok=True)
            out = str(folder / f"real-{label}-{port}.txt")
        return (str(Path(__file__).resolve().parent / "sample_server.py"), *(["--unwritten"] if unwritten else []),
                *(["--nodelay"] if nodelay else []), out)

    def start_real(self, label: str) -> Running:
        instance = self.tmp / f"real-{label}"
        if not self.args.scaled:
            shutil.copytree(self.seed_instance, instance)
            port = free_port()
            url = f"http://127.0.0.1:{port}"
            log = self.tmp / f"real-{label}.log"
            proc = start_process([self.args.server_python, *self.entry(label, port), "--host", "127.0.0.1",
                                  "--port", str(port)], self.env(instance, url), self.root, log, self.preexec)
            self.procs.append(proc)
            wait_http(url, proc, log)
            return Running(url, [proc])
        deploy = _deploy()
        instance.mkdir()
        env = self.env(instance, "http://127.0.0.1")
        env.update(DATABASE_URL=self.new_schema(), SOCKETIO_MESSAGE_QUEUE=self.redis_url, PROXY_COUNT="1")
        self.add_facilitator(env)  # also migrates the fresh schema
        ports = [free_port() for _ in range(self.args.scaled)]
        servers = []
        for port in ports:
            proc = deploy.start_worker(port, env, self.tmp / f"real-{label}-{port}.log", self.root,
                                       self.entry(label, port))
            self.procs.append(proc)
            servers.append(proc)
        for port in ports:
            deploy.wait_ready(f"http://127.0.0.1:{port}", servers)
        return self._behind_nginx("real", label, ports, servers)

    def start_bare(self, label: str, template: dict) -> Running:
        template_file = self.tmp / f"template-{label}.json"
        template_file.write_text(json.dumps(template))
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        servers, ports = [], []
        for _ in range(self.args.scaled or 1):
            port = free_port()
            log = self.tmp / f"bare-{label}-{port}.log"
            cmd = [sys.executable, str(Path(__file__).resolve()), "--bare-server", str(port),
                   "--template", str(template_file), "--table-size", str(self.args.table_size),
                   "--skip", ",".join(self.args.skip), "--bare-end-after", str(self.args.bare_end_after)]
            if self.redis_url:
                cmd += ["--redis", self.redis_url]
            if getattr(self.args, "nagle", False):
                cmd += ["--nagle"]
            proc = start_process(cmd, env, self.root, log)
            self.procs.append(proc)
            servers.append(proc)
            ports.append(port)
            wait_http(f"http://127.0.0.1:{port}", proc, log)
        if not self.args.scaled:
            return Running(f"http://127.0.0.1:{ports[0]}", servers)
        return self._behind_nginx("bare", label, ports, servers)

    def start_echo(self, label: str) -> Running:
        """bench/echo_server.py: the least a Flask-SocketIO server can do for these phones."""
        port = free_port()
        log = self.tmp / f"echo-{label}.log"
        cmd = [sys.executable, str(Path(__file__).resolve().parent / "echo_server.py"), str(port)]
        proc = start_process(cmd + (["--nagle"] if getattr(self.args, "nagle", False) else []),
                             dict(os.environ, PYTHONUNBUFFERED="1"), self.root, log)
        self.procs.append(proc)
        wait_http(f"http://127.0.0.1:{port}", proc, log)
        return Running(f"http://127.0.0.1:{port}", [proc])

    def start_peer(self, label: str) -> Running:
        """bench/peer/server.js on Node (boardgame.io 0.50.2, NODE_ENV=production: no debug logging)."""
        port = free_port()
        log = self.tmp / f"peer-{label}.log"
        proc = start_process([shutil.which("node") or "node", str(PEER / "server.js"), str(port)],
                             dict(os.environ, NODE_ENV="production"), PEER, log)
        self.procs.append(proc)
        wait_http(f"http://127.0.0.1:{port}", proc, log)
        return Running(f"http://127.0.0.1:{port}", [proc])

    def stop(self, running: Running | None) -> None:
        if running is None:
            return
        for proc in running.infra + running.servers:
            stop_process(proc)

    def stop_all(self) -> None:
        for proc in self.procs:
            stop_process(proc)
        try:
            self.drop_schemas()
        except Exception as exc:  # the report still prints; say what is left behind
            print(f"could not drop the bench's schemas {self.schemas}: {exc}", file=sys.stderr)


def discover_games(url: str, token: str, wanted: list[str] | None, table_size: int) -> dict[str, int]:
    """{game key: phones per table}: --table-size, within the seats the game's spec allows
    (a Wizard duel seats 2: a third phone would get table_full)."""
    status, games = http("GET", url + "/api/games", token=token)
    if status != 200 or not isinstance(games, list):
        raise RuntimeError(f"GET /api/games answered {status}: {games!r}")
    seats = {g["key"]: max(int(g.get("min_seats", 1)), min(table_size, int(g.get("max_seats", table_size))))
             for g in games if isinstance(g, dict) and g.get("key") and g.get("playable", True)}
    if wanted:
        unknown = [k for k in wanted if k not in seats]
        if unknown:
            raise RuntimeError(f"no playable game {', '.join(unknown)} (there are: {', '.join(seats)})")
        return {k: seats[k] for k in wanted}
    return seats


def login(url: str) -> str:
    status, body = http("POST", url + "/api/login", {"name": FACILITATOR[0], "password": FACILITATOR[1]})
    if status != 200 or not isinstance(body, dict) or "token" not in body:
        raise RuntimeError(f"POST /api/login answered {status}: {body!r}")
    return body["token"]


def plan_tables(games: dict[str, int], phones: int) -> list[dict]:
    """Tables of the games round-robin, each with its game's phones, up to `phones` in all."""
    plan, total, order = [], 0, list(games.items())
    while True:
        fitted = False
        for game, seats in order:
            if total + seats <= phones:
                plan.append({"game": game, "seats": seats})
                total += seats
                fitted = True
        if not fitted:
            return plan


def create_tables(url: str, token: str, plan: list[dict]) -> list[dict]:
    tables = []
    for table in plan:
        status, body = http("POST", url + "/api/tables", {"game": table["game"], "options": {}}, token)
        if status != 201 or not isinstance(body, dict) or "code" not in body:
            raise RuntimeError(f"POST /api/tables {table['game']!r} answered {status}: {body!r}")
        tables.append(dict(table, code=body["code"]))
    return tables


def receive(pipe, proc, timeout: float, what: str):
    """The next message of one generator, or an error if it died or went quiet."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pipe.poll(0.2):
            return pipe.recv()
        if not proc.is_alive():
            raise RuntimeError(f"load generator {proc.name} exited ({proc.exitcode}) before {what}")
    raise RuntimeError(f"load generator {proc.name} timed out before {what}")


def run_load(args, kind: str, running: Running, tables: list[dict], token: str | None, on_go=None) -> dict:
    """Phones on `tables` against one server; returns the aggregated measurements.

    on_go(start, end), if given, is called once the phones were told to go, with the
    measured window's bounds (time.time()): bench/hostile.py starts its attack there."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    chunks, chunk = [], []  # whole tables per generator process, about --phones-per-process phones each
    for table in tables:
        if chunk and sum(t["seats"] for t in chunk) + table["seats"] > args.phones_per_process:
            chunks.append(chunk)
            chunk = []
        chunk.append(table)
    chunks += [chunk] if chunk else []
    phones = sum(t["seats"] for t in tables)
    workers, pipes, results = [], [], []
    setup_timeout = 30 + 0.25 * phones
    try:
        for index, chunk in enumerate(chunks):
            cfg = {"kind": kind, "url": running.url, "token": token, "tables": chunk, "index": index,
                   "table_size": args.table_size, "pace": args.pace, "jitter": args.jitter, "skip": args.skip,
                   "connect_concurrency": 10, "setup_timeout": setup_timeout, "keep_samples": kind == "real",
                   "sticky_table": bool(args.scaled) and (kind == "bare" or args.affinity == "table")}
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=worker_main, args=(cfg, child), daemon=True, name=f"loadgen-{index}")
            proc.start()
            child.close()
            workers.append(proc)
            pipes.append(parent)
        ready, seating = [], time.monotonic()
        for pipe, proc in zip(pipes, workers):
            ready.append(receive(pipe, proc, setup_timeout + 60, "seating its phones")[1])
        seating = time.monotonic() - seating
        joined = sum(r["joined"] for r in ready)
        print(f"  {kind}: {joined} phones seated in {seating:.1f} s", flush=True)
        setup_errors = Counter()
        for r in ready:
            setup_errors.update(r["setup_errors"])
        now = time.time()
        go_at = now + 0.5
        start, end = go_at + args.warmup, go_at + args.warmup + args.seconds
        for pipe in pipes:
            pipe.send(("go", {"go_at": go_at, "start": start, "end": end}))
        if on_go is not None:
            on_go(start, end)
        time.sleep(max(0.0, start - time.time()))
        pids, infra = running.server_pids, running.infra_pids()
        cpu0, busy0, t0 = [cpu_seconds(p) for p in pids], machine_busy(), time.monotonic()
        infra0 = sum(cpu_seconds(p) for p in infra)
        load0 = os.getloadavg()[0]
        time.sleep(max(0.0, end - time.time()))
        cpu1, busy1, t1 = [cpu_seconds(p) for p in pids], machine_busy(), time.monotonic()
        infra1 = sum(cpu_seconds(p) for p in infra)
        rss = [rss_mb(p) for p in pids]
        for pipe, proc in zip(pipes, workers):
            results.append(receive(pipe, proc, GRACE + 60, "reporting")[1])
    finally:
        for pipe in pipes:
            try:
                pipe.close()
            except OSError:
                pass
        finished = len(results) == len(workers)
        for proc in workers:
            proc.join(timeout=15 if finished else 0.5)  # they hang up their phones, unless interrupted
            if proc.is_alive():
                proc.terminate()
                proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=5)
    latencies = [x for r in results for x in r["latencies"]]
    errors = Counter()
    for r in results:
        errors.update(r["errors"])
        setup_errors.update(r["setup_errors"])
    window = results[0]["window"]
    gen_cpu = [100 * r["cpu"] / r["window"] for r in results]
    lags = [x for r in results for x in r["lags"]]
    accepted = sum(r["accepted"] for r in results)
    server_cpu_s = sum(cpu1) - sum(cpu0)
    return {"kind": kind, "phones": phones, "joined": joined, "tables": len(tables),
            "procs": len(results), "accepted": accepted,
            "moves_per_s": accepted / window,
            "acts_per_s": (accepted + sum(errors.values())) / window,
            "cpu_ms_per_move": 1000 * server_cpu_s / accepted if accepted else float("nan"),
            "p50": 1000 * percentile(latencies, 50), "p95": 1000 * percentile(latencies, 95),
            "p99": 1000 * percentile(latencies, 99), "samples": len(latencies),
            "p99_every": 1000 * percentile([x for r in results for x in r["latencies_every"]], 99),
            "partial": sum(r["partial"] for r in results),
            "refused": sum((Counter(r["refused"]) for r in results), Counter()),
            "stall_after": sum((Counter(r["stall_after"]) for r in results), Counter()),
            "undelivered": sum(r["undelivered"] for r in results), "errors": errors,
            "setup_errors": setup_errors, "server_cpu": 100 * (sum(cpu1) - sum(cpu0)) / (t1 - t0),
            "server_cpu_each": [100 * (b - a) / (t1 - t0) for a, b in zip(cpu0, cpu1)],
            "server_rss": max(rss), "server_rss_each": rss, "infra_cpu": 100 * (infra1 - infra0) / (t1 - t0),
            "load_avg": load0,
            "other_cpu": 100 * ((busy1 - busy0) - (sum(cpu1) - sum(cpu0)) - (infra1 - infra0)
                                - sum(r["cpu"] for r in results)) / (t1 - t0),
            "gen_cpu_sum": sum(gen_cpu), "gen_cpu_max": max(gen_cpu),
            "lag_p99": 1000 * percentile(lags, 99), "lag_max": 1000 * max(lags) if lags else float("nan"),
            "view_size": statistics.median(s for r in results for s in r["sizes"])
            if any(r["sizes"] for r in results) else float("nan"),
            "views": sum(r["views"] for r in results),
            "view_samples": [s for r in results for s in r["samples"]],
            "stall_retries": sum(r["stall_retries"] for r in results),
            "tables_finished": sum(r["tables_finished"] for r in results)}


# The bare server's view when no real run gave one (--servers without real): a War-like
# view, brought to the median size of the real server's views at 100 phones (War and the
# other games mixed, December 2026).
SYNTHETIC_VIEW_BYTES = 3500
SYNTHETIC_VIEW = {"code": "B00000", "version": 1, "status": "playing", "seat": 0, "game": "war",
                  "actions": [{"type": "reveal", "label": "Reveal your card"},
                              {"type": "autoplay", "label": "Auto-play"}],
                  "players": [{"seat": i, "name": f"Player {i}", "cards": 13, "connected": True} for i in range(4)],
                  "log": [{"seat": 1, "text": "Player 1 revealed the 7 of hearts"}]}


def pick_template(samples: list[dict], target: float, fallback: dict | None) -> dict:
    """A real view that offered a game action, brought to `target` bytes (the median size of
    every view the phones received from the real server): oldest log entries dropped while
    it is too large, copies of its log entries added while it is too small, and the last few
    bytes made up by a `pad` string."""
    if not samples:
        if fallback is None:
            raise RuntimeError("the real server sent no view with a game action to copy")
        samples = [fallback]
    template = json.loads(json.dumps(min(samples, key=lambda s: abs(wire_size(s) - target))))
    template.pop("pad", None)
    if not target == target:  # nan: nothing measured
        return template
    target = int(target)
    log = template.get("log") if isinstance(template.get("log"), list) else []
    while wire_size(template) > target and log:
        log.pop(0)
    for entry in list(log) * 50:
        if wire_size(template) + wire_size(entry) + 1 > target:
            break
        log.append(entry)
    missing = target - wire_size(template) - len(',"pad":""')
    if missing > 0:
        template["pad"] = "x" * missing
    return template


def machine_busy() -> float:
    """CPU seconds all processes of the machine have used (from /proc/stat)."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except OSError:
        return float("nan")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


# ======================================================================= output
def fmt(x: float, digits: int = 0) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:,.{digits}f}"


def fmt_errors(errors: Counter) -> str:
    if not errors:
        return "0"
    return ", ".join(f"{code} {n}" for code, n in errors.most_common())


def ratio(a: float, b: float, digits: int = 1) -> str:
    return fmt(a / b, digits) if a == a and b == b and b > 0 else "–"


def report(rows: list[dict], args) -> str:
    """rows: per load, {kind: run_load's measurements}."""
    head = ("| phones | server | p50 ms | p95 ms | p99 ms | acts/s sent | moves/s | CPU ms a move "
            "| errors (acts in window) | server CPU % | server RSS MB | loadgen CPU % (procs, busiest) |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    flagged = lagged = False
    measured = [r for row in rows for r in row.values()]
    for row in rows:
        for r in row.values():
            warn = " ⚠cpu" if r["gen_cpu_max"] > 80 else ""
            if r["lag_p99"] > LAG_WARN:
                warn += " ⚠lag"
            flagged |= "cpu" in warn
            lagged |= "lag" in warn
            lines.append(
                f"| {r['phones']} | {r['kind']} | {fmt(r['p50'], 1)} | {fmt(r['p95'], 1)} | {fmt(r['p99'], 1)} "
                f"| {fmt(r['acts_per_s'], 1)} | {fmt(r['moves_per_s'], 1)} | {fmt(r['cpu_ms_per_move'], 2)} "
                f"| {fmt_errors(r['errors'])} | {fmt(r['server_cpu'])} "
                f"| {fmt(r['server_rss'])} | {fmt(r['gen_cpu_sum'])} ({r['procs']}, {fmt(r['gen_cpu_max'])})"
                f"{warn} |")
    others = [k for k in ("bare", "echo", "peer") if any(k in row for row in rows)]
    if any("real" in row for row in rows) and others:
        head = ("| phones | " + " | ".join(f"p95 real/{k}" for k in others) + " | "
                + " | ".join(f"CPU a move real/{k}" for k in others) + " | "
                + " | ".join(f"moves/s real/{k}" for k in others) + " |")
        if "bare" in others and "echo" in others:
            head += " p95 bare−echo ms |"
        lines += ["", "Ratios (same phones, same pace: the same offered load):", "", head,
                  "|" + "---|" * (head.count("|") - 1)]
        for row in rows:
            real = row.get("real")
            if real is None:
                continue
            cells = [ratio(real["p95"], row[k]["p95"]) if k in row else "–" for k in others]
            cells += [ratio(real["cpu_ms_per_move"], row[k]["cpu_ms_per_move"]) if k in row else "–" for k in others]
            cells += [ratio(real["moves_per_s"], row[k]["moves_per_s"], 2) if k in row else "–" for k in others]
            if "bare" in others and "echo" in others:
                cells.append(fmt(row["bare"]["p95"] - row["echo"]["p95"], 1)
                             if "bare" in row and "echo" in row else "–")
            lines.append(f"| {real['phones']} | " + " | ".join(cells) + " |")
        for row in rows:  # a repeat's real and bare run back to back: their ratio shares the machine's mood
            real, bare = row.get("real"), row.get("bare")
            if real and bare and len(real.get("cpu_each", [])) == len(bare.get("cpu_each", [])) > 1:
                paired = [x / y for x, y in zip(real["cpu_each"], bare["cpu_each"]) if y == y and y > 0]
                if paired:
                    # Pairs of the same code spread by half a ratio on a shared machine: the quartiles
                    # say how far this run's median may be from the next one's.
                    spread = ""
                    if len(paired) >= 4:
                        low, _mid, high = statistics.quantiles(paired, n=4)
                        spread = f", quartiles {fmt(low, 2)}-{fmt(high, 2)}"
                    lines.append(f"\n{real['phones']} phones, CPU a move real/bare repeat by repeat (each pair run "
                                 f"back to back): {', '.join(fmt(x, 2) for x in paired)}; median "
                                 f"{fmt(statistics.median(paired), 2)}{spread}")
    elif "bare" in others and "echo" in others:
        lines += ["", "| phones | p95 bare−echo ms | p95 bare/echo |", "|---|---|---|"]
        for row in rows:
            if "bare" in row and "echo" in row:
                lines.append(f"| {row['bare']['phones']} | {fmt(row['bare']['p95'] - row['echo']['p95'], 1)} "
                             f"| {ratio(row['bare']['p95'], row['echo']['p95'])} |")
    games = ", ".join(args.games) if args.games else "every playable game, mixed"
    notes = ["", f"Window {args.seconds:g} s after {args.warmup:g} s warm-up; pace {args.pace:g} s "
             f"± {100 * args.jitter:.0f} %; skipped action types: {', '.join(args.skip) or 'none'}; "
             f"{os.cpu_count()} CPU cores shared by the servers and the load generators.",
             f"Games: {games} (real, bare, echo); the peer plays its War-like game, tables of "
             f"{min(4, max(2, args.table_size))}.",
             "Latency: act sent -> the last phone sent a view of the acked version has it (phones whose view "
             "did not change are sent none). CPU a move: the server's CPU seconds in the window over the acts "
             "sent in it that it accepted. acts/s sent: accepted and refused.",
             "Servers: real = python -m app (SQLite, eventlet" + (", TCP_NODELAY by --real-nodelay" if
                                                                 getattr(args, "real_nodelay", False) else "")
             + (", MOVES NOT WRITTEN (--real-unwritten: a ceiling experiment, not a server)"
                if getattr(args, "real_unwritten", False) else "")
             + "); bare = Flask-SocketIO + eventlet, views of the real size, one per seat, War's rounds; "
             "echo = bench/echo_server.py, one tiny view to the table's room per act; peer = boardgame.io "
             "0.50.2 on Node (bench/peer/server.js). The bench's own servers run with TCP_NODELAY"
             + (" OFF (--nagle)" if getattr(args, "nagle", False) else " (as Node and nginx do)") + "."]
    if args.games != ["war"] and any("real" in row and ("bare" in row or "peer" in row) for row in rows):
        notes.append("moves/s ratios with every game mixed: the real games' own rhythms (turns, bidding) are "
                     "not War's rounds, which the bare server and the peer keep; --war compares like with like.")
    for what, why in getattr(args, "skipped", {}).items():
        notes.append(f"{what}: skipped ({why})")
    for row in rows:
        for r in row.values():
            extra = [f"{r['joined']}/{r['phones']} phones seated at {r['tables']} tables",
                     *([f"medians of {len(r['p95_each'])} repeats (p95 each: "
                        + ", ".join(fmt(x, 1) for x in r["p95_each"]) + " ms; CPU a move each: "
                        + ", ".join(fmt(x, 2) for x in r["cpu_each"]) + " ms)"] if r.get("p95_each") else []),
                     f"{r['samples']} latency samples", f"median view {fmt(r['view_size'])} B",
                     f"{r['views']:,} views received",
                     f"other processes {fmt(max(0.0, r['other_cpu']))} % CPU (load average {r['load_avg']:.1f})",
                     f"loop lag p99 {fmt(r['lag_p99'])} ms (max {fmt(r['lag_max'])})"]
            if r["undelivered"]:
                extra.append(f"{r['undelivered']} accepted acts not seen by every phone by the end")
            if r["tables_finished"]:
                extra.append(f"{r['tables_finished']} games ended, their phones re-seated at fresh tables")
            if r.get("infra_cpu"):
                extra.append(f"nginx and redis-server {fmt(r['infra_cpu'])} % CPU")
            if len(r.get("server_rss_each", [])) > 1:
                extra.append("per worker: CPU " + ", ".join(fmt(x) for x in r["server_cpu_each"]) + " %, RSS "
                             + ", ".join(fmt(x) for x in r["server_rss_each"]) + " MB")
            if r["partial"]:
                extra.append(f"{r['partial']} acts' last view came to phones whose view changed before the others' "
                             f"next view (p99 counting those next views: {fmt(r['p99_every'])} ms)")
            if r["stall_retries"]:
                extra.append(f"{r['stall_retries']} acts re-sent after {STALL:g} s without news (after "
                             f"{fmt_errors(r['stall_after'])})")
            if r["setup_errors"]:
                extra.append("setup errors: " + fmt_errors(r["setup_errors"]))
            if r["refused"]:
                extra.append("refused: " + "; ".join(f"{k} x{n}" for k, n in r["refused"].most_common(4)))
            notes.append(f"- {r['phones']} phones, {r['kind']}: " + "; ".join(extra))
    busy = [r["other_cpu"] for r in measured]
    if busy and max(busy) > 25:
        notes.append(f"⚠ other processes on this machine used up to {max(busy):.0f} % of a core during the "
                     "windows: the servers and the phones had less CPU than the table suggests; compare the "
                     "ratios rather than the absolute numbers, or rerun on a quiet machine.")
    if flagged:
        notes.append("⚠cpu: a load-generator process used more than 80 % of a core: the phones themselves were a "
                     "bottleneck, so that row's latencies and moves/s are not trustworthy (try "
                     "--phones-per-process 50, or a machine with more cores).")
    if lagged:
        notes.append(f"⚠lag: a generator's event loop ran more than {LAG_WARN:g} ms late (p99) in the window, so "
                     "the phones noticed views that much late: that row's latencies are inflated by up to that much "
                     "(the generators were short of CPU).")
    return "\n".join(lines + notes)


# ========================================================================= main
def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phones", default="4,100,500,1000", help="comma-separated loads (default 4,100,500,1000)")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured window per load and server")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds of play before the window")
    parser.add_argument("--quick", action="store_true", help="4 and 100 phones, 8 s each (a smoke check)")
    parser.add_argument("--pace", type=float, default=0.2, help="human think time before each act (s)")
    parser.add_argument("--jitter", type=float, default=0.25, help="pace varies by +/- this fraction")
    parser.add_argument("--skip", default="autoplay", help="action types phones never choose (comma-separated)")
    parser.add_argument("--games", default="", help="game keys to use (default: every playable one of /api/games)")
    parser.add_argument("--table-size", type=int, default=4)
    parser.add_argument("--phones-per-process", type=int, default=100, help="phones per load-generator process")
    parser.add_argument("--server-root", default=str(ROOT), help="the checkout whose `python -m app` runs")
    parser.add_argument("--server-python", default=sys.executable,
                        help="the Python that runs the real server (one worker): e.g. a venv with the project "
                             "installed without the test extras, as `bash scripts/run` makes it, whose server "
                             "does not load python-socketio's client stacks (aiohttp, requests: about 13 MB)")
    parser.add_argument("--servers", default=",".join(KINDS),
                        help="which servers to measure, in this order (default: real,bare,echo,peer; without "
                             "a real run the bare server sends a synthetic view of 3,500 B)")
    parser.add_argument("--only", choices=["real", "both"], default=None,
                        help="`real`: --servers real; `both`: --servers real,bare (as before issue 24)")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="measure every server N times at each load, interleaved (real, bare, echo, peer, "
                             "then again), and report the medians: on a shared machine one window can be unlucky")
    parser.add_argument("--war", action="store_true",
                        help="War tables only (--games war): one game's cost, comparable over time and with "
                             "the peer's War-like game")
    parser.add_argument("--nagle", action="store_true",
                        help="the bench's own servers (bare, echo) keep eventlet's default, Nagle's algorithm "
                             "on, as the bare server ran before issue 24 (views wait for delayed ACKs: "
                             "about 40 ms)")
    parser.add_argument("--real-nodelay", action="store_true",
                        help="run the real server with TCP_NODELAY on its listening socket (through "
                             "bench/sample_server.py, app/ untouched): what Nagle costs a --server-root "
                             "checkout older than app/__main__.py's `listen`, which sets it itself")
    parser.add_argument("--real-unwritten", action="store_true",
                        help="a ceiling experiment: run the real server with every move's transaction skipped "
                             "(through bench/sample_server.py, app/ untouched), so that it persists no move: "
                             "the least CPU a move any work on persistence could reach")
    parser.add_argument("--scaled", type=int, default=0, metavar="N",
                        help="N workers on PostgreSQL and Redis behind nginx (deploy/), the bare server as N "
                             "processes behind the same nginx; default: one worker on SQLite, no proxy")
    parser.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/test",
                        help="--scaled: the PostgreSQL database (each load gets a fresh schema, dropped after)")
    parser.add_argument("--redis", default=None,
                        help="--scaled: Redis URL (default: a private redis-server on a free port)")
    parser.add_argument("--affinity", choices=["none", "table"], default="none",
                        help="--scaled: `table` sends a real table's phones to one worker too (the sticky "
                             "cookie set to the table's code), as the bare server's always are; `none`: nginx "
                             "spreads them phone by phone, as it does browsers")
    parser.add_argument("--profile", metavar="DIR", help="run the real server(s) under bench/sample_server.py "
                        "and write where their CPU went to DIR/real-<load>-<port>.txt")
    parser.add_argument("--keep", action="store_true", help="keep the temp folder (server logs)")
    parser.add_argument("--bare-server", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--template", help=argparse.SUPPRESS)
    parser.add_argument("--bare-end-after", type=int, default=0, help=argparse.SUPPRESS)  # a test of re-seating
    args = parser.parse_args(argv)
    if args.quick:
        args.phones, args.seconds, args.warmup = "4,100", 8.0, 3.0
    args.loads = [int(x) for x in str(args.phones).split(",") if x.strip()]
    args.skip = [x for x in str(args.skip).split(",") if x]
    args.games = [x for x in args.games.split(",") if x]
    if args.war:
        args.games = ["war"]
    if args.only == "real":
        args.servers = "real"
    elif args.only == "both":
        args.servers = "real,bare"
    args.servers = [x.strip() for x in str(args.servers).split(",") if x.strip()]
    unknown = [x for x in args.servers if x not in KINDS]
    if unknown or not args.servers:
        parser.error(f"--servers: choose among {', '.join(KINDS)}")
    args.skipped = {}  # server -> why it was not measured
    if any(n < args.table_size for n in args.loads):
        parser.error(f"every load needs at least one table of {args.table_size} phones")

    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.bare_server:
        bare_server_main(args.bare_server, args.template, args.table_size, args.skip, args.bare_end_after,
                         args.redis, args.nagle)
        return 0

    def on_term(*_):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # also when started with SIGINT ignored
    tmp = Path(tempfile.mkdtemp(prefix="classroom-load-"))
    servers = Servers(args, tmp)
    rows: list[dict] = []  # per load: {kind: measurements}
    template = None
    started = time.monotonic()
    kinds = list(args.servers)
    try:
        commit = subprocess.run(["git", "-C", str(servers.root), "log", "-1", "--format=%h %s"],
                                capture_output=True, text=True).stdout.strip()[:72]
        print(f"$ python {' '.join(sys.argv)}\nserver: {servers.root}{f' ({commit})' if commit else ''}; "
              f"temp: {tmp}", flush=True)
        if args.scaled and ("echo" in kinds or "peer" in kinds):
            args.skipped["echo, peer"] = "--scaled runs the real and the bare server only"
            kinds = [k for k in kinds if k not in ("echo", "peer")]
        if "peer" in kinds:
            why = peer_missing()
            if why:
                args.skipped["peer"] = why
                kinds.remove("peer")
        for what, why in args.skipped.items():
            print(f"{what} skipped: {why}", flush=True)
        servers.prepare()
        for phones in args.loads:
            row: dict = {}  # kind -> its measurements (the median of the repeats)
            runs: dict = {}  # kind -> each repeat's
            rows.append(row)

            def keep(kind: str, result: dict) -> None:
                runs.setdefault(kind, []).append(result)
                row[kind] = combine(runs[kind])
                summary(result)

            for repeat in range(args.repeat):
                label = str(phones) if repeat == 0 else f"{phones}r{repeat}"
                if args.repeat > 1:
                    print(f"[{phones} phones] repeat {repeat + 1} of {args.repeat}", flush=True)
                plan = None
                if "real" in kinds:
                    running = servers.start_real(label)
                    url = running.url
                    try:
                        token = login(url)
                        games = discover_games(url, token, args.games, args.table_size)
                        if not games:
                            raise RuntimeError("GET /api/games lists no playable game: nothing to benchmark "
                                               "(name one with --games, or run against a checkout that has one "
                                               "with --server-root)")
                        plan = create_tables(url, token, plan_tables(games, phones))
                        print(f"[{phones} phones] real server on {url}: {len(plan)} tables of "
                              f"{', '.join(f'{k} ({n} phones)' for k, n in games.items())}", flush=True)
                        keep("real", run_load(args, "real", running, plan, token))
                    finally:
                        servers.stop(running)
                    template = pick_template(runs["real"][-1]["view_samples"], runs["real"][-1]["view_size"], template)
                if plan is None:  # no real run to copy: War tables, a synthetic view
                    plan = [{"game": "war", "seats": args.table_size} for _ in range(phones // args.table_size)]
                own = [dict(t, code=f"B{i:05d}") for i, t in enumerate(plan)]
                if "bare" in kinds:
                    view = template or pick_template([], SYNTHETIC_VIEW_BYTES, SYNTHETIC_VIEW)
                    running = servers.start_bare(label, view)
                    try:
                        print(f"[{phones} phones] bare server on {running.url}: view {wire_size(view)} B"
                              f"{'' if template else ' (synthetic: no real run to copy)'}", flush=True)
                        keep("bare", run_load(args, "bare", running, own, None))
                    finally:
                        servers.stop(running)
                if "echo" in kinds:
                    running = servers.start_echo(label)
                    try:
                        print(f"[{phones} phones] minimal echo on {running.url}", flush=True)
                        keep("echo", run_load(args, "echo", running, own, None))
                    finally:
                        servers.stop(running)
                if "peer" in kinds:
                    running = servers.start_peer(label)
                    try:
                        seats = min(4, max(2, args.table_size))
                        matches = []
                        for _ in range(phones // seats):
                            status, body = peer_match(running.url, seats)
                            if status != 200 or not isinstance(body, dict) or not body.get("matchID"):
                                raise RuntimeError(f"the peer's POST /games/{PEER_GAME}/create answered {status}: "
                                                   f"{body!r}")
                            matches.append({"game": PEER_GAME, "seats": seats, "code": body["matchID"]})
                        print(f"[{phones} phones] boardgame.io peer on {running.url}: {len(matches)} War-like "
                              f"matches of {seats}", flush=True)
                        keep("peer", run_load(args, "peer", running, matches, None))
                    finally:
                        servers.stop(running)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        servers.stop_all()
        if any(rows):
            print()
            print(report([r for r in rows if r], args))
            print(f"\n(total {time.monotonic() - started:.0f} s)")
        if args.keep:
            print(f"logs kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


MEDIANS = ("p50", "p95", "p99", "p99_every", "moves_per_s", "acts_per_s", "cpu_ms_per_move", "server_cpu",
           "server_rss", "infra_cpu", "other_cpu", "load_avg", "gen_cpu_sum", "gen_cpu_max", "lag_p99", "lag_max",
           "view_size")
SUMS = ("accepted", "samples", "views", "undelivered", "partial", "stall_retries", "tables_finished")
COUNTERS = ("errors", "refused", "stall_after", "setup_errors")


def combine(results: list[dict]) -> dict:
    """One server's repeats at one load (--repeat): the median of each measure, counts summed,
    and every repeat's p95 (`p95_each`) for the notes."""
    if len(results) == 1:
        return results[0]
    out = dict(results[-1])
    for key in MEDIANS:
        values = [r[key] for r in results if isinstance(r.get(key), (int, float)) and r[key] == r[key]]
        out[key] = statistics.median(values) if values else float("nan")
    for key in SUMS:
        out[key] = sum(r[key] for r in results)
    for key in COUNTERS:
        out[key] = sum((Counter(r[key]) for r in results), Counter())
    out["p95_each"] = [r["p95"] for r in results]
    out["cpu_each"] = [r["cpu_ms_per_move"] for r in results]
    return out


def summary(r: dict) -> None:
    print(f"  {r['kind']}: p95 {fmt(r['p95'])} ms, {fmt(r['moves_per_s'], 1)} moves/s, "
          f"CPU {fmt(r['server_cpu'])} % ({fmt(r['cpu_ms_per_move'], 2)} ms a move)", flush=True)


if __name__ == "__main__":
    sys.exit(main())
