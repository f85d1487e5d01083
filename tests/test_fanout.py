"""app/realtime/fanout.py: a change's views cross the message queue as one publish."""
from __future__ import annotations

import json

import socketio as python_socketio
from socketio.pubsub_manager import PubSubManager

from app.realtime.fanout import METHOD, BatchingRedisManager, emit_many
from app.wire import Encoded, queue_json


def test_one_publish_per_change_unpacked_by_the_other_workers(monkeypatch):
    sender, receiver = (BatchingRedisManager("redis://127.0.0.1:6379/0", channel="unused") for _ in range(2))
    for manager in (sender, receiver):
        manager.json = queue_json  # as create_app sets it
    published, delivered = [], []
    monkeypatch.setattr(sender, "_publish", lambda data: published.append(sender.json.dumps(data)))
    monkeypatch.setattr(PubSubManager, "_handle_emit",
                        lambda self, m: delivered.append((self, m["event"], m["data"], m["room"])))

    sender.emit_many([("view", Encoded('{"seat":0}'), "seat:abc"), ("view", {"board": True}, "board:CODE42")])

    assert len(published) == 1  # not one per view
    here = [(event, data, room) for who, event, data, room in delivered if who is sender]
    assert here == [("view", ['{"seat":0}'], "seat:abc"), ("view", [{"board": True}], "board:CODE42")]

    other = json.dumps({"method": "emit", "event": "message", "data": [{"text": "hi"}], "room": "class:X",
                        "host_id": "someone-else"})
    monkeypatch.setattr(python_socketio.RedisManager, "_listen", lambda self: iter(published + [other]))
    passed_on = list(receiver._listen())
    there = [(event, data, room) for who, event, data, room in delivered if who is receiver]
    assert there == here
    assert isinstance(there[0][1][0], Encoded)  # spliced into the packet as JSON, not sent as a string
    assert [m["method"] for m in passed_on] == ["emit"]  # stock messages still reach python-socketio

    delivered.clear()
    assert list(sender._listen()) == [json.loads(other)]  # the sender ignores its own batch
    assert delivered == []
    assert json.loads(published[0])["method"] == METHOD  # which older listeners ignore


def test_without_a_batching_queue_each_view_is_one_emit():
    sent = []

    class Sio:
        server = type("Server", (), {"manager": object()})()

        def emit(self, event, data, to):
            sent.append((event, data, to))

    emit_many(Sio(), [("view", {"a": 1}, "seat:1"), ("view", {"a": 2}, "board:C")])
    assert sent == [("view", {"a": 1}, "seat:1"), ("view", {"a": 2}, "board:C")]


def test_a_call_runs_here_and_on_every_other_worker_once(monkeypatch):
    """What only a socket's own process can do (end a logged-out teacher's sockets)."""
    from app.realtime.fanout import call_everywhere, register_call

    sender, receiver = (BatchingRedisManager("redis://127.0.0.1:6379/0", channel="unused") for _ in range(2))
    published, ran = [], []
    monkeypatch.setattr(sender, "_publish", lambda data: published.append(json.dumps(data)))
    for name, manager in (("sender", sender), ("receiver", receiver)):
        sio = type("Sio", (), {"server": type("Server", (), {"manager": manager})()})()
        register_call(sio, "end", lambda who, name=name: ran.append((name, who)))
        if manager is sender:
            sending = sio
    call_everywhere(sending, "end", lambda who: ran.append(("here", who)), 7)
    assert ran == [("here", 7)] and len(published) == 1
    monkeypatch.setattr(python_socketio.RedisManager, "_listen", lambda self: iter(published))
    assert list(receiver._listen()) == [] and ran == [("here", 7), ("receiver", 7)]
    assert list(sender._listen()) == [] and ran == [("here", 7), ("receiver", 7)]  # not twice here


def test_a_built_payload_is_sent_as_the_dict_it_reads_as():
    """A change's payload splices in the view and actions it encoded for its digest
    (app/service/tables/views.py): the text is the JSON of the dict, not encoded twice."""
    import json

    from app.wire import Built, encoded_parts

    view, actions = {"public": {"cards": [1, 2]}, "private": {}}, [{"type": "reveal", "label": "Reveal"}]
    payload = {"code": "ABC", "seat": 0, "view": view, "actions": actions, "log": [], "log_reset": False}
    encoded = encoded_parts([view, actions])
    built = Built.splicing(payload, {"view": encoded[0], "actions": encoded[1]})
    assert built == payload and built["view"] is view
    assert json.loads(str(Encoded.of(built))) == payload
    # The spliced bytes are what goes out: the same view encoded once, not re-read from the dict.
    spliced = Built.splicing(payload, {"view": b'{"spliced":true}', "actions": encoded[1]})
    assert json.loads(str(Encoded.of(spliced)))["view"] == {"spliced": True}
