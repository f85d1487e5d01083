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

The fast suite runs 30-100 examples per event (fewer on PostgreSQL, see
EXAMPLES and DB_SHARE) and 200 HTTP requests; the `slow` variants (CI) four
times as many. Examples share one app per database (building one costs more
than hundreds of examples), but every example starts from the same world: an
accepted input that changed what the roles mean (a join, a lock, an ended
game...) makes the next example rebuild it, so a failure shrinks and replays
like a pure function. FUZZ_STATS=1 (with -s) prints the answers the examples
got, to see the fuzz gets past the envelope checks.
"""
from __future__ import annotations

import logging
import os
import shutil
import tempfile
import uuid
from collections import Counter
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from conftest import PASSWORD, make_app
from phones import Phone

from app.extensions import services, socketio

CODES = {"bad_request", "unknown_table", "not_joined", "not_your_turn", "illegal", "stale", "game_over",
         "forbidden", "table_full", "name_taken", "rate_limited"}

# What each event may answer when it refuses (DESIGN.md "Wire protocol").
ALLOWED = {
    "join": {"bad_request", "unknown_table", "forbidden", "table_full", "name_taken", "game_over"},
    "resume": {"bad_request", "not_joined", "forbidden"},
    "watch": {"bad_request", "unknown_table", "forbidden"},
    "act": {"bad_request", "not_joined", "not_your_turn", "illegal", "stale", "game_over", "forbidden"},
    "moderate": {"bad_request", "forbidden", "unknown_table", "stale", "illegal", "game_over"},
    "again": {"bad_request", "not_joined", "forbidden", "illegal", "game_over"},
    "note": {"bad_request", "not_joined", "forbidden"},
    "notes": {"bad_request", "not_joined", "forbidden"},
}
# The envelope each event needs (app/realtime/handlers.py validate_payload): anything else is bad_request.
ENVELOPE = {"join": {"code": str, "name": str}, "resume": {"token": str}, "watch": {"code": str},
            "act": {"version": int, "action": dict}, "moderate": {"code": str, "version": int, "action": dict},
            "again": {}, "note": {"text": str}, "notes": {}}

# The answers the examples got, printed with FUZZ_STATS=1 (to see the fuzz reaches past the envelope).
ANSWERS: Counter = Counter()

ROLES = ["stranger", "lobby_first", "player", "player2", "board", "teacher", "other_teacher", "kicked", "forged"]


# ------------------------------------------------------------------ the world
@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def db_url(request, tmp_path_factory):
    if request.param == "sqlite":
        # In memory when the machine has /dev/shm: thousands of small commits would
        # otherwise wait on the disk (fsync), not on the code under test.
        where = tempfile.mkdtemp(dir="/dev/shm") if os.path.isdir("/dev/shm") else str(tmp_path_factory.mktemp("fuzz"))
        yield f"sqlite:///{where}/fuzz.db"
        shutil.rmtree(where, ignore_errors=True)
        return
    from sqlalchemy import text

    from app.store.db import make_engine

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
        self.tables = services(app).tables
        accounts = services(app).accounts
        self.teacher = accounts.add("teacher", PASSWORD)
        self.other = accounts.add("other", PASSWORD)
        self.teacher_token = accounts.issue_token(self.teacher.id)
        self.other_token = accounts.issue_token(self.other.id)
        self.phones: dict[str, Phone] = {}
        self.builds = 0
        self.build()

    def build(self):
        for p in self.phones.values():
            p.close()
        accounts = services(self.app).accounts
        if accounts.by_token(self.teacher_token) is None:  # an accepted POST /api/logout revoked it
            self.teacher_token = accounts.issue_token(self.teacher.id)
        if accounts.by_token(self.other_token) is None:
            self.other_token = accounts.issue_token(self.other.id)
        tables, teacher = self.tables, self.teacher
        lobby = tables.create_table(teacher.id, "war", {})
        playing = tables.create_table(teacher.id, "war", {})
        ended = tables.create_table(teacher.id, "war", {})
        klass = services(self.app).classes.create(teacher.id, "war", {}, 2)
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
        self.tokens["ended"] = tables.join(ended.code, "Eve")["token"]
        tables.moderate(teacher.id, ended.code, tables.get(ended.code).version, {"type": "end"})
        assert ph["board"].send("watch", {"code": playing.code})["ok"]
        assert ph["teacher"].send("watch", {"code": playing.code, "role": "facilitator"})["ok"]
        version = tables.get(playing.code).version
        assert tables.moderate(teacher.id, playing.code, version, {"type": "kick", "seat": 2}).version
        for p in ph.values():
            p.pump()
        self.phones = ph
        self.dirty = False
        self.baseline = self.shape()
        self.builds += 1

    def fresh(self):
        """Rebuild only when an accepted input changed what the roles mean (a table's
        status or flags, who sits where, what a connection speaks for): a move, a note
        or a watch of the same table leaves the world the same for the next example."""
        if self.dirty:
            self.dirty = False
            if self.shape() != self.baseline:
                self.build()
        return self

    def shape(self):
        from app.realtime.sockets import connections

        server = socketio.server
        bound = []
        for role, phone in sorted(self.phones.items()):
            conn = connections.get(server.manager.sid_from_eio_sid(phone.client.eio_sid, "/"))
            bound.append((role, conn and (conn.token_hash, conn.watching, conn.watching_as, conn.facilitator_id)))
        tables = {code: self.tables.get(code) for code in self.codes.values() if self.tables.find(code)}
        return (bound, sorted((t.code, t.status, t.locked, t.paused) for t in tables.values()),
                sorted((code, [(x.seat_index, x.name, x.kicked, x.computer) for x in self.tables.seats(code)])
                       for code in tables))

    def snapshot(self) -> dict:
        """Everything a refused input must leave as it was."""
        from sqlalchemy import text

        with services(self.app).db.connect() as conn:
            def rows(sql):
                return [tuple(r) for r in conn.execute(text(sql)).all()]
            return {
                "tables": rows("SELECT code, version, status, locked, paused FROM game_table ORDER BY id"),
                "events": rows("SELECT table_id, COUNT(*), MAX(version) FROM event "
                               "GROUP BY table_id ORDER BY table_id"),
                "seats": rows("SELECT table_id, seat_index, name, kicked, computer, token_hash FROM seat ORDER BY id"),
                "notes": rows("SELECT COUNT(*) FROM note"),
                "classes": rows("SELECT code, status FROM class_session ORDER BY id"),
            }

    def version(self, which="playing") -> int:
        return self.tables.get(self.codes[which]).version


@pytest.fixture(scope="module")
def world(db_url, tmp_path_factory):
    app = make_app(tmp_path_factory.mktemp("fuzzapp"), DATABASE_URL=db_url,
                   SOCKET_RATE=1e9, SOCKET_BURST=1e9, CLASS_PUSH_INTERVAL=0.0,
                   # One test client address makes every join and guess of thousands of
                   # examples: the per-address brakes (tests/test_guard.py, test_auth.py)
                   # would soon answer everything with rate_limited, which tests nothing.
                   SEATS_PER_ADDRESS=10**9, CODE_GUESS_LIMIT=10**9, CODE_GUESS_HOURLY=10**9,
                   LOGIN_PER_ACCOUNT_ADDRESS=10**9, LOGIN_PER_ADDRESS=10**9, LOGIN_PER_ACCOUNT=10**9)
    # No background moves: a computer seat or auto-play moving on its own would change
    # the state between the snapshot and the check (and make examples order-dependent).
    services(app).notifier.scheduler.stop()
    w = World(app)
    w.db = "postgresql" if db_url.startswith("postgresql") else "sqlite"
    yield w
    if os.environ.get("FUZZ_STATS"):
        print("\n" + "\n".join(f"{n:5d} {e} {r} {c}" for (e, r, c), n in sorted(ANSWERS.items())))
        print(f"{w.builds} worlds built")
        ANSWERS.clear()
    for p in w.phones.values():
        p.close()
    services(app).stop()


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


def weighted(*choices):
    """One of the strategies, each `weight` times as likely (st.one_of picks evenly)."""
    return st.sampled_from([s for weight, s in choices for _ in range(weight)]).flatmap(lambda s: s)


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


json_junk = st.one_of(
    st.recursive(st.one_of(st.none(), numbers, weird_text), lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=12),
    st.integers(1, 600).map(deep))


@dataclass(frozen=True)
class Ref:
    """A value of the world (a table code, a seat token, a version), resolved when the
    example runs: the world is rebuilt now and then, and hypothesis needs strategies
    that draw the same way every time they are replayed."""

    kind: str      # "code", "token" or "version"
    which: str     # the table ("lobby", "playing"...) or the token's role
    form: object = None  # a code's spelling ("lower", "spaced"), a version's offset

    def resolve(self, world: World):
        if self.kind == "code":
            code = world.codes[self.which]
            return {"lower": code.lower(), "spaced": f" {code[:3]}-{code[3:]} "}.get(self.form, code)
        if self.kind == "token":
            return world.teacher_token if self.which == "teacher" else world.tokens[self.which]
        return world.version(self.which) + (self.form or 0)


def resolved(world: World, value):
    if isinstance(value, Ref):
        return value.resolve(world)
    if isinstance(value, dict):
        return {resolved(world, k): resolved(world, v) for k, v in value.items()}
    if isinstance(value, list):
        return [resolved(world, v) for v in value]
    return value


TABLES = ["lobby", "playing", "ended", "class"]
codes = st.builds(Ref, st.just("code"), st.sampled_from(TABLES))
plausible_string = weighted(
    (3, codes), (1, st.builds(Ref, st.just("code"), st.sampled_from(TABLES), st.just("lower"))),
    (1, st.builds(Ref, st.just("code"), st.sampled_from(TABLES), st.just("spaced"))),
    (2, st.builds(Ref, st.just("token"), st.sampled_from(["lobby_first", "player", "player2", "kicked", "ended",
                                                          "teacher"]))),
    (1, st.sampled_from(["ZZZZZZ", "ABCDE", "ABCDEFG", "OOOOOO"])), (2, weird_text))
plausible_int = weighted(
    (3, st.builds(Ref, st.just("version"), st.sampled_from(["playing", "lobby", "ended"]))),
    (1, st.builds(Ref, st.just("version"), st.just("playing"), st.sampled_from([-1, 1, -100]))),
    (1, numbers), (1, st.sampled_from([0, -1])))
# Action types: War's own (the tables here play War), the platform's and made-up ones.
ACTION_TYPES = ["start", "reveal", "autoplay", "hold", "resume", "restart", "loadout", "activate", "deactivate",
                "counter", "resolve", "call", "fold", "raise", "lock", "unlock", "pause", "end", "kick", "time_up",
                "__finish__", "join", "computers", "expire"]
action = st.builds(
    lambda kind, more, drop: {k: v for k, v in dict(more, type=kind).items() if k not in drop},
    weighted((3, st.sampled_from(ACTION_TYPES)), (1, junk)),
    st.dictionaries(st.sampled_from(["seat", "speed", "label", "card", "target", "x", "on", "powers"]),
                    st.one_of(plausible_int, junk), max_size=3),
    weighted((5, st.just(())), (1, st.just(("type",)))))


def payload_for(event: str):
    """A mix of junk and envelopes that are right or nearly right, so the checks
    past the envelope are reached too."""
    spec = ENVELOPE.get(event, {})
    value = {str: plausible_string, int: plausible_int, dict: action}
    fields = {key: weighted((4, value[kind]), (1, junk)) for key, kind in spec.items()}
    extra = {"role": st.one_of(st.sampled_from(["board", "facilitator", "king"]), junk),
             "scope": st.one_of(st.sampled_from(["table", "game", "class"]), junk)}
    envelope = st.fixed_dictionaries({}, optional={**fields, **extra}) if not spec else \
        st.builds(lambda a, b: {**a, **b}, st.fixed_dictionaries(fields), st.fixed_dictionaries({}, optional=extra))
    return weighted((1, junk), (5, envelope))


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


def short(value, n: int = 400) -> str:
    """A failure message that stays readable when the input was 200 kB."""
    text = repr(value)
    return text if len(text) <= n else text[:n // 2] + f" …{len(text) - n} more… " + text[-n // 2:]


def logged_errors(caplog) -> list[str]:
    return [f"{r.name}: {r.getMessage()}\n{r.exc_text or ''}" for r in caplog.records if r.levelno >= logging.ERROR]


# ------------------------------------------------------------------ sockets
EVENTS = ["join", "resume", "watch", "act", "moderate", "again", "note", "notes"]
OTHER_EVENTS = ["connect", "disconnect", "message", "json", "view", "removed", "ping", "", "act " * 20,
                "__proto__", "JOIN"]


def check_socket_example(world: World, caplog, role: str, event: str, payload) -> None:
    world.fresh()
    payload = resolved(world, payload)
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
        assert code in ("bad_request", "rate_limited"), short((event, payload, ack))
    else:
        assert code in ALLOWED[event] | {"rate_limited"}, short((role, event, payload, ack))
    after = world.snapshot()
    assert after == before, f"refused {event} from {role} ({code}) changed the state"


def socket_test(max_examples: int):
    @settings(max_examples=max_examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def run(world, caplog, event, data):
        role = data.draw(st.sampled_from(ROLES), label="role")
        payload = data.draw(payload_for(event), label="payload")
        check_socket_example(world, caplog, role, event, payload)
    return run


# Examples per event in the fast suite (PostgreSQL's round trips cost more, so it gets
# fewer; the same properties run there); the `slow` variants run SLOW_FACTOR times as many.
EXAMPLES = {"act": 100, "moderate": 100, "join": 60, "resume": 40, "watch": 40, "again": 30, "note": 40,
            "notes": 30}
DB_SHARE = {"sqlite": 1.0, "postgresql": 0.35}
SLOW_FACTOR = 4


def budget(world: World, examples: int, slow: bool = False) -> int:
    return max(10, int(examples * DB_SHARE[world.db] * (SLOW_FACTOR if slow else 1)))


@pytest.mark.parametrize("event", EVENTS)
def test_socket_events_refuse_bad_input_cleanly(world, caplog, event):
    socket_test(budget(world, EXAMPLES[event]))(world, caplog, event)


@pytest.mark.slow
@pytest.mark.parametrize("event", EVENTS)
def test_socket_events_refuse_bad_input_cleanly_thousands(world, caplog, event):
    socket_test(budget(world, EXAMPLES[event], slow=True))(world, caplog, event)


@settings(max_examples=60, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(auth=weighted((3, json_junk), (2, st.fixed_dictionaries({"token": weighted((2, weird_text), (1, json_junk))}))))
@example(auth={"token": "\ud800"})   # it raised out of the connect handler (UnicodeEncodeError)
@example(auth={"token": "ab\x00cd"})
def test_connecting_with_any_auth_is_a_plain_connection(world, caplog, auth):
    """The connect `auth` (the facilitator's token) is client input like any other:
    junk connects as nobody in particular, and nothing is logged or changed."""
    world.fresh()
    before = world.snapshot()
    caplog.clear()
    phone = Phone(world.app, auth=auth)
    try:
        assert phone.client.is_connected() and not logged_errors(caplog), short((auth, logged_errors(caplog)))
        ack = phone.send("watch", {"code": world.codes["playing"], "role": "facilitator"})
        assert ack["ok"] is False and ack["error"]["code"] in ("forbidden", "rate_limited"), short((auth, ack))
        assert world.snapshot() == before
    finally:
        phone.close()


def test_unknown_and_reserved_event_names_do_nothing(world, caplog):
    for name in OTHER_EVENTS:
        for role in ("stranger", "player", "teacher"):
            for payload in (None, {}, {"code": world.fresh().codes["lobby"], "name": "Zed"}, "x", 5):
                check_socket_example(world, caplog, role, name, payload)


@pytest.mark.parametrize("event", EVENTS)
def test_a_payload_nested_too_deep_to_decode_is_a_bad_request(world, caplog, event):
    """A browser can send ~30,000 nested brackets inside the 64 KB buffer; the test
    client cannot build them (its encoder recurses), so the packet is sent raw."""
    world.fresh()
    phone = world.phones["player"]
    server = socketio.server
    before = world.snapshot()
    for depth in (1200, 30_000):
        caplog.clear()
        nested = "[" * depth + "]" * depth
        server._handle_eio_message(phone.client.eio_sid, f'27["{event}",{nested}]')
        assert phone.client.acks == {"args": [{"ok": False, "error": {
            "code": "bad_request", "message": phone.client.acks["args"][0]["error"]["message"]}}], "namespace": "/"}
        phone.client.acks = None
        assert not logged_errors(caplog), logged_errors(caplog)
        assert phone.client.is_connected()
    assert world.snapshot() == before


def out_of_order(world: World) -> list:
    """(role, event, payload, expected code): moves from the wrong person, at the
    wrong time, from an old version or with someone else's credentials."""
    codes, tokens, v = world.codes, world.tokens, world.version
    lock = {"type": "lock"}
    return [
        ("stranger", "act", {"version": v("playing"), "action": {"type": "reveal"}}, "not_joined"),
        ("board", "act", {"version": v("playing"), "action": {"type": "reveal"}}, "not_joined"),
        ("teacher", "act", {"version": v("playing"), "action": {"type": "reveal"}}, "not_joined"),
        ("lobby_first", "act", {"version": v("lobby") - 1, "action": {"type": "start"}}, "stale"),
        ("lobby_first", "act", {"version": v("lobby") + 5, "action": {"type": "start"}}, "stale"),
        ("lobby_first", "act", {"version": v("lobby"), "action": {"type": "reveal"}}, "illegal"),
        ("player", "act", {"version": v("playing"), "action": {"type": "start"}}, "illegal"),
        ("player", "act", {"version": v("playing"), "action": {"type": "end"}}, "illegal"),
        ("kicked", "act", {"version": v("playing"), "action": {"type": "reveal"}}, "forbidden"),
        ("kicked", "note", {"text": "still here?"}, "forbidden"),
        ("stranger", "resume", {"token": tokens["kicked"]}, "forbidden"),
        ("stranger", "resume", {"token": "a-foreign-token-nobody-was-given"}, "not_joined"),
        ("stranger", "resume", {"token": world.teacher_token}, "not_joined"),  # a facilitator's is no seat's
        ("player", "moderate", {"code": codes["playing"], "version": v("playing"), "action": lock}, "forbidden"),
        ("stranger", "moderate", {"code": codes["playing"], "version": v("playing"), "action": lock}, "forbidden"),
        ("forged", "moderate", {"code": codes["playing"], "version": v("playing"), "action": lock}, "forbidden"),
        ("other_teacher", "moderate", {"code": codes["playing"], "version": v("playing"), "action": lock},
         "forbidden"),
        ("teacher", "moderate", {"code": codes["playing"], "version": v("playing") - 1,
                                 "action": {"type": "kick", "seat": 0}}, "stale"),
        ("teacher", "moderate", {"code": codes["playing"], "version": v("playing"), "action": {"type": "pause"},
                                 "scope": "game"}, "forbidden"),  # War has no facilitator moves
        ("teacher", "moderate", {"code": codes["ended"], "version": v("ended"), "action": lock}, "game_over"),
        ("teacher", "moderate", {"code": codes["lobby"], "version": v("lobby"), "action": {"type": "resume"}},
         "illegal"),
        ("other_teacher", "watch", {"code": codes["playing"], "role": "facilitator"}, "forbidden"),
        ("other_teacher", "watch", {"code": codes["class"], "role": "facilitator"}, "forbidden"),
        ("stranger", "join", {"code": codes["playing"], "name": "Late"}, "forbidden"),
        ("stranger", "join", {"code": codes["ended"], "name": "Late"}, "game_over"),
        ("stranger", "join", {"code": codes["lobby"], "name": " ANA "}, "name_taken"),
        ("stranger", "note", {"text": "who am I?"}, "not_joined"),
        ("stranger", "notes", {}, "not_joined"),
    ]


def test_out_of_order_and_foreign_moves_get_the_right_code_and_change_nothing(world, caplog):
    for case in range(len(out_of_order(world.fresh()))):
        role, event, payload, expected = out_of_order(world.fresh())[case]
        before = world.snapshot()
        caplog.clear()
        ack = world.phones[role].send(event, payload)
        assert ack["ok"] is False and ack["error"]["code"] in (expected, "rate_limited"), (role, event, payload, ack)
        assert not logged_errors(caplog), logged_errors(caplog)
        assert world.snapshot() == before, (role, event, payload)


def test_a_finished_seat_gets_game_over(world, caplog):
    phone = Phone(world.app)
    try:
        assert phone.send("resume", {"token": world.tokens["ended"]})["ok"]
        before = world.snapshot()
        ack = phone.send("act", {"version": world.version("ended"), "action": {"type": "reveal"}})
        assert ack["ok"] is False and ack["error"]["code"] == "game_over", ack
        assert world.snapshot() == before and not logged_errors(caplog)
    finally:
        phone.close()


# -------------------------------------------------------------------- HTTP
METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH"]
API_CODES = CODES


def routes(app) -> list:
    return sorted((r for r in app.url_map.iter_rules() if r.endpoint != "static"), key=lambda r: r.rule)


def path_value(converter: str):
    if converter == "IntegerConverter":
        return st.one_of(st.integers(0, 10**20), st.just(1)).map(str)
    games = ["war", "wizard", "storm_war", "water_cycle", "chess"]
    return weighted((3, plausible_string), (1, st.sampled_from(games)),
                    (1, st.text(max_size=40)), (1, st.sampled_from(["..", "%00", "a/b", "%2e%2e", " ", "demo"])))


def http_request(world: World):
    """A request to one of the app's routes: its own methods and wrong ones, every
    kind of body, with and without each kind of credentials."""
    from urllib.parse import quote

    def build(draw):
        rule = draw(st.sampled_from(routes(world.app)))
        method = draw(weighted((4, st.sampled_from(sorted(rule.methods - {"HEAD", "OPTIONS"}))),
                               (1, st.sampled_from(METHODS))))
        args = {arg: draw(path_value(type(conv).__name__)) for arg, conv in rule._converters.items()}
        query = "&".join(f"{k}={quote(v.encode('utf-8', 'surrogatepass'), safe='')}" for k, v in draw(
            st.dictionaries(st.sampled_from(["code", "paper", "version", "game", "from", "to", "next", "format"]),
                            weird_text, max_size=2)).items())
        pdf = rule.rule.endswith(".pdf")  # a real PDF takes seconds: only its refusals are fuzzed
        auth = draw(st.sampled_from(["none", "garbage"] if pdf else ["none", "bearer", "other", "garbage", "session"]))
        kind = draw(st.sampled_from(["none", "json", "envelope", "raw", "form"]))
        body = {}
        if kind == "json":
            body["json"] = draw(json_junk)
        elif kind == "envelope":
            keys = ["game", "options", "name", "password", "table_size", "seat", "student", "table", "text",
                    "secret", "accept", "banks", "paper", "count", "to"]
            body["json"] = draw(st.dictionaries(st.sampled_from(keys), weighted(
                (2, plausible_string), (1, plausible_int), (1, json_junk),
                (1, st.just({})), (1, st.sampled_from([{"mode": "power"}, {"mode": "nuclear"}]))), max_size=4))
        elif kind == "raw":
            body["data"] = draw(st.one_of(st.binary(max_size=200), st.sampled_from(
                [b"{", b"[" * 5000, b'{"game": "war"', b"\xff\xfe", b"null", b"\x00"])))
            body["content_type"] = draw(st.sampled_from(["application/json", "text/plain",
                                                         "application/x-www-form-urlencoded", "multipart/form-data"]))
        elif kind == "form":
            body["data"] = draw(st.dictionaries(st.sampled_from(["game", "mode", "name", "password", "csrf", "title",
                                                                 "table_size", "paper", "kind"]),
                                                weird_text.map(lambda t: t.encode("utf-8", "surrogatepass")
                                                               .decode("utf-8", "replace")), max_size=4))
            if draw(st.booleans()):
                body["data"]["csrf"] = "CSRF-OK"
        return rule, method, args, query, auth, body

    return st.composite(build)()


def http_path(world: World, rule, args: dict) -> str:
    from urllib.parse import quote

    path = rule.rule
    for arg, conv in rule._converters.items():
        value = str(resolved(world, args[arg]))
        path = path.replace(f"<{'int:' if type(conv).__name__ == 'IntegerConverter' else ''}{arg}>",
                            quote(value.encode("utf-8", "surrogatepass"), safe=""))
    return path


def http_client(world: World, auth: str):
    client = world.app.test_client()
    headers = {}
    if auth == "bearer":
        headers["Authorization"] = f"Bearer {world.teacher_token}"
    elif auth == "other":
        headers["Authorization"] = f"Bearer {world.other_token}"
    elif auth == "garbage":
        headers["Authorization"] = "Bearer not-a-token"
    elif auth == "session":
        with client.session_transaction() as sess:
            sess["facilitator_id"], sess["csrf"] = world.teacher.id, "CSRF-OK"
            # the teacher's current session epoch: an accepted /facilitator/logout ends the last one
            sess["epoch"] = services(world.app).accounts.get(world.teacher.id).session_epoch
        headers["X-CSRF-Token"] = "CSRF-OK"
    return client, headers


def check_http_example(world: World, caplog, request) -> None:
    rule, method, args, query, auth, body = request
    world.fresh()
    path, body = http_path(world, rule, args), resolved(world, body)
    client, headers = http_client(world, auth)
    before = world.snapshot()
    caplog.clear()
    response = client.open(path, method=method, query_string=query, headers=headers, **body)
    where = short((method, path, query, auth, body, response.status_code))
    assert not logged_errors(caplog), (where, logged_errors(caplog))
    assert response.status_code < 500, where
    ANSWERS[("http", rule.rule, str(response.status_code))] += 1
    if response.status_code >= 400:
        if path.startswith("/api/"):
            error = (response.get_json(silent=True) or {}).get("error")
            assert response.is_json and response.get_json().get("ok") is False, (where, short(response.data))
            assert isinstance(error, dict) and set(error) == {"code", "message"} and error["message"], where
            assert error["code"] in API_CODES, where
        assert world.snapshot() == before, f"refused {where} changed the state"
    elif method != "GET":
        world.dirty = True


def http_test(max_examples: int):
    @settings(max_examples=max_examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def run(world, caplog, data):
        check_http_example(world, caplog, data.draw(http_request(world.fresh()), label="request"))
    return run


BODYLESS_POSTS = {"/api/logout"}  # POST routes that read no body at all


def test_a_json_body_nested_too_deep_is_bad_json_not_a_server_error(world, caplog):
    """Found by the slow sweep: `get_json(silent=True)` lets a RecursionError through
    (it only turns ValueError into None), so 5,000 brackets gave HTTP 500."""
    world.fresh()
    before = world.snapshot()
    for rule in routes(world.app):
        if "POST" not in rule.methods:
            continue
        for auth in ("bearer", "session"):
            client, headers = http_client(world, auth)
            path = http_path(world, rule, {arg: Ref("code", "playing") if type(conv).__name__ != "IntegerConverter"
                                           else "1" for arg, conv in rule._converters.items()})
            caplog.clear()
            response = client.post(path, data=b"[" * 5000, content_type="application/json", headers=headers)
            assert response.status_code < 500 and not logged_errors(caplog), (path, response.status_code)
            if path.startswith("/api/"):
                if rule.rule in BODYLESS_POSTS:  # reads no body: it may do its work (log out)
                    continue
                assert response.get_json()["error"]["code"] in API_CODES, path
    assert world.snapshot() == before
    # The logouts did their work: the teacher's sockets were ended. The next example (of
    # whichever test comes next, in a shuffled order too) meets a world rebuilt.
    world.dirty = True


HTTP_EXAMPLES = 200


def test_http_routes_refuse_bad_input_cleanly(world, caplog):
    http_test(budget(world, HTTP_EXAMPLES))(world, caplog)


@pytest.mark.slow
def test_http_routes_refuse_bad_input_cleanly_thousands(world, caplog):
    http_test(budget(world, HTTP_EXAMPLES, slow=True))(world, caplog)
