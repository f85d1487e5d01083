"""Fuzzing every entry point: every Socket.IO event and every HTTP route gets
malformed, oversized, wrongly typed and out-of-order input (hypothesis).

Properties, on SQLite and on a private schema of the machine's PostgreSQL:

* nothing crashes: no "unhandled error" from the socket handler wrapper, no
  exception logged or raised by Flask, no HTTP 5xx, the socket stays connected;
* a refusal says why, with one of the wire protocol's codes (DESIGN.md "Wire
  protocol"), the one that fits the event (a malformed envelope is always
  `bad_request`); an /api refusal is a 4xx with a JSON error body;
* a refused input changes nothing: every table's version, status, flags, event
  count and seats, and the notes, classes and tables that exist.

`rate_limited` is always a legitimate answer (the limits are other code's
business and may change); the socket budget is raised so it is rare.

The fast suite runs a couple of hundred examples per event; the `slow` variant
(CI) thousands. Examples share one app per database (building one costs more
than hundreds of examples), but every example starts from the same world: an
accepted input (a join, a move, a lock...) marks the world dirty and the next
example rebuilds it, so a failure shrinks and replays like a pure function.
"""
from __future__ import annotations

import logging
import os
import uuid
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import PASSWORD, make_app
from phones import Phone

CODES = {"bad_request", "unknown_table", "not_joined", "not_your_turn", "illegal", "stale", "game_over",
         "forbidden", "table_full", "name_taken", "rate_limited"}

# What each event may answer when it refuses (DESIGN.md "Wire protocol").
ALLOWED = {
    "join": {"bad_request", "unknown_table", "forbidden", "table_full", "name_taken", "game_over"},
    "resume": {"bad_request", "not_joined", "forbidden"},
    "watch": {"bad_request", "unknown_table", "forbidden"},
    "act": {"bad_request", "not_joined", "not_your_turn", "illegal", "stale", "game_over", "forbidden"},
    "moderate": {"bad_request", "forbidden", "unknown_table", "stale", "illegal", "game_over"},
    "note": {"bad_request", "not_joined", "forbidden"},
    "notes": {"bad_request", "not_joined", "forbidden"},
}
# The envelope each event needs (app/realtime.py validate_payload): anything else is bad_request.
ENVELOPE = {"join": {"code": str, "name": str}, "resume": {"token": str}, "watch": {"code": str},
            "act": {"version": int, "action": dict}, "moderate": {"code": str, "version": int, "action": dict},
            "note": {"text": str}, "notes": {}}

# The answers the examples got, printed with FUZZ_STATS=1 (to see the fuzz reaches past the envelope).
ANSWERS: Counter = Counter()

ROLES = ["stranger", "lobby_first", "player", "player2", "board", "teacher", "other_teacher", "kicked", "forged"]


# ------------------------------------------------------------------ the world
@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def db_url(request, tmp_path_factory):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('fuzz') / 'fuzz.db'}"
        return
    from sqlalchemy import text

    from app.db import make_engine

    schema = "fuzz_" + uuid.uuid4().hex[:10]
    admin = make_engine("postgresql://postgres@127.0.0.1:5432/test", migrate=False)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    yield f"postgresql://postgres@127.0.0.1:5432/test?options=-csearch_path%3D{schema}"
    with admin.begin() as conn:
        conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    admin.dispose()


