"""The scaled configuration for real: two `python -m app` workers sharing one
PostgreSQL database (a private schema) and one Redis message queue, phones
(python-socketio clients) on both, and a worker SIGKILLed mid-game.

What must hold: no acknowledged move lost or doubled (the log has every acked
version once, and replaying it gives the stored snapshot); a phone on one worker
shows as connected on a board and a class overview watched through the other,
and as away a few seconds after its worker dies; its phones resume on the
surviving worker and finish the game; the tables' timers fire once across the
workers and still fire when the worker that set them is dead.
"""
from __future__ import annotations

import base64
import os
import socket
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
import requests

from conftest import make_app
from live import LivePhone, LiveServer, autoplay_to_end, end_table, free_port, play_live

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "deploy"))
import run_workers  # noqa: E402

from app.extensions import services

pytestmark = pytest.mark.live

AWAY_WITHIN = 10.0  # app/realtime/presence.py: a dead worker is noticed after DEAD_AFTER (4 s) + a heartbeat


@pytest.fixture
def cluster(tmp_path, postgres_schema):
    """Start two workers on one database and one queue (its own Redis db number, so
    that parallel runs' limiter keys do not meet); stop them afterwards."""
    made = []
    redis_db = 1 + uuid.uuid4().int % 15

    def start(count=2, **env):
        shared = {"DATABASE_URL": postgres_schema, "SOCKETIO_MESSAGE_QUEUE": f"redis://127.0.0.1:6379/{redis_db}",
                  "SECRET_KEY": "scaled-" + uuid.uuid4().hex, **env}
        servers = [LiveServer(tmp_path / f"w{i}", **shared) for i in range(count)]
        made.extend(servers)
        servers[0].add_facilitator()
        for srv in servers:
            srv.start()
        return servers

    start.database_url = postgres_schema
    start.clients = []
    yield start
    for client in start.clients:
        client.close()
    for srv in made:
        srv.stop()


def phone(cluster, url, **kw) -> LivePhone:
    p = LivePhone(url, **kw)
    cluster.clients.append(p)
    return p


def overview_watcher(cluster, url, token, class_code):
    """The teacher's class overview page, through one worker: keeps the last overview."""
    teacher = phone(cluster, url, auth={"token": token})
    teacher.overview = None
    teacher.got_overview = threading.Condition()

    def on_overview(payload):
        with teacher.got_overview:
            teacher.overview = payload
            teacher.got_overview.notify_all()

    teacher.sio.on("overview", on_overview)
    assert teacher.call("watch", {"code": class_code, "role": "facilitator"})["ok"]
    return teacher


def wait_overview(teacher, predicate, timeout=20.0):
    deadline = time.monotonic() + timeout
    with teacher.got_overview:
        while not (teacher.overview and predicate(teacher.overview)):
            left = deadline - time.monotonic()
            assert left > 0, f"timed out; last overview counts {teacher.overview and teacher.overview['counts']}"
            teacher.got_overview.wait(left)
    return teacher.overview


def connected(view) -> dict:
    return {p["name"]: p["connected"] for p in view["players"]}


def check_log(database_url, code, acked):
    """Every acknowledged version is in the log once, the versions run 1..N with no
    gap, and replaying the events from the seed gives the stored snapshot. The table
    must stand still meanwhile (ended, or waiting for a person)."""
    import tempfile
    from pathlib import Path

    app = make_app(Path(tempfile.mkdtemp()), DATABASE_URL=database_url)
    try:
        tables = services(app).tables
        versions = [e.version for e in tables.events(code)]
        table = tables.get(code)
        assert versions == list(range(1, table.version + 1))
        assert set(acked) <= set(versions)
        assert len(acked) == len(set(acked)), "one version acknowledged to two moves"
        assert tables.replay(code) == table.state
        return tables.events(code)
    finally:
        services(app).stop()


