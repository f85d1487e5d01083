"""Presence shared through Redis (app/realtime/presence.py): two RedisPresence objects in
this process stand for two server processes (the live two-process tests are in
test_scaled.py)."""
from __future__ import annotations

import time
import uuid

import pytest

from app.extensions import services
from app.realtime.presence import LocalPresence, RedisPresence, make_presence

REDIS = "redis://127.0.0.1:6379/0"


def wait_until(predicate, timeout=30.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


@pytest.fixture
def pair():
    """Two processes' presences in one namespace, beating fast; their keys removed after."""
    ns = "cg:presence:test-" + uuid.uuid4().hex[:10]
    made = []

    def make(**kw):
        p = RedisPresence(REDIS, ns, heartbeat=0.1, dead_after=0.5, **kw)
        p.told = []
        p.on_change = lambda changed, everywhere, p=p: p.told.append((set(changed), everywhere))
        made.append(p)
        return p

    a, b = make(), make()
    for p in (a, b):
        p.start()
    yield a, b, make
    for p in made:
        p.stop()
    time.sleep(0.15)
    for key in a._redis.scan_iter(match=ns + ":*"):
        a._redis.delete(key)


def test_nothing_of_a_deployment_stays_in_redis_once_its_processes_are_gone(pair):
    """Every key a process writes expires unless beats keep it (a SIGKILLed deployment, or a
    test's servers, leave nothing behind for good)."""
    from app.realtime.presence import HASH_TTL

    a, b, _make = pair
    wait_until(lambda: a._redis.exists(a._procs_key))
    for key in a._redis.scan_iter(match=a.ns + ":*"):
        assert 0 < a._redis.ttl(key) <= HASH_TTL, key


def test_a_seat_connected_to_one_process_counts_in_the_other_at_once(pair):
    a, b, _make = pair
    a.connect("seat-1")
    wait_until(lambda: b.connected("seat-1"), timeout=0.5)  # the published change, not a heartbeat later
    wait_until(lambda: b.told)
    assert b.told == [({"seat-1"}, False)]  # B refreshes the seat's table if it holds it
    a.connect("seat-1")        # a second tab of the same phone
    a.disconnect("seat-1")
    time.sleep(0.3)
    assert b.connected("seat-1")  # one tab is still open
    a.disconnect("seat-1")
    wait_until(lambda: not b.connected("seat-1"))
    assert not a.connected("seat-1")


def test_building_views_reads_memory_not_redis(pair):
    a, b, _make = pair
    a.connect("seat-1")
    wait_until(lambda: b.connected("seat-1"))
    calls = []

    class Counting:
        def __getattr__(self, name):
            calls.append(name)
            raise AssertionError(f"connected() called Redis ({name})")

    real, b._redis = b._redis, Counting()
    try:
        assert all(b.connected("seat-1") for _ in range(10_000))
        assert not any(b.connected(f"other-{i}") for i in range(1000))
    finally:
        b._redis = real
    assert calls == []


def test_a_silent_process_is_reaped_and_its_seats_reported_away_once(pair):
    a, b, make = pair
    c = make()
    c.start()
    a.connect("seat-a")
    b.connect("seat-b")
    b.connect("seat-both")
    a.connect("seat-both")
    wait_until(lambda: a.connected("seat-b") and c.connected("seat-b") and c.connected("seat-a"))
    b.stop()  # as if SIGKILLed: no goodbye, its hash stays until reaped
    wait_until(lambda: not a.connected("seat-b") and not c.connected("seat-b"), timeout=3.0)
    assert a.connected("seat-both") and c.connected("seat-both")  # still open on A
    time.sleep(0.3)
    reaped = [(told, everywhere) for p in (a, c) for told, everywhere in p.told if everywhere]
    assert reaped == [({"seat-b"}, True)]  # exactly one survivor refreshes their tables everywhere
    assert not a._redis.exists(f"{a.ns}:proc:{b.id}")


def test_a_process_taken_for_dead_comes_back_with_its_seats(pair):
    a, b, _make = pair
    b.connect("seat-b")
    wait_until(lambda: a.connected("seat-b"))
    b._redis.zrem(b._procs_key, b.id)          # as a survivor does after a long pause of B
    b._redis.delete(b._proc_key(b.id))
    b.beat()                                    # B's next heartbeat rewrites its hash
    wait_until(lambda: a.connected("seat-b"))


def test_redis_down_keeps_local_counts_and_does_not_raise(caplog):
    down = RedisPresence("redis://127.0.0.1:1/0", "cg:presence:down", heartbeat=0.1, dead_after=0.5)
    down.connect("seat-1")
    down.connect("seat-2")
    down.disconnect("seat-2")
    with pytest.raises(Exception):
        down.beat()
    down.start()
    time.sleep(0.3)
    down.stop()
    assert down.connected("seat-1") and not down.connected("seat-2")
    assert "Redis unreachable" in caplog.text


def test_the_message_queue_setting_chooses_the_presence():
    assert type(make_presence({"SOCKETIO_MESSAGE_QUEUE": None, "DATABASE_URL": "sqlite://"})) is LocalPresence
    shared = make_presence({"SOCKETIO_MESSAGE_QUEUE": REDIS, "DATABASE_URL": "postgresql://x/a"})
    other = make_presence({"SOCKETIO_MESSAGE_QUEUE": REDIS, "DATABASE_URL": "postgresql://x/b"})
    assert isinstance(shared, RedisPresence) and shared.ns != other.ns  # one deployment per database


def test_the_handlers_go_on_with_local_counts_while_redis_is_down(app, phone, war_table, caplog):
    down = RedisPresence("redis://127.0.0.1:1/0", "cg:presence:down-" + uuid.uuid4().hex[:8], heartbeat=0.1)
    services(app).presence = down
    services(app).tables.connected = down.connected
    try:
        board = phone()
        assert board.send("watch", {"code": war_table.code})["ok"]
        ana = phone()
        assert ana.join(war_table.code, "Ana")["ok"]
        assert [p["connected"] for p in board.pump()["players"]] == [True]
        ana.close()
        assert [p["connected"] for p in board.pump()["players"]] == [False]
        assert "Redis unreachable" in caplog.text
    finally:
        down.stop()


def test_a_board_here_follows_a_phone_connected_to_another_process(app, phone, tables, war_table):
    """This app's presence is shared; `other` stands for a second process. Its phone
    coming, going and dying all reach the board watched here, with no move made."""
    from app.realtime.presence import refresher
    from app.edge.security import hash_token

    ns = "cg:presence:test-" + uuid.uuid4().hex[:10]
    here = RedisPresence(REDIS, ns, heartbeat=0.1, dead_after=0.5)
    here.on_change = refresher(app)
    services(app).presence, tables.connected = here, here.connected
    other = RedisPresence(REDIS, ns, heartbeat=0.1, dead_after=0.5)
    try:
        here.start()
        other.start()
        ana = hash_token(tables.join(war_table.code, "Ana")["token"])
        board = phone()
        assert board.send("watch", {"code": war_table.code})["ok"]

        def board_shows(state):
            wait_until(lambda: [p["connected"] for p in board.pump()["players"]] == [state], timeout=3)

        board_shows(False)
        other.connect(ana)       # Ana's phone reaches the other process
        board_shows(True)
        other.disconnect(ana)    # and closes
        board_shows(False)
        other.connect(ana)
        board_shows(True)
        other.stop()             # the other process dies: reaped here, the board refreshed
        board_shows(False)
    finally:
        here.stop()
        other.stop()
        for key in here._redis.scan_iter(match=ns + ":*"):
            here._redis.delete(key)
