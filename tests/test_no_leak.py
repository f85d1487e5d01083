"""No viewer is ever sent what it may not know: random games of every game (each
mode it declares, and the test games') played through the table service, checking
every payload exactly as the notifier puts it on the wire.

The engine harness (tests/engines/properties.py) checks each engine's `view`;
this checks what the platform builds around it and sends: the service's
`Outcome.views` (app/realtime/notifier.py `Notifier.publish` emits `Encoded.of(payload)`
to each viewer's room) and the full payloads sent on join, resume and watch
(`TableService.view_for`). For every payload a viewer receives:

* no card id the game hides from that viewer now (the `secret_ids` it declares
  in GameSpec.hidden) appears anywhere in the payload
  (view, actions, log, the table's metadata), nor in any log entry it has
  received so far (as the engine harness checks the log). A card once shown
  face up may keep its id when it goes back into a deck (War's rule sheet, say,
  puts won cards "at the bottom in visible commitment order", which anyone
  watching knows);
* no generator state of the game (any "rng" in the state) nor the table's
  seed appears in it: the future draw order and future dice follow from them;
* the service's view and actions for a seat are the same when everything that
  seat cannot see is permuted (the game's `scramble`: other hands, deck order,
  face-down cards, the generator), and the board's and the facilitator's are
  the same whichever seat's secrets are permuted (DESIGN.md: the board gets
  public information only; the facilitator sees the game's moderation, not
  hands or decks). This is the bot-privacy permutation property of
  tests/engines/properties.py, applied to the service's payload parts.

Every mode each game declares in GameSpec.hidden is played, with the options of
a short game of that mode; the test games under tests/testgames/ too. This file
names no game.

Moves are random legal ones by any seat or the facilitator; computer seats (a
player removed mid-game) and the game's timers are fired through the service
the way the scheduler fires them.
"""
from __future__ import annotations

import json
import os
import random
import re
import shutil
import tempfile
import time

import pytest

from app import engines
from app.engines.contract import strip_label
from app.extensions import services
from app.store.models import GameTable
from app.wire import Encoded, dumps_compact

from conftest import make_app
from engines.properties import (FACILITATOR, BOARD, filled, hidden_modes, json_strings, mode_name,
                                modules_of_test_games, strings_in)

NAMES = ["Ana", "Ben", "Cara", "Dev", "Eli", "Fay"]

# (label, game, options, (secret_ids, scramble)): every mode of every game, as it declares them.
GAMES = [(mode_name(key, hidden), key, dict(hidden.options), (hidden.secret_ids, hidden.scramble))
         for key, hidden in hidden_modes()]
# Per game and mode: games, moves before the facilitator ends the game (so the end path
# is checked too) and how often the permutation check runs; the fast suite's share,
# then CI's slow sweep.
FAST = {"games": 6, "max_steps": 200, "permute_every": 15}
SLOW = {"games": 40, "max_steps": 400, "permute_every": 25}


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    # In memory when the machine has /dev/shm: a move is a commit, and the disk's fsync
    # would cost more than everything checked here.
    where = tempfile.mkdtemp(dir="/dev/shm") if os.path.isdir("/dev/shm") else str(tmp_path_factory.mktemp("leak"))
    app = make_app(tmp_path_factory.mktemp("leakapp"), DATABASE_URL=f"sqlite:///{where}/leak.db",
                   GAME_MODULES=modules_of_test_games())
    services(app).notifier.scheduler.stop()  # this test fires the timers itself
    # A board and a teacher's page watch every table: their views are built on every
    # change (app/service/tables/views.py builds them only for a page that watches),
    # so every change's payload for them is checked too.
    services(app).tables.watched = lambda _code, _viewer: True
    app.config["LEAK_TEACHER"] = services(app).accounts.add("teacher", "correct-horse-1")
    yield app
    services(app).stop()
    shutil.rmtree(where, ignore_errors=True)


def rng_values(state) -> set[str]:
    """The generator states inside a game's state (any value under a key "rng", and a
    War run's opponents' generators), as the digits that would show them."""
    found = set()
    stack = [state]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            for k, v in x.items():
                if k in ("rng", "bots") and not isinstance(v, (dict, str)):
                    for value in (v if isinstance(v, list) else [v]):
                        if isinstance(value, int) and abs(value) >= 10**6:  # short ints would match by chance
                            found.add(str(value))
                stack.append(v)
        elif isinstance(x, list):
            stack.extend(x)
    return found