def test_two_workers_share_a_class_lose_nothing_and_survive_one_being_killed(cluster):
    """Four phones of a class at one table, two on each worker; the board and the
    teacher's overview watch through worker A. Worker B is SIGKILLed mid-game."""
    a, b = cluster()
    token = a.api_token()
    headers = {"Authorization": f"Bearer {token}"}
    # A bounded match (first to 25 points: at most ~100 battles) keeps the test's time steady.
    klass = {"game": "war", "table_size": 4, "options": {"length": "first_to_25_points"}}
    made = requests.post(a.url + "/api/classes", json=klass, headers=headers, timeout=10)
    class_code = made.json()["code"]
    names = ["Ana", "Ben", "Cara", "Dev"]
    phones = [phone(cluster, (a if i % 2 == 0 else b).url) for i in range(4)]  # Ana, Cara on A; Ben, Dev on B
    codes = {p.join(class_code, name)["table"] for p, name in zip(phones, names)}
    assert len(codes) == 1, codes
    code = codes.pop()
    board = phone(cluster, a.url)
    assert board.call("watch", {"code": code})["ok"]
    teacher = overview_watcher(cluster, a.url, token, class_code)

    # Presence: B's phones are connected on A's board and in A's class overview.
    board.wait_for(lambda v: connected(v) == dict.fromkeys(names, True))
    # Dev closes the page on B: away on A's board at once (not after a heartbeat); back on reopening.
    phones[3].close()
    closed = time.monotonic()
    board.wait_for(lambda v: not connected(v)["Dev"], timeout=5)
    assert time.monotonic() - closed < 2.0  # by the published change: the reaper would take 4-5 s
    phones[3] = phone(cluster, b.url, token=phones[3].token)
    board.wait_for(lambda v: connected(v) == dict.fromkeys(names, True), timeout=5)
    assert requests.post(f"{b.url}/api/classes/{class_code}/start", headers=headers, timeout=30).ok
    for p in phones + [board]:
        p.wait_for(lambda v: v["status"] == "playing")
    wait_overview(teacher, lambda o: o["counts"]["connected"] == 4 and o["counts"]["playing"] == 1)

    # Concurrent taps from both workers: every ack is a distinct version in the log.
    acked = play_live(phones, until=lambda v: v["version"] >= 50)
    last = max(acked)
    board.wait_for(lambda v: v["version"] >= last)

    b.kill()
    # B's phones keep retrying B (dead): A's board and overview show them away.
    started = time.monotonic()
    board.wait_for(lambda v: connected(v) == {"Ana": True, "Ben": False, "Cara": True, "Dev": False},
                   timeout=AWAY_WITHIN)
    wait_overview(teacher, lambda o: o["counts"]["connected"] == 2, timeout=AWAY_WITHIN)
    away_after = time.monotonic() - started
    # Only B's phones count as away: A's board never lost Ana and Cara meanwhile.
    assert all(connected(board.view)[n] for n in ("Ana", "Cara"))

    # The load balancer sends B's phones to A: they resume their seats with their tokens.
    for i in (1, 3):
        phones[i].close()
        moved = phone(cluster, a.url, token=phones[i].token)  # resumes by itself on connect
        assert moved.resumed.wait(10)
        phones[i] = moved
    board.wait_for(lambda v: connected(v) == dict.fromkeys(names, True))
    wait_overview(teacher, lambda o: o["counts"]["connected"] == 4)
    for p in phones:
        p.wait_for(lambda v: v["version"] >= last)

    acked += play_live(phones, until=lambda v: v["version"] >= last + 20)
    final = autoplay_to_end(phones)
    assert board.wait_for(lambda v: v["status"] == "ended")["version"] == final["version"]
    assert sum(p["cards"] for p in final["view"]["public"]["players"]) == 52
    check_log(cluster.database_url, code, acked)
    print(f"away shown {away_after:.1f} s after the SIGKILL")


def _auto_reveals(events, seat):
    return [e for e in events if e.actor == f"seat:{seat}:auto"]


SLOW, FAST = 2 * 1.2, 2 * 0.3  # seconds between auto-play reveals at speeds 1 and 4, at BOT_DELAY_SCALE 2


