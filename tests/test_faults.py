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