def test_the_generator_states_of_a_state_are_found():
    """What the check below looks for: every large generator number under "rng" or "bots",
    however deep, an int over 64 bits too; nothing else (floats, strings, a game's own dict)."""
    state = {"rng": 123456789, "run": {"bots": [2**63, 5, -7654321], "rng": {"kept": 424242424}},
             "players": [{"rng": 1234567.5}, {"rng": "9876543210"}, {"note": '"rng":55555555'}],
             "deep": [[{"rng": 10**6}]]}
    assert rng_values(state) == {"123456789", str(2**63), "-7654321", "1000000"}
    assert rng_values({"rng": 2**70, "x": [{"bots": [3, 2**40]}]}) == {str(2**70), str(2**40)}
    assert rng_values({"rng": 12}) == set()


class Wire:
    """What each viewer of one table has received, checked as it arrives."""

    def __init__(self, tables, code, secret_ids, scramble, seed):
        self.tables, self.code = tables, code
        self.secret_ids, self.scramble = secret_ids, scramble
        self.rng = random.Random(f"scramble:{seed}")
        self.seen: dict = {}        # viewer -> every string in the log entries it has received
        self.viewer_of = {}         # the outcome's viewer key -> the engine's viewer
        self.payloads = 0
        self._state_version = None

    def seat_keys(self):
        live = self.tables.live(self.code)
        self.viewer_of = {("seat", x.token_hash): x.index for x in live.seats}
        self.viewer_of.update(board=BOARD, facilitator=FACILITATOR)

    def receive(self, viewer, payload: dict) -> None:
        text = str(Encoded.of(payload))    # exactly the text the notifier emits
        # (a change's payload splices in the view it digested, app/wire.py Built: the same JSON;
        # the same text too, as a rule, which saves parsing both)
        direct = dumps_compact(dict(payload))
        assert text == direct or json.loads(text) == json.loads(direct), viewer
        live = self.tables.live(self.code)
        state = live.state
        where = f"{live.game} table {self.code} v{live.version}: payload for {viewer!r}"
        assert payload["seat"] == (viewer if isinstance(viewer, int) else None), where
        if viewer in (BOARD, FACILITATOR):
            assert payload["view"]["private"] == {}, f"{where} has private data"
        if state is None:
            return
        if self._state_version != live.version:  # what the state hides, worked out once per version
            self._state_version = live.version
            self._rng = rng_values(state) | rng_values({"rng": live.seed})  # the table's seed replays the deal
            self._hidden = {}
        for value in self._rng:
            assert value not in text or not re.search(rf"(?<![0-9]){value}(?![0-9])", text), \
                f"{where} shows the generator state {value}"
        logged = self.seen.setdefault(viewer, set())
        logged |= strings_in(payload["log"])
        if self.secret_ids is not None:
            if viewer not in self._hidden:
                self._hidden[viewer] = ids = set(self.secret_ids(state, viewer))
                assert {type(h) for h in ids} <= {str}, "secret_ids are card ids, strings"
            ids = self._hidden[viewer]
            # Each id as a whole JSON string of the text (a key or a value).
            leaked = ids & json_strings(text)
            assert not leaked, f"{where} shows ids hidden from it: {sorted(leaked)[:5]}"
            leaked = logged & ids
            assert not leaked, f"{where}: its log showed ids hidden from it now: {sorted(leaked)[:5]}"
        self.payloads += 1

    def outcome(self, outcome) -> None:
        if outcome is None:
            return
        self.seat_keys()
        for key, payload in outcome.views:
            self.receive(self.viewer_of[key], payload)

    def full_views(self) -> None:
        """The payloads of join, resume and watch (sent whole, log included)."""
        live = self.tables.live(self.code)
        for viewer in [BOARD, FACILITATOR] + [x.index for x in live.seats if not x.computer]:
            self.receive(viewer, self.tables.view_for(self.code, viewer))

    def check_permuted(self) -> None:
        """The service's view and actions for each viewer do not change when what it
        cannot see is permuted."""
        live = self.tables.live(self.code)
        state = live.state
        if state is None or self.scramble is None:
            return
        seats = [x.index for x in live.seats]
        humans = [x.index for x in live.seats if not x.computer]
        real = {v: self._parts(live, v) for v in humans + [BOARD, FACILITATOR]}
        try:
            for seat in seats:
                live.state = self.scramble(state, seat, self.rng)
                for viewer in ([seat] if seat in humans else []) + [BOARD, FACILITATOR]:
                    assert self._parts(live, viewer) == real[viewer], (
                        f"{live.game} table {self.code} v{live.version}: what {viewer!r} is sent changes "
                        f"when what seat {seat} cannot see is permuted")
        finally:
            live.state = state

    def _parts(self, live, viewer) -> str:
        view, actions, moderation = self.tables.views.viewer_parts(live, viewer)
        return str(Encoded.of([view, actions, moderation]))


