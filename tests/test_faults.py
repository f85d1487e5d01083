"""Faults: the server SIGKILLed mid-game, Redis and PostgreSQL restarted under a
running game, a phone's connection dropped mid-prompt, SQLite under many tables
and two processes. Nothing acknowledged may be lost; the replay must equal the
snapshot; every game goes on to its end."""
from __future__ import annotations

import random
import time

import pytest
import requests

from faults import (NOT_RANDOM, PrivatePostgres, PrivateRedis, RandomPlayers, Store, create_table, filled,
                    seat_and_start)
from app.edge.outage import QueueHealth
from app.extensions import services
from live import LivePhone, LiveServer, autoplay_to_end

NAMES = ["Ana", "Ben", "Cara", "Dev"]

# (game, options, seats, whether to finish with auto-play: a random War takes thousands of moves)
GAMES = {
    "war": ("war", {"length": "first_to_45_cards"}, 3, True),
    "war-power-wager": ("war", {"mode": "power_wager", "length": "first_to_45_cards"}, 3, True),
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


@pytest.mark.live
def test_sigkill_at_random_moments_of_every_game_loses_no_acknowledged_move(server):
    """A table of every game plays at once on one server, random legal moves from every
    phone; the server is SIGKILLed at seeded random moments (three times) while the
    phones keep sending, and started again. Every acknowledged move is in its table's
    log, the replay equals the snapshot, the phones resume by themselves, and every
    game goes on to its end."""
    rng = random.Random("sigkill")
    server.add_facilitator()
    server.start()
    token = server.api_token()
    store = Store(server.env["DATABASE_URL"])
    games, everyone = {}, []
    try:
        for case, (game, options, seats, _random_moves) in sorted(GAMES.items()):
            code = create_table(server.url, token, game, options)
            phones = seat_and_start(server.url, code, NAMES[:seats])
            everyone += phones
            games[case] = (code, phones, RandomPlayers(phones, seed=rng.random()).start(), [0])

        def acked():
            return sum(len(players.acked) for _code, _phones, players, _kills in games.values())

        def errors():
            return [e for _code, _phones, players, _kills in games.values() for e in players.errors]

        for kill in range(3):
            everything_ended = lambda: all(players.ended() for _c, _p, players, _k in games.values())  # noqa: E731
            if kill == 0:
                # The first kill finds every game in the middle: each table stops sending at a
                # goal of its own, early in its game, and waits there for the others, so a quick
                # game cannot play to its end while a slow one is still getting to its goal.
                goals = {case: rng.randint(10, 25) for case in sorted(games)}

                def all_at_goal():
                    for case, (_c, _p, players, _k) in games.items():
                        if players.running.is_set() and len(players.acked) >= goals[case]:
                            players.pause()
                    return errors() or not any(p.running.is_set() for _c, _p, p, _k in games.values())

                _until(all_at_goal, 120, lambda: f"too few moves: { {c: len(g[2].acked) for c, g in games.items()} }"
                                              f" of {goals}")
                assert not errors(), errors()[:3]
                ended = [case for case, (_c, _p, players, _k) in games.items() if players.ended()]
                assert not ended, f"ended within {goals} moves: {ended}"
                for _code, _phones, players, _kills in games.values():
                    players.resume()
            else:
                goal = acked() + rng.randint(20, 60)
                _until(lambda: acked() >= goal or errors() or everything_ended(), 120,
                       lambda: f"too few moves: {acked()} of {goal}")
            assert not errors(), errors()[:3]
            if everything_ended():
                break
            time.sleep(rng.uniform(0, 0.2))  # the phones never stop sending: mid-move, most likely
            for phone in everyone:
                phone.resumed.clear()
            playing = {case for case, (_c, _p, players, _k) in games.items() if not players.ended()}
            server.kill()
            for case, (code, phones, players, kills) in games.items():
                players.pause()  # the calls in flight have failed by now
                kills[0] += case in playing
            server.start()
            for phone in everyone:
                assert phone.resumed.wait(30), "a phone did not resume its seat by itself"
            for case, (code, phones, players, _kills) in games.items():
                version = _check_nothing_lost(store, code, players)
                for phone in phones:  # each phone is shown its table as it was stored
                    phone.wait_for(lambda v: v["version"] >= version)
                players.resume()
        unkilled = [case for case, (_c, _p, players, kills) in games.items() if not kills[0]]
        assert not unkilled, f"ended before the first kill: {unkilled}"

        deadline = time.monotonic() + 150
        for case, (code, phones, players, kills) in sorted(games.items()):
            if GAMES[case][3]:  # War: auto-play to the end (a random War is very long)
                players.stop()
                if not players.ended():
                    autoplay_to_end(phones, speed=4, timeout=max(5.0, deadline - time.monotonic()))
            _until(lambda: players.ended() or players.errors, max(1.0, deadline - time.monotonic()),
                   lambda: f"{case} did not end: {players.describe()}")
            players.stop()
            assert not players.errors, (case, players.errors[:3])
            summary = requests.get(f"{server.url}/api/tables/{code}",
                                   headers={"Authorization": f"Bearer {token}"}, timeout=10).json()
            assert summary["status"] == "ended" and summary["result"], summary
            _check_nothing_lost(store, code, players)
            print(f"{case}: {len(players.acked)} acknowledged moves, killed {kills[0]} times mid-game, "
                  f"{players.lost_calls} calls unanswered, final version {summary['version']}")
    finally:
        for _code, _phones, players, _kills in games.values():
            players.stop()
        store.close()
        for phone in everyone:
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


@pytest.fixture(scope="module")
def scaled(tmp_path_factory, private_postgres):
    """Two server processes sharing the private PostgreSQL (a database of their own) and a
    private Redis; the phones and the board are split between them. Module-scoped: the
    two tests use tables of their own, and starting the pair takes ~15 s on a busy machine."""
    tmp_path = tmp_path_factory.mktemp("scaled")
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


@pytest.mark.live
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
        _until(lambda: len(players.acked) >= acked_while_down + 10, 30,
               lambda: f"moves did not resume after the restart: {players.describe()}")
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


@pytest.mark.live
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
        # Before any new move: the listeners subscribe again and every socket is sent a fresh
        # view, so the board and the phones catch up with moves whose views were lost meanwhile.
        stored = store.tables.get(code).version
        for viewer in [board] + phones:
            assert viewer.wait_for(lambda v: v["version"] >= stored, timeout=10)["version"] == stored
        print(f"board resent the stored version {time.monotonic() - up_at:.1f} s after Redis came back")
        players.resume()
        _until(lambda: len(players.acked) >= acked_while_down + 10, 30,
               lambda: f"moves did not resume after the restart: {players.describe()}")
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


# --------------------------------------------- a phone dropped in the middle of a prompt
# (game, options, seats, the prompt's action types, seed of the random moves that lead there)
PROMPTS = {
    "water_cycle-crisis-explanation": ("water_cycle", {"vote_seconds": 0}, 3, {"explain"}, 1),
    "water_cycle-crisis-vote": ("water_cycle", {"vote_seconds": 0}, 3, {"vote"}, 2),
    "war-wager-decision": ("war", {"mode": "wager"}, 3, {"raise", "call", "fold", "check"}, 3),
    "wizard-defense": ("wizard", {}, 2, {"defend", "no_defense"}, 4),
}


@pytest.mark.parametrize("case", sorted(PROMPTS))
def test_a_phone_dropped_mid_prompt_resumes_to_the_same_prompt(app, tables, teacher, phone, case):
    """The phone's connection drops while the game asks it something: nothing answers in
    its place meanwhile, and once it resumes it is asked the same thing, with the same
    actions, and its answer counts."""
    from phones import seated

    game, options, seats, wanted, seed = PROMPTS[case]
    code = tables.create_table(teacher.id, game, options).code
    phones = seated(phone, code, *NAMES[:seats])
    assert phones[0].act({"type": "start"})["ok"]
    rng = random.Random(seed)

    def asked():
        for p in phones:
            if any(a["type"] in wanted for a in p.pump()["actions"]):
                return p
        return None

    for _ in range(3000):  # random legal moves until some seat is asked the question
        target = asked()
        if target is not None:
            break
        movers = [(p, a) for p in phones for a in p.pump()["actions"] if a["type"] not in NOT_RANDOM]
        assert movers and phones[0].view["status"] == "playing", "the game ended before the prompt came"
        p, action = rng.choice(movers)
        ack = p.act(filled(action))
        assert ack["ok"] or ack["error"]["code"] == "stale", ack
    else:
        raise AssertionError(f"no seat was asked {wanted}")
    before = target.pump()
    version, prompt, actions = before["version"], before["view"]["prompt"], before["actions"]
    assert target.seat in prompt["waiting_for"]

    target.close()  # the connection drops
    others = [p for p in phones if p is not target]
    board = others[0].pump()
    _until(lambda: not next(x for x in others[0].pump()["players"] if x["seat"] == target.seat)["connected"], 5,
           "the others were not told the seat dropped")
    time.sleep(0.3)  # timers would fire now (computer moves are instant here): none may answer for it
    assert tables.get(code).version == version, "the table moved on while the seat was away"
    assert board["status"] == "playing"

    again = phone()
    ack = again.send("resume", {"token": target.token})
    assert ack["ok"] and ack["seat"] == target.seat, ack
    view = again.pump()
    assert view["version"] == version and view["view"]["prompt"] == prompt and view["actions"] == actions
    answer = next(a for a in actions if a["type"] in wanted)
    ack = again.act(filled(answer))
    assert ack["ok"] and ack["version"] == version + 1, ack
    assert tables.events(code)[-1].actor == f"seat:{target.seat}"
    assert tables.events(code)[-1].action == filled(answer)


# ----------------------------------------------------- SQLite under many tables at once
@pytest.mark.live
def test_sqlite_takes_many_tables_moving_at_once_from_two_processes(tmp_path):
    """20 War tables move at once, half through each of two server processes on one
    SQLite file, while the CLI writes to it too: every move is acknowledged and logged."""
    import statistics
    import threading

    tables_n, moves = 20, 12
    first = LiveServer(tmp_path / "a")
    second = LiveServer(tmp_path / "b", DATABASE_URL=first.env["DATABASE_URL"], SECRET_KEY=first.env["SECRET_KEY"])
    phones, store = [], None
    try:
        first.add_facilitator()
        first.start()
        second.start()
        token = first.api_token()
        codes = [create_table(first.url, token, "war", {}) for _ in range(tables_n)]
        seated = {}
        for i, code in enumerate(codes):
            url = (first, second)[i % 2].url  # each table's phones on one process (no queue between them)
            seated[code] = seat_and_start(url, code, NAMES[:2])
            phones += seated[code]
        store = Store(first.env["DATABASE_URL"])
        acked = {code: [] for code in codes}
        latencies, failures = [], []
        barrier = threading.Barrier(tables_n + 1)

        def play(code):
            pair = seated[code]
            version = max(p.view["version"] for p in pair)
            barrier.wait()
            for _ in range(moves):
                try:
                    mover = None
                    for p in pair:
                        view = p.wait_for(lambda v: v["version"] >= version, timeout=30)
                        if any(a["type"] == "reveal" for a in view["actions"]) and mover is None:
                            mover = p
                    started = time.monotonic()
                    ack = mover.sio.call("act", {"version": version, "action": {"type": "reveal"}}, timeout=30)
                    latencies.append(time.monotonic() - started)
                except Exception as exc:  # noqa: BLE001 - reported below
                    failures.append((code, repr(exc)))
                    return
                if not ack["ok"]:
                    failures.append((code, ack))
                    return
                version = ack["version"]
                acked[code].append((version, mover.view["seat"], {"type": "reveal"}))

        threads = [threading.Thread(target=play, args=(code,)) for code in codes]
        for t in threads:
            t.start()
        cli = [threading.Thread(target=lambda n=n: failures.extend(
            [] if (r := second.cli("facilitator", "add", f"extra{n}", "--password", "live-password-1")).returncode == 0
            else [("cli", r.stderr)])) for n in range(3)]
        started = time.monotonic()
        barrier.wait()
        for t in cli:
            t.start()
        for t in threads + cli:
            t.join(120)
        took = time.monotonic() - started
        assert not failures, failures[:3]
        total = sum(len(v) for v in acked.values())
        assert total == tables_n * moves
        for code in codes:
            missing = store.missing(code, acked[code])
            assert not missing, (code, missing[:3])
            store.replay_matches(code)
        latencies.sort()
        print(f"SQLite, 2 processes, {tables_n} tables: {total} moves in {took:.1f} s "
              f"({total / took:.0f}/s); ack p50 {statistics.median(latencies) * 1000:.0f} ms, "
              f"p95 {latencies[int(len(latencies) * 0.95)] * 1000:.0f} ms, max {latencies[-1] * 1000:.0f} ms")
        for srv in (first, second):
            text = "".join(srv.output)
            assert "locked" not in text and "Traceback" not in text, text[-3000:]
    finally:
        if store:
            store.close()
        for p in phones:
            p.close()
        first.stop()
        second.stop()


# ------------------------------------- an outage, in process: the mapping to `unavailable`
def _database_down(*_args, **_kwargs):
    from sqlalchemy.exc import OperationalError

    raise OperationalError("SELECT 1", {}, Exception("connection to server failed: Connection refused"))


def test_a_database_outage_is_an_unavailable_ack_and_the_socket_stays(app, tables, teacher, phone, monkeypatch):
    from phones import seated

    code = tables.create_table(teacher.id, "war", {}).code
    ana, ben = seated(phone, code, "Ana", "Ben")
    assert ana.act({"type": "start"})["ok"]
    version = ana.pump()["version"]
    monkeypatch.setattr(tables, "act_as", _database_down)
    ack = ana.act({"type": "reveal"})
    assert ack == {"ok": False, "error": {"code": "unavailable", "message": ack["error"]["message"]}}
    assert "database" in ack["error"]["message"] and "lost" in ack["error"]["message"]
    monkeypatch.undo()  # back up: the same connection plays on
    assert ana.client.is_connected()
    ack = ana.act({"type": "reveal"})
    assert ack["ok"] and ack["version"] == version + 1, ack


def test_a_database_outage_is_a_503_for_the_api_and_the_pages(app, tables, teacher, teacher_token, monkeypatch):
    code = tables.create_table(teacher.id, "war", {}).code
    client = app.test_client()
    monkeypatch.setattr(tables, "get", _database_down)
    monkeypatch.setattr(tables, "summary", _database_down)
    api = client.get(f"/api/tables/{code}", headers={"Authorization": f"Bearer {teacher_token}"})
    monkeypatch.setattr(services(app).accounts, "token_owner", _database_down)
    login = client.post("/api/tables", json={"game": "war"}, headers={"Authorization": "Bearer x"})
    page = client.get(f"/board/{code}")
    for response in (api, login):
        assert response.status_code == 503 and response.headers["Retry-After"]
        assert response.get_json()["error"]["code"] == "unavailable"
    assert page.status_code == 503 and b"database" in page.data and b"Traceback" not in page.data
    monkeypatch.undo()
    assert client.get(f"/board/{code}").status_code == 200


def test_a_connection_while_the_database_is_down_is_refused_clearly(app, teacher_token, monkeypatch):
    from app.extensions import socketio

    monkeypatch.setattr(services(app).accounts, "token_owner", _database_down)
    refused = socketio.test_client(app, auth={"token": teacher_token})
    assert not refused.is_connected()  # a connect error the client retries, not a half-open socket
    monkeypatch.undo()
    again = socketio.test_client(app, auth={"token": teacher_token})
    assert again.is_connected()
    again.disconnect()


@pytest.mark.live
def test_a_phone_whose_network_drops_mid_explanation_reconnects_to_the_same_prompt(server):
    """The real thing: the phone's TCP connection is cut while Water Cycle asks it to explain
    a Crisis; the client reconnects and resumes by itself (as play.js does), is asked the
    same, and its explanation counts."""
    import socket

    server.add_facilitator()
    server.start()
    code = create_table(server.url, server.api_token(), "water_cycle", {"vote_seconds": 0})
    phones = seat_and_start(server.url, code, NAMES[:3])
    rng = random.Random(5)
    try:
        target = None
        for _ in range(400):
            target = next((p for p in phones if any(a["type"] == "explain" for a in p.view["actions"])), None)
            if target is not None:
                break
            movers = [(p, a) for p in phones for a in p.view["actions"] if a["type"] not in NOT_RANDOM]
            assert movers and phones[0].view["status"] == "playing", "the game ended before a Crisis"
            p, action = rng.choice(movers)
            ack = p.call("act", {"version": p.view["version"], "action": filled(action)})
            assert ack["ok"] or ack["error"]["code"] == "stale", ack
            if ack["ok"]:
                p.wait_for(lambda v, done=ack["version"]: v["version"] >= done)
            time.sleep(0.05)  # the other phones' views arrive
        assert target is not None, "no Crisis explanation was asked for"
        before = target.view
        target.resumed.clear()
        target.sio.eio.ws.sock.shutdown(socket.SHUT_RDWR)  # the network drops: no goodbye
        assert target.resumed.wait(20), "the phone did not reconnect and resume by itself"
        view = target.wait_for(lambda v: v is not before)
        assert view["version"] == before["version"]
        assert view["view"]["prompt"] == before["view"]["prompt"] and view["actions"] == before["actions"]
        answer = filled(next(a for a in view["actions"] if a["type"] == "explain"))
        ack = target.call("act", {"version": view["version"], "action": answer})
        assert ack["ok"] and ack["version"] == before["version"] + 1, ack
    finally:
        for phone in phones:
            phone.close()
