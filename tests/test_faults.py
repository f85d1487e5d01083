"""Faults: the server SIGKILLed mid-game, Redis and PostgreSQL restarted under a
running game, a phone's connection dropped mid-prompt, SQLite under many tables
and two processes. Nothing acknowledged may be lost; the replay must equal the
snapshot; every game goes on to its end."""
from __future__ import annotations

import random
import time

import pytest
import requests

from faults import (PrivatePostgres, PrivateRedis, RandomPlayers, Store, create_table, filled,
                    seat_and_start)
from app.outage import QueueHealth
from live import LivePhone, LiveServer, autoplay_to_end

pytestmark = pytest.mark.live

NAMES = ["Ana", "Ben", "Cara", "Dev"]

# (game, options, seats, random moves before switching to auto-play, or None: random to the end)
GAMES = {
    "war": ("war", {"length": "first_to_30_cards"}, 3, 60),
    "war-power-wager": ("war", {"mode": "power_wager", "length": "first_to_30_cards"}, 3, 60),
    "water_cycle": ("water_cycle", {"rounds": 10, "vote_seconds": 30}, 3, None),
    "storm_war": ("storm_war", {"goal": 3}, 2, None),
    "wizard": ("wizard", {}, 2, None),
}


@pytest.fixture
def server(tmp_path):
    srv = LiveServer(tmp_path)
    yield srv
    srv.stop()


def _check_nothing_lost(store: Store, code: str, players: RandomPlayers) -> int:
    missing = store.missing(code, players.acked)
    assert not missing, f"acknowledged moves missing from the log: {missing[:3]}"
    return store.replay_matches(code)


@pytest.mark.parametrize("case", sorted(GAMES))
def test_sigkill_at_random_moments_loses_no_acknowledged_move(server, case):
    game, options, seats, random_moves = GAMES[case]
    rng = random.Random(f"kill:{case}")
    server.add_facilitator()
    server.start()
    token = server.api_token()
    code = create_table(server.url, token, game, options)
    phones = seat_and_start(server.url, code, NAMES[:seats])
    store = Store(server.env["DATABASE_URL"])
    players = RandomPlayers(phones, seed=rng.random()).start()
    kills = 0
    try:
        for _ in range(2):
            players.wait_acked(len(players.acked) + rng.randint(5, 25))
            if players.ended():
                break
            time.sleep(rng.uniform(0, 0.2))  # mid-move, most likely: the phones never stop sending
            for phone in phones:
                phone.resumed.clear()
            server.kill()
            kills += 1
            players.pause()  # calls that were in flight have failed by now
            server.start()
            for phone in phones:
                assert phone.resumed.wait(30), "a phone did not resume its seat by itself"
            version = _check_nothing_lost(store, code, players)
            for phone in phones:  # each phone is shown the table as it was stored
                phone.wait_for(lambda v: v["version"] >= version)
            players.resume()
        assert kills >= 1 or players.ended()
        if random_moves is not None:  # War: a few more random moves, then auto-play to the end
            players.wait_acked(len(players.acked) + 10)
            players.stop()
            if not players.ended():
                autoplay_to_end(phones, speed=4, timeout=120)
        else:
            deadline = time.monotonic() + 120
            while not players.ended():
                assert not players.errors, players.errors[:3]
                assert time.monotonic() < deadline, "the game did not end"
                time.sleep(0.05)
            players.stop()
        assert not players.errors, players.errors[:3]
        summary = requests.get(f"{server.url}/api/tables/{code}", headers={"Authorization": f"Bearer {token}"},
                               timeout=10).json()
        assert summary["status"] == "ended" and summary["result"], summary
        _check_nothing_lost(store, code, players)
        print(f"{case}: {len(players.acked)} acknowledged moves, {kills} kills, "
              f"{players.lost_calls} calls unanswered, final version {summary['version']}")
    finally:
        players.stop()
        store.close()
        for phone in phones:
            phone.close()


# ------------------------------------------------ Redis and PostgreSQL restarted
@pytest.fixture(scope="module")
def private_postgres():
    """One private cluster for the module (initdb takes ~0.6 s, a start ~0.1 s here)."""
    started = time.monotonic()
    pg = PrivatePostgres().init()
    pg.start()
    print(f"private PostgreSQL: initdb + start in {time.monotonic() - started:.2f} s")
    yield pg
    pg.remove()


@pytest.fixture
def scaled(tmp_path, private_postgres):
    """Two server processes sharing the private PostgreSQL (a fresh database each test)
    and a private Redis; the phones and the board are split between them."""
    import uuid

    from sqlalchemy import create_engine, text

    name = "faults_" + uuid.uuid4().hex[:8]
    admin = create_engine(private_postgres.url.replace("postgresql://", "postgresql+psycopg://"),
                          isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"CREATE DATABASE {name}"))
    admin.dispose()
    redis = PrivateRedis()
    redis.start()
    shared = {"DATABASE_URL": private_postgres.url.rsplit("/", 1)[0] + "/" + name,
              "SOCKETIO_MESSAGE_QUEUE": redis.url, "SECRET_KEY": "faults-" + uuid.uuid4().hex}
    servers = [LiveServer(tmp_path / "a", **shared), LiveServer(tmp_path / "b", **shared)]
    servers[0].add_facilitator()
    for srv in servers:
        srv.start()
    yield servers, private_postgres, redis
    for srv in servers:
        srv.stop()
        print("".join(srv.output[-60:]))  # shown when the test failed
    redis.stop()