def set_seed(tables, code: str, seed: int) -> None:
    """A table's seed is drawn at random; a reproducible game needs a given one."""
    with tables.store.session() as s:
        row = s.get(GameTable, tables.get(code).id)
        row.seed = seed
        s.commit()
    tables.forget(code)


def play_on_the_wire(app, key: str, options: dict, hidden, seed: int, *, max_steps: int = 600,
                     permute_every: int = 10) -> dict:
    tables = services(app).tables
    fac = app.config["LEAK_TEACHER"]
    secret_ids, scramble = hidden
    engine, spec = engines.get(key), engines.spec(key)
    rng = random.Random(f"{key}:{json.dumps(options, sort_keys=True)}:{seed}")
    table = tables.create_table(fac.id, key, options)
    code = table.code
    set_seed(tables, code, rng.getrandbits(62))  # large, like a table's: it must not show anywhere
    lo, hi = spec.seat_range(table.options)
    n = rng.randint(lo, min(hi, 4))
    wire = Wire(tables, code, secret_ids, scramble, seed)
    for i in range(n):
        tables.join(code, NAMES[i])
    wire.seat_keys()
    wire.outcome(tables.act(code, 0, tables.live(code).version, {"type": "start"}))
    wire.full_views()
    # Now and then a player is removed mid-game: the computer plays the seat from then on.
    kick_at = rng.randint(1, 40) if n >= 2 and rng.random() < 0.25 else None
    steps = 0
    while tables.live(code).status == "playing":
        live = tables.live(code)
        state, version = live.state, live.version
        if steps == kick_at:
            wire.outcome(tables.moderate(fac.id, code, version, {"type": "kick", "seat": n - 1}))
            steps += 1
            continue
        if steps >= max_steps:
            wire.outcome(tables.moderate(fac.id, code, version, {"type": "end"}))
            break
        humans = [x.index for x in live.seats if not x.computer]
        moves = [(actor, action) for actor in humans + [FACILITATOR] for action in engine.actions(state, actor)]
        fired = []
        if not moves or rng.random() < 0.15:  # the computer seats' moves and the game's timers
            fired = tables.fire_due(code, now=time.time(), limit=1) or (
                [] if moves else tables.fire_due(code, now=time.time() + 10**7, limit=1))
            for outcome in fired:
                wire.outcome(outcome)
        if not fired:
            assert moves, f"{key} table {code} is stuck at v{version}: nobody can move and no timer is due"
            actor, action = rng.choice(moves)
            action = filled(strip_label(action))
            if actor == FACILITATOR:
                wire.outcome(tables.moderate(fac.id, code, version, action, scope="game"))
            else:
                wire.outcome(tables.act(code, actor, version, action))
        steps += 1
        if steps % permute_every == 0:
            wire.check_permuted()
    wire.check_permuted()
    wire.full_views()
    assert tables.live(code).status == "ended"
    return {"steps": steps, "payloads": wire.payloads}


def cases(games_per_mode: int, first: int = 0):
    return [pytest.param(key, options, hidden, seed, id=f"{label}-{seed}")
            for label, key, options, hidden in GAMES for seed in range(first, first + games_per_mode)]


@pytest.mark.parametrize("key, options, hidden, seed", cases(FAST["games"]))
def test_no_payload_carries_what_its_viewer_may_not_see(app, key, options, hidden, seed):
    played = play_on_the_wire(app, key, options, hidden, seed, max_steps=FAST["max_steps"],
                              permute_every=FAST["permute_every"])
    assert played["steps"] > 0 and played["payloads"] > played["steps"]


@pytest.mark.slow
@pytest.mark.parametrize("key, options, hidden, seed", cases(SLOW["games"], first=FAST["games"]))
def test_no_payload_carries_what_its_viewer_may_not_see_thousands(app, key, options, hidden, seed):
    played = play_on_the_wire(app, key, options, hidden, seed, max_steps=SLOW["max_steps"],
                              permute_every=SLOW["permute_every"])
    assert played["steps"] > 0 and played["payloads"] > played["steps"]
