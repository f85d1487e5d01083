"""The real server command (eventlet), real Socket.IO clients, and a SIGKILL."""
from __future__ import annotations

import threading

import pytest
import requests

from live import LivePhone, LiveServer, autoplay_to_end, play_live

pytestmark = pytest.mark.live


@pytest.fixture
def server(tmp_path):
    srv = LiveServer(tmp_path)
    yield srv
    srv.stop()


def test_first_start_prints_the_address_and_a_one_time_setup_link(server):
    server.start()
    text = "".join(server.output)
    assert f"Open {server.url}/" in text
    assert f"Phones open {server.url}/ or scan:" in text and "\u2588" in text  # the QR code, in the terminal
    assert "Traceback" not in text and "Exception" not in text  # a clean start for the teacher
    link = next(word for word in text.split() if "/facilitator/setup/" in word)
    assert requests.get(link, timeout=5).status_code == 200


def test_a_server_phones_cannot_reach_says_so_and_shows_no_qr_code(tmp_path):
    srv = LiveServer(tmp_path, PUBLIC_URL="")  # listening on 127.0.0.1 only, no public address
    try:
        srv.start()
        text = "".join(srv.output)
        assert "WARNING: The server listens only on this computer (127.0.0.1), so phones cannot reach it" in text
        assert "--host 0.0.0.0" in text and "scan" not in text and "\u2588" not in text
    finally:
        srv.stop()