def _war_across_two_servers(servers):
    token = servers[0].api_token()
    code = create_table(servers[0].url, token, "war", {"length": "first_to_45_cards"})  # long enough
    board = LivePhone(servers[0].url)
    assert board.call("watch", {"code": code})["ok"]
    phones = [LivePhone(servers[i].url) for i in range(2)]
    for phone, name in zip(phones, NAMES):
        phone.join(code, name)
    phones[0].wait_for(lambda v: len(v["players"]) == 2 and v["actions"])
    assert phones[0].call("act", {"version": phones[0].view["version"], "action": {"type": "start"}})["ok"]
    for phone in phones:
        phone.wait_for(lambda v: v["status"] == "playing")
    return token, code, board, phones


def _until(check, timeout, what):
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        assert time.monotonic() < deadline, what() if callable(what) else what
        time.sleep(0.1)


def _reveal(phone):
    """One reveal from the phone's current view: the ack, in at most ACK seconds."""
    started = time.monotonic()
    ack = phone.sio.call("act", {"version": phone.view["version"], "action": {"type": "reveal"}}, timeout=10)
    return ack, time.monotonic() - started


def test_postgres_restarted_under_a_game_answers_unavailable_then_recovers(scaled):
    servers, pg, _redis = scaled
    token, code, board, phones = _war_across_two_servers(servers)
    headers = {"Authorization": f"Bearer {token}"}
    store = Store(servers[0].env["DATABASE_URL"])
    players = RandomPlayers(phones, seed=7, unavailable_ok=True).start()
    try:
        players.wait_acked(10)
        players.pause()
        assert not players.ended()
        pg.stop()
        down_at = time.monotonic()
        players.resume()  # the phones keep tapping through the outage
        _until(lambda: len(players.unavailable) >= 4, 20, lambda: f"no `unavailable` answers while PostgreSQL "
               f"was down: {players.unavailable}, {players.errors}, {players.lost_calls} calls unanswered")
        for phone in phones:  # a clear error, quickly, and the socket stays up
            ack, took = _reveal(phone)
            assert not ack["ok"] and ack["error"]["code"] == "unavailable", ack
            assert "database" in ack["error"]["message"] and took < 5, (ack, took)
            assert phone.sio.connected
        api = requests.get(f"{servers[1].url}/api/tables/{code}", headers=headers, timeout=10)
        assert api.status_code == 503 and api.json()["error"]["code"] == "unavailable", api.text
        page = requests.get(f"{servers[0].url}/board/{code}", timeout=10)
        assert page.status_code == 503 and "database" in page.text and "Traceback" not in page.text
        acked_while_down = len(players.acked)
        pg.start()
        print(f"PostgreSQL down for {time.monotonic() - down_at:.1f} s")
        up_at = time.monotonic()
        # Recovery without restarting the servers: moves are acknowledged again.
        _until(lambda: len(players.acked) >= acked_while_down + 10, 30, lambda: f"moves did not resume after the restart: {players.describe()}")
        print(f"first moves after PostgreSQL came back within {time.monotonic() - up_at:.1f} s")
        assert requests.get(f"{servers[1].url}/api/tables/{code}", headers=headers, timeout=10).status_code == 200
        players.stop()
        assert not players.errors, players.errors[:3]
        final = autoplay_to_end(phones, timeout=120)
        assert board.wait_for(lambda v: v["status"] == "ended")["version"] == final["version"]
        _check_nothing_lost(store, code, players)
        assert all("Traceback" not in "".join(srv.output) for srv in servers), servers[0].output[-20:]
    finally:
        players.stop()
        store.close()
        for phone in phones + [board]:
            phone.close()


def test_redis_restarted_under_a_game_answers_unavailable_then_recovers(scaled):
    servers, _pg, redis = scaled
    token, code, board, phones = _war_across_two_servers(servers)
    store = Store(servers[0].env["DATABASE_URL"])
    players = RandomPlayers(phones, seed=11, unavailable_ok=True).start()
    try:
        players.wait_acked(10)
        assert not players.ended()
        redis.stop()
        down_at = time.monotonic()
        # Within a second every process knows (a failed publish, or its ping before a change).
        _until(lambda: players.unavailable, 20, "no `unavailable` answers while Redis was down")
        time.sleep(QueueHealth.PROBE_SECONDS)
        players.pause()
        for phone in phones:  # both processes refuse moves now, at once, with the socket up
            ack, took = _reveal(phone)
            assert not ack["ok"] and ack["error"]["code"] == "unavailable" and took < 5, (ack, took)
            assert "other players" in ack["error"]["message"] and phone.sio.connected
        acked_while_down = len(players.acked)
        redis.start()  # same port, empty: nothing of ours lived in it
        print(f"Redis down for {time.monotonic() - down_at:.1f} s")
        up_at = time.monotonic()
        players.resume()
        _until(lambda: len(players.acked) >= acked_while_down + 10, 30, lambda: f"moves did not resume after the restart: {players.describe()}")
        # The board (on the other process) follows the game again: the queue's listener reconnected.
        players.pause()
        last = max(v for v, _s, _a in players.acked)
        board.wait_for(lambda v: v["version"] >= last, timeout=30)
        print(f"board caught up {time.monotonic() - up_at:.1f} s after Redis came back")
        players.stop()
        assert not players.errors, players.errors[:3]
        final = autoplay_to_end(phones, timeout=120)
        assert board.wait_for(lambda v: v["status"] == "ended")["version"] == final["version"]
        _check_nothing_lost(store, code, players)
    finally:
        players.stop()
        store.close()
        for phone in phones + [board]:
            phone.close()