class World:
    """One app and a cast of connections around a lobby table, a game in play, an
    ended table and a class, rebuilt whenever an accepted input changed it."""

    def __init__(self, app):
        self.app = app
        self.tables = app.extensions["tables"]
        accounts = app.extensions["accounts"]
        self.teacher = accounts.add("teacher", PASSWORD)
        self.other = accounts.add("other", PASSWORD)
        self.teacher_token = accounts.issue_token(self.teacher.id)
        self.other_token = accounts.issue_token(self.other.id)
        self.phones: dict[str, Phone] = {}
        self.dirty = True

    def build(self):
        for p in self.phones.values():
            p.close()
        tables, teacher = self.tables, self.teacher
        lobby = tables.create_table(teacher.id, "war", {})
        playing = tables.create_table(teacher.id, "war", {})
        ended = tables.create_table(teacher.id, "war", {})
        klass = self.app.extensions["classes"].create(teacher.id, "war", {}, 2)
        self.codes = {"lobby": lobby.code, "playing": playing.code, "ended": ended.code, "class": klass.code}
        ph = {role: Phone(self.app) for role in ("stranger", "lobby_first", "player", "player2", "board", "kicked")}
        ph["teacher"] = Phone(self.app, auth={"token": self.teacher_token})
        ph["other_teacher"] = Phone(self.app, auth={"token": self.other_token})
        ph["forged"] = Phone(self.app, auth={"token": "forged"})
        self.tokens = {}
        for role, code, name in [("lobby_first", lobby.code, "Ana"), ("player", playing.code, "Ana"),
                                 ("player2", playing.code, "Ben"), ("kicked", playing.code, "Cal")]:
            ack = ph[role].join(code, name)
            assert ack["ok"], ack
            self.tokens[role] = ack["token"]
        assert ph["stranger"].join(lobby.code, "Bo")["ok"]  # the lobby can start; the stranger is then
        ph["stranger"].close()                                # a fresh connection with no seat
        ph["stranger"] = Phone(self.app)
        assert ph["player"].act({"type": "start"})["ok"]
        tables.join(ended.code, "Eve")
        tables.moderate(teacher.id, ended.code, tables.get(ended.code).version, {"type": "end"})
        assert ph["board"].send("watch", {"code": playing.code})["ok"]
        assert ph["teacher"].send("watch", {"code": playing.code, "role": "facilitator"})["ok"]
        version = tables.get(playing.code).version
        assert tables.moderate(teacher.id, playing.code, version, {"type": "kick", "seat": 2}).version
        for p in ph.values():
            p.pump()
        self.phones = ph
        self.dirty = False
        self.baseline = self.snapshot()

    def fresh(self):
        if self.dirty or self.snapshot() != self.baseline:
            self.build()
        return self

    def snapshot(self) -> dict:
        """Everything a refused input must leave as it was."""
        from sqlalchemy import text

        with self.app.extensions["db"].connect() as conn:
            def rows(sql):
                return [tuple(r) for r in conn.execute(text(sql)).all()]
            return {
                "tables": rows("SELECT code, version, status, locked, paused FROM game_table ORDER BY id"),
                "events": rows("SELECT table_id, COUNT(*), MAX(version) FROM event GROUP BY table_id ORDER BY table_id"),
                "seats": rows("SELECT table_id, seat_index, name, kicked, computer, token_hash FROM seat ORDER BY id"),
                "notes": rows("SELECT COUNT(*) FROM note"),
                "classes": rows("SELECT code, status FROM class_session ORDER BY id"),
            }

    def version(self, which="playing") -> int:
        return self.tables.get(self.codes[which]).version


@pytest.fixture(scope="module")
def world(db_url, tmp_path_factory):
    app = make_app(tmp_path_factory.mktemp("fuzzapp"), DATABASE_URL=db_url,
                   SOCKET_RATE=1e9, SOCKET_BURST=1e9, CLASS_PUSH_INTERVAL=0.0)
    # No background moves: a computer seat or auto-play moving on its own would change
    # the state between the snapshot and the check (and make examples order-dependent).
    app.extensions["notifier"].scheduler.stop()
    w = World(app)
    yield w
    if os.environ.get("FUZZ_STATS"):
        print("\n" + "\n".join(f"{n:5d} {e} {r} {c}" for (e, r, c), n in sorted(ANSWERS.items())))
        ANSWERS.clear()
    for p in w.phones.values():
        p.close()
    app.extensions["db"].dispose()


# ------------------------------------------------------------- the payloads
surrogates = st.sampled_from(["\ud800", "a\udfffb", "\udc80\ud83d"])
weird_text = st.one_of(
    st.text(max_size=30),
    st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=30),  # surrogates, controls
    st.sampled_from(["", " ", "\x00", "a\x00b", "\u202e", "\ufeff", "<script>", "' OR 1=1 --", "null",
                     "\n\t", "🂡" * 5, "Ana", "ANA", " ana ", "x" * 21]),
    surrogates,
    st.integers(0, 200_000).map(lambda n: "A" * n),   # huge strings
)
numbers = st.one_of(st.integers(), st.integers(-2**80, 2**80), st.floats(allow_nan=True), st.booleans(),
                    st.sampled_from([0, 1, -1, 2**31, 2**63, -2**63 - 1, 10**30]))


def deep(depth: int, leaf=0):
    value = leaf
    for i in range(depth):
        value = [value] if i % 2 else {"a": value}
    return value


junk_leaf = st.one_of(st.none(), numbers, weird_text, st.binary(max_size=40))
junk = st.one_of(
    st.recursive(junk_leaf, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                    st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                 max_leaves=12),
    st.integers(1, 600).map(deep),   # deep nesting (orjson stops at 255 levels; json at ~1000)
)


def plausible_string(world: World):
    codes = list(world.codes.values())
    tokens = list(world.tokens.values()) + [world.teacher_token]
    return st.one_of(st.sampled_from(codes), st.sampled_from(codes).map(str.lower),
                     st.sampled_from(codes).map(lambda c: f" {c[:3]}-{c[3:]} "),
                     st.sampled_from(tokens), st.sampled_from(["ZZZZZZ", "ABCDE", "ABCDEFG", "OOOOOO"]),
                     weird_text)


def plausible_int(world: World):
    return st.one_of(st.sampled_from([world.version("playing"), world.version("lobby"), world.version("ended")]),
                     st.sampled_from([world.version("playing") - 1, world.version("playing") + 1, 0, -1]),
                     numbers)