def test_timers_fire_once_across_workers_and_after_the_one_that_set_them_dies(cluster):
    """Two phones on auto-play, one on each worker: both workers set timers and both
    poll for them. No timer fires twice (a second firing would come right after the
    first, not a full auto-play delay later). Then the worker that set the pending
    timer is SIGKILLed and the other fires it."""
    # Auto-play at twice the real delays (war's AUTO_DELAY: 1.2 s at speed 1, 0.3 s at
    # speed 4), so that B is surely dead before the timer it set is due.
    a, b = cluster(BOT_DELAY_SCALE="2")
    token = a.api_token()
    code = a.create_table(token)
    pa, pb = phone(cluster, a.url), phone(cluster, b.url)
    pa.join(code, "Ana")
    pb.join(code, "Ben")
    pa.wait_for(lambda v: len(v["players"]) == 2 and v["actions"])
    assert pa.call("act", {"version": pa.view["version"], "action": {"type": "start"}})["ok"]
    for p in (pa, pb):
        p.wait_for(lambda v: v["status"] == "playing")
    for p in (pa, pb):
        ack = p.call("act", {"version": p.view["version"], "action": {"type": "autoplay", "speed": 4}})
        assert ack["ok"], ack
    pa.wait_for(lambda v: v["version"] >= 24 or v["status"] == "ended", timeout=60)

    # Both stop auto-play; then Ben (on B) will owe a reveal that only B's timer covers.
    stop = {"type": "autoplay", "speed": 0}
    for _ in range(50):
        ack = pa.call("act", {"version": pa.view["version"], "action": stop})
        if ack["ok"] or ack["error"]["code"] != "stale":
            break
    assert ack["ok"], ack
    for _ in range(50):
        ack = pb.call("act", {"version": pb.view["version"], "action": stop})
        if ack["ok"] or ack["error"]["code"] != "stale":
            break
    assert ack["ok"], ack
    view = pa.wait_for(lambda v: v["version"] >= ack["version"])
    assert view["status"] == "playing", "the game ended before the kill; lower the version goal"
    # Ana reveals by hand until Ben owes a reveal; Ben turns auto-play on through B (slow: SLOW seconds).
    for _ in range(200):
        if pb.wait_for(lambda v: v["version"] >= pa.view["version"]) and pb.can("reveal"):
            break
        if pa.can("reveal"):
            pa.call("act", {"version": pa.view["version"], "action": {"type": "reveal"}})
        else:
            time.sleep(0.05)
    assert pb.can("reveal"), "Ben never came to owe a reveal"
    # Ben also opens the game on A once he has turned auto-play on through B (the newest
    # connection of a seat plays it: B's lets go), so B's death changes no one's presence
    # and A refreshes nothing: only A's polling of the database can find B's timer.
    ben_on_a = phone(cluster, a.url)
    asked = time.monotonic()
    ack = pb.call("act", {"version": pb.view["version"], "action": {"type": "autoplay", "speed": 1}})
    assert ack["ok"], ack
    set_at = ack["version"]
    assert ben_on_a.call("resume", {"token": pb.token})["ok"]
    b.kill()  # B's own heap held Ben's timer; only the database still knows it
    assert time.monotonic() - asked < SLOW - 0.4, "B was killed too late: it may have fired the timer itself"
    fired = pa.wait_for(lambda v: v["version"] > set_at, timeout=10)
    assert time.monotonic() - asked < SLOW + 2.0, "B's timer fired late (A polls every 0.5 s)"
    assert any(e.get("v", 0) > set_at for e in fired["log"])

    events = check_log(cluster.database_url, code, [])
    after_kill = [e for e in events if e.version > set_at]
    assert after_kill[0].actor == "seat:1:auto" and after_kill[0].action["type"] == "reveal"
    assert (after_kill[0].at - next(e.at for e in events if e.version == set_at)).total_seconds() >= SLOW - 0.05
    for seat in (0, 1):
        times = [e.at for e in _auto_reveals(events, seat)]
        gaps = [(t2 - t1).total_seconds() for t1, t2 in zip(times, times[1:])]
        assert gaps and min(gaps) >= FAST - 0.05, (seat, sorted(gaps)[:5])  # never fired twice in a row


def test_a_worker_no_phone_has_reached_fires_the_timers_of_a_dead_one(cluster):
    """Both phones play through B on auto-play; A has served only the teacher's HTTP
    calls (no socket ever). B is SIGKILLed: A plays the table on at once, without
    waiting for a phone to connect or for B to be noticed dead."""
    a, b = cluster(BOT_DELAY_SCALE="1")  # auto-play at speed 4: a reveal per seat every 0.3 s
    token = a.api_token()
    headers = {"Authorization": f"Bearer {token}"}
    code = a.create_table(token)
    pa, pb = phone(cluster, b.url), phone(cluster, b.url)
    pa.join(code, "Ana")
    pb.join(code, "Ben")
    pa.wait_for(lambda v: len(v["players"]) == 2 and v["actions"])
    assert pa.call("act", {"version": pa.view["version"], "action": {"type": "start"}})["ok"]
    for p in (pa, pb):
        p.wait_for(lambda v: v["status"] == "playing")
        for _ in range(50):
            ack = p.call("act", {"version": p.view["version"], "action": {"type": "autoplay", "speed": 4}})
            if ack["ok"] or ack["error"]["code"] != "stale":
                break
        assert ack["ok"], ack
    pa.wait_for(lambda v: v["version"] >= 12)
    b.kill()
    killed = time.monotonic()

    def version():
        return requests.get(f"{a.url}/api/tables/{code}", headers=headers, timeout=5).json()["version"]

    at_kill = version()
    while version() < at_kill + 4:  # two battles' reveals, all fired by A
        assert time.monotonic() - killed < 3.5, "A did not take over B's timers (before noticing B dead)"
        time.sleep(0.1)
    end_table(a.url, token, code)  # the teacher ends it, so that the log stands still to be checked
    check_log(cluster.database_url, code, [])