def test_a_second_server_on_a_taken_port_fails_and_the_first_keeps_its_phones(server, tmp_path):
    """Started twice on one port (a teacher's second window, say), the second server must not
    share the port with the first (SO_REUSEPORT: each phone would land on one or the other,
    with two sets of tables): it exits saying the port is taken."""
    import subprocess
    import sys

    from live import ROOT

    server.start()
    second = LiveServer(tmp_path / "second")
    second.instance.mkdir(parents=True)
    run = subprocess.run([sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(server.port)],
                         cwd=ROOT, env=second.env, capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and "already in use" in run.stdout + run.stderr
    assert server._listening() and requests.get(server.url + "/", timeout=5).status_code == 200


def test_three_clients_play_a_war_game_to_the_end(server):
    server.add_facilitator()
    server.start()
    token = server.api_token()
    code = server.create_table(token)
    board = LivePhone(server.url)
    assert board.call("watch", {"code": code})["ok"]
    phones = [LivePhone(server.url) for _ in range(3)]
    try:
        for phone, name in zip(phones, ["Ana", "Ben", "Cara"]):
            phone.join(code, name)
        phones[0].wait_for(lambda v: len(v["players"]) == 3 and v["actions"] == [{"type": "start", "label": "Deal cards & start"}])
        assert phones[0].call("act", {"version": phones[0].view["version"], "action": {"type": "start"}})["ok"]
        for phone in phones:
            phone.wait_for(lambda v: v["status"] == "playing")
        # Taps first (the act path), then auto-play at 4x keeps a long game moving.
        play_live(phones, until=lambda v: v["version"] >= 60)
        autoplay_to_end(phones)
        final = board.wait_for(lambda v: v["status"] == "ended")
        result = final["view"]["public"]["result"]
        assert len(result["winners"]) >= 1 and sorted(result["ranking"]) == [0, 1, 2]
        assert sum(p["cards"] for p in final["view"]["public"]["players"]) == 52
        summary = requests.get(f"{server.url}/api/tables/{code}", headers={"Authorization": f"Bearer {token}"},
                               timeout=5).json()
        assert summary["status"] == "ended" and summary["version"] == final["version"]
    finally:
        for phone in phones + [board]:
            phone.close()


def test_sigkill_mid_game_loses_nothing_and_phones_come_back(server):
    server.add_facilitator()
    server.start()
    token = server.api_token()
    code = server.create_table(token)
    phones = [LivePhone(server.url) for _ in range(3)]
    try:
        seats = [phone.join(code, name)["seat"] for phone, name in zip(phones, ["Ana", "Ben", "Cara"])]
        phones[0].wait_for(lambda v: len(v["players"]) == 3 and v["actions"] == [{"type": "start", "label": "Deal cards & start"}])
        phones[0].call("act", {"version": phones[0].view["version"], "action": {"type": "start"}})
        for phone in phones:
            phone.wait_for(lambda v: v["status"] == "playing")
        acked = play_live(phones, until=lambda v: v["version"] >= 40)
        last_acked = max(acked)
        # What the phone showed for the last acknowledged move (its view may trail the ack).
        before = phones[0].wait_for(lambda v: v["version"] >= last_acked)["view"]["public"]["players"]

        server.kill()
        server.start()  # same port, same database

        for phone in phones:
            assert phone.resumed.wait(30), "a phone did not resume by itself"
        for phone, seat in zip(phones, seats):
            view = phone.wait_for(lambda v: v["version"] >= last_acked)
            assert view["seat"] == seat and view["status"] == "playing"
        after = phones[0].view
        assert after["version"] == last_acked
        assert [p["cards"] for p in after["view"]["public"]["players"]] == [p["cards"] for p in before]
        assert [p["name"] for p in after["players"]] == ["Ana", "Ben", "Cara"]
        assert all(p["connected"] for p in phones[0].wait_for(
            lambda v: all(p["connected"] for p in v["players"]))["players"])
        summary = requests.get(f"{server.url}/api/tables/{code}", headers={"Authorization": f"Bearer {token}"},
                               timeout=5).json()
        assert len(summary["seats"]) == 3  # no duplicate seats after the reconnects
        play_live(phones, until=lambda v: v["version"] >= last_acked + 30)
        assert autoplay_to_end(phones)["view"]["public"]["result"]
    finally:
        for phone in phones:
            phone.close()


def test_students_moved_when_a_class_starts_get_their_new_tables_views(server):
    server.add_facilitator()
    server.start()
    token = server.api_token()
    headers = {"Authorization": f"Bearer {token}"}
    made = requests.post(server.url + "/api/classes", json={"game": "war", "table_size": 4}, headers=headers,
                         timeout=10)
    code = made.json()["code"]
    phones = [LivePhone(server.url) for _ in range(13)]
    try:
        joined = [p.join(code, f"S{i:02d}")["table"] for i, p in enumerate(phones)]
        for p in phones:
            p.wait_for(lambda v: v["status"] == "lobby")
        assert requests.post(f"{server.url}/api/classes/{code}/start", headers=headers, timeout=30).ok
        tables = requests.get(f"{server.url}/api/classes/{code}", headers=headers, timeout=10).json()["tables"]
        seated = {s["name"]: t["code"] for t in tables for s in t["seats"]}
        moved = [i for i in range(13) if seated[f"S{i:02d}"] != joined[i]]
        assert len(moved) >= 2
        for i, p in enumerate(phones):
            view = p.wait_for(lambda v, want=seated[f"S{i:02d}"]: v["code"] == want and v["status"] == "playing")
            assert f"S{i:02d}" in [x["name"] for x in view["players"]]
        for i in moved:  # the listed reveal (naming its battle): a tablemate may have revealed meanwhile
            ack = phones[i].call("act", {"version": phones[i].view["version"], "action": phones[i].listed("reveal")})
            assert ack["ok"], ack
    finally:
        for p in phones:
            p.close()


def _at_once(calls):
    """Run the given no-argument calls in threads released together; their results in order."""
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(i):
        barrier.wait()
        results[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


@pytest.mark.parametrize("scaled", [False, True], ids=["one-process-sqlite", "two-processes-postgres-redis"])
def test_simultaneous_moves_on_the_real_server(tmp_path, request, scaled):
    """Six phones reveal at the same instant: six acks, one battle. Six auto-play taps
    racing reveals all take effect. Two ordinary (not order-free) actions from one
    version: exactly one wins. With two processes the phones are split between them."""
    import uuid

    if scaled:
        shared = {"DATABASE_URL": request.getfixturevalue("postgres_schema"),
                  "SOCKETIO_MESSAGE_QUEUE": "redis://127.0.0.1:6379/0", "SECRET_KEY": "sim-" + uuid.uuid4().hex}
        servers = [LiveServer(tmp_path / "a", **shared), LiveServer(tmp_path / "b", **shared)]
    else:
        servers = [LiveServer(tmp_path / "a")]
    phones = clients = []
    try:
        servers[0].add_facilitator()
        for srv in servers:
            srv.start()
        token = servers[0].api_token()
        code = servers[0].create_table(token)
        phones = [LivePhone(servers[i % len(servers)].url) for i in range(6)]
        for i, phone in enumerate(phones):
            phone.join(code, f"P{i}")
        phones[0].wait_for(lambda v: len(v["players"]) == 6 and v["actions"])
        ack = phones[0].call("act", {"version": phones[0].view["version"], "action": {"type": "start"}})
        assert ack["ok"], ack
        for phone in phones:
            phone.wait_for(lambda v: v["status"] == "playing")
        version = phones[0].view["version"]
        acks = _at_once([lambda p=p: p.call("act", {"version": version, "action": {"type": "reveal", "battle": 1}})
                         for p in phones])
        assert [a["ok"] for a in acks] == [True] * 6, acks
        assert sorted(a["version"] for a in acks) == list(range(version + 1, version + 7))
        seen = phones[5].wait_for(lambda v: v["version"] >= version + 6)["view"]["public"]
        assert seen["battle"] == 2 or seen["stage"] != "battle"  # one battle resolved (or it went to war)

        facilitators = [LivePhone(srv.url, auth={"token": token}) for srv in servers] * (2 // len(servers))
        clients = phones + facilitators
        for fac in facilitators:
            assert fac.call("watch", {"code": code, "role": "facilitator"})["ok"]
        version = facilitators[0].call("watch", {"code": code, "role": "facilitator"})["version"]
        # Two teachers remove the same player from one version: the seats they saw changed
        # with the first removal, so exactly one counts and the other is stale.
        acks = _at_once([lambda f=f: f.call("moderate", {"code": code, "version": version,
                                                         "action": {"type": "kick", "seat": 5}})
                         for f in facilitators])
        assert sorted("ok" if a["ok"] else a["error"]["code"] for a in acks) == ["ok", "stale"], acks
        # A pause sent from an old version still pauses (it means the same whatever was seen).
        paused = facilitators[-1].call("moderate", {"code": code, "version": version, "action": {"type": "pause"}})
        assert paused["ok"], paused
        assert facilitators[0].call("moderate", {"code": code, "version": version,
                                                 "action": {"type": "resume"}})["ok"]
        phones = phones[:5]   # Ana's fifth friend was removed: the computer plays that seat

        version = phones[0].view["version"]
        calls = [lambda p=p: p.call("act", {"version": version, "action": {"type": "autoplay", "speed": 1}})
                 for p in phones]
        calls += [lambda p=p: p.call("act", {"version": version, "action": {"type": "reveal"}}) for p in phones[:3]]
        acks = _at_once(calls)
        assert all(a["ok"] for a in acks[:5]), acks[:5]  # every auto-play tap took effect...
        assert all(a["ok"] or a["error"]["code"] in ("stale", "not_your_turn") for a in acks[5:]), acks[5:]
        view = phones[0].wait_for(lambda v: all(p["autoplay"] == 1 or p["eliminated"]
                                                for p in v["view"]["public"]["players"][:5]))
        assert view["version"] > version  # ...and the server plays on by itself

    finally:
        for client in {id(c): c for c in phones + clients}.values():
            client.close()
        for srv in servers:
            srv.stop()