def action(world: World, role: str):
    phone = world.phones[role]
    listed = [a["type"] for a in (phone.view or {}).get("actions", [])] + \
        [a["type"] for a in (phone.view or {}).get("moderation", [])]
    kinds = st.one_of(st.sampled_from(listed + ["start", "reveal", "autoplay", "hold", "lock", "unlock", "pause",
                                                "resume", "end", "kick", "time_up", "__finish__", "join"]),
                      junk)
    extra = st.dictionaries(st.sampled_from(["seat", "speed", "label", "card", "target", "x", "on"]),
                            st.one_of(plausible_int(world), junk), max_size=3)
    return st.builds(lambda kind, more, drop: {k: v for k, v in dict(more, type=kind).items() if k not in drop},
                     kinds, extra, st.sets(st.sampled_from(["type"]), max_size=1))


def payload_for(world: World, event: str, role: str):
    """A mix of junk and envelopes that are right or nearly right, so the checks
    past the envelope are reached too."""
    spec = ENVELOPE.get(event, {})
    value = {str: plausible_string(world), int: plausible_int(world), dict: action(world, role)}
    fields = {key: st.one_of(value[kind], value[kind], junk) for key, kind in spec.items()}
    extra = {"role": st.one_of(st.sampled_from(["board", "facilitator", "king"]), junk),
             "scope": st.one_of(st.sampled_from(["table", "game", "class"]), junk)}
    envelope = st.fixed_dictionaries({}, optional={**fields, **extra}) if not spec else \
        st.builds(lambda a, b: {**a, **b}, st.fixed_dictionaries(fields), st.fixed_dictionaries({}, optional=extra))
    return st.one_of(junk, envelope, envelope, envelope)


def well_formed(event: str, payload) -> bool:
    if event not in ENVELOPE:
        return True
    if not isinstance(payload, dict):
        return False
    for key, kind in ENVELOPE[event].items():
        value = payload.get(key)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            return False
    return True


def contains(value, predicate) -> bool:
    stack = [value]
    while stack:
        x = stack.pop()
        if predicate(x):
            return True
        if isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
    return False


def unstorable(x) -> bool:
    """Text no database stores: NUL (PostgreSQL) or a lone surrogate (any UTF-8)."""
    return isinstance(x, str) and ("\x00" in x or any("\ud800" <= ch <= "\udfff" for ch in x))


def logged_errors(caplog) -> list[str]:
    return [f"{r.name}: {r.getMessage()}\n{r.exc_text or ''}" for r in caplog.records if r.levelno >= logging.ERROR]


# ------------------------------------------------------------------ sockets
EVENTS = ["join", "resume", "watch", "act", "moderate", "note", "notes"]
OTHER_EVENTS = ["connect", "disconnect", "message", "json", "view", "removed", "ping", "", "act " * 20,
                "__proto__", "JOIN"]


def check_socket_example(world: World, caplog, role: str, event: str, payload) -> None:
    world.fresh()
    phone = world.phones[role]
    before = world.snapshot()
    caplog.clear()
    ack = phone.client.emit(event, payload, callback=True)
    phone.pump()
    assert not logged_errors(caplog), logged_errors(caplog)
    assert phone.client.is_connected(), f"{event} from {role} disconnected the socket"
    if event not in ENVELOPE:  # an event nobody handles (or a reserved name): no answer, no change
        assert ack in (None, []) or (isinstance(ack, dict) and ack.get("ok") is False), ack
        assert world.snapshot() == before
        return
    assert isinstance(ack, dict) and isinstance(ack.get("ok"), bool), ack
    ANSWERS[(event, role, "ok" if ack["ok"] else ack["error"]["code"])] += 1
    if ack["ok"]:
        world.dirty = True
        return
    error = ack["error"]
    assert set(error) == {"code", "message"} and isinstance(error["message"], str) and error["message"], ack
    code = error["code"]
    assert code in CODES, ack
    if not well_formed(event, payload) or contains(payload, unstorable):
        assert code in ("bad_request", "rate_limited"), (event, payload, ack)
    else:
        assert code in ALLOWED[event] | {"rate_limited"}, (role, event, payload, ack)
    after = world.snapshot()
    assert after == before, f"refused {event} from {role} ({code}) changed the state"


def socket_test(max_examples: int):
    @settings(max_examples=max_examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def run(world, caplog, event, data):
        role = data.draw(st.sampled_from(ROLES), label="role")
        payload = data.draw(payload_for(world.fresh(), event, role), label="payload")
        check_socket_example(world, caplog, role, event, payload)
    return run


@pytest.mark.parametrize("event", EVENTS + ["unknown"])
def test_socket_events_refuse_bad_input_cleanly(world, caplog, event):
    if event == "unknown":
        for name in OTHER_EVENTS:
            for role in ("stranger", "player", "teacher"):
                for payload in (None, {}, {"code": world.fresh().codes["lobby"], "name": "Zed"}, "x", 5):
                    check_socket_example(world, caplog, role, name, payload)
        return
    socket_test(200 if event in ("act", "moderate") else 100)(world, caplog, event)