def _websocket_from(address: str, port: int) -> socket.socket:
    """A Socket.IO WebSocket opened from `address` (another loopback address is
    another visitor to nginx), left open: the connection nginx must count."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(address, 0))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                  f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                  f"Sec-WebSocket-Version: 13\r\n\r\n").encode())
    return sock


def _status(sock: socket.socket) -> int:
    head = b""
    while b"\r\n" not in head:
        chunk = sock.recv(1024)
        if not chunk:
            return 0  # closed without an answer
        head += chunk
    return int(head.split()[1])


@pytest.mark.skipif(run_workers.find_nginx() is None and os.environ.get("CI") != "true",
                    reason="nginx is not installed (scripts/test --all installs it; CI must have it)")
def test_behind_nginx_one_address_holds_only_so_many_connections_and_slow_headers_are_closed(cluster, tmp_path):
    """Behind a proxy the workers' own door is off (every connection comes from nginx),
    so the door is nginx's: deploy/nginx_conf.py caps each visitor address and gives
    a request's headers 10 s. A cap of 6 here stands for the deployed 150, and 3 s for the 10."""
    workers = cluster(PROXY_COUNT="1")
    listen = free_port()
    nginx = run_workers.start_nginx([w.port for w in workers], f"127.0.0.1:{listen}", tmp_path / "nginx",
                                    per_address=6, header_seconds=3)
    held = []
    try:
        run_workers.wait_ready(f"http://127.0.0.1:{listen}", [nginx])
        held = [_websocket_from("127.0.0.2", listen) for _ in range(6)]
        assert [_status(s) for s in held] == [101] * 6  # a class's sockets stay open through nginx
        extra = _websocket_from("127.0.0.2", listen)
        held.append(extra)
        assert _status(extra) == 503  # the seventh from the same address is refused...
        other = _websocket_from("127.0.0.3", listen)
        held.append(other)
        assert _status(other) == 101  # ...while another address still gets in
        assert requests.get(f"http://127.0.0.1:{listen}/", timeout=5).status_code == 200

        slow = socket.create_connection(("127.0.0.1", listen), timeout=30, source_address=("127.0.0.4", 0))
        held.append(slow)
        slow.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # and never the rest of the headers
        started = time.monotonic()
        for _ in range(6):  # a header line every second does not keep it open: the deadline is on all of them
            time.sleep(1)
            try:
                slow.sendall(b"X-Slow: 1\r\n")
            except OSError:
                break
        slow.settimeout(30)
        try:
            answer = slow.recv(1024)
        except ConnectionResetError:
            answer = b""
        assert time.monotonic() - started < 15
        assert answer == b"" or answer.startswith(b"HTTP/1.1 408"), answer[:80]
    finally:
        for sock in held:
            sock.close()
        run_workers.stop(nginx)


def test_a_phone_that_changes_its_language_on_one_worker_gets_its_views_in_it_from_the_other(cluster):
    """A phone's language lives on its seat and changes no table version: the worker
    where a tablemate moves must not build that phone's views from a copy that still
    has the old language."""
    a, b = cluster()
    code = a.create_table(a.api_token(), "war")
    ana = phone(cluster, a.url)
    ana.join(code, "Ana")
    ben = phone(cluster, b.url)
    ben.join(code, "Ben")
    ana.wait_for(lambda v: v["players"] and len(v["players"]) == 2)
    assert ana.call("act", {"version": ana.view["version"], "action": ana.listed("start")})["ok"]
    ben.wait_for(lambda v: v["status"] == "playing")
    ana.wait_for(lambda v: v["status"] == "playing")
    assert "Reveal your card" in [x["label"] for x in ben.view["actions"]]

    # Ben reopens the page in Spanish, on worker B; Ana moves on worker A (whose copy is warm).
    ben.close()
    ben = phone(cluster, b.url, auth={"lang": "es"}, token=ben.token)
    assert ben.resumed.wait(10)
    version = ben.wait_for(lambda v: v["status"] == "playing")["version"]
    ack = ana.call("act", {"version": ana.view["version"], "action": ana.listed("reveal")})
    assert ack["ok"], ack
    moved = ben.wait_for(lambda v: v["version"] > version)
    labels = [x["label"] for x in moved["actions"]]
    assert "Revela tu carta" in labels, labels
