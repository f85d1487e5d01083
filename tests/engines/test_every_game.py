"""The engine property harness and the bot-privacy property, run on every registered game.

A game registers itself by being a package (app/engines/<key>/, or a package
under tests/testgames/, which the harness registers like the app's GAME_MODULES
setting). Each game declares what its seats may not see (GameSpec.hidden: per
mode, the ids that must never reach another viewer and how to permute everything
a seat cannot see; see app/engines/contract.py Hidden), so every mode of every
game is checked here without this file naming one. A registered game that
declares nothing fails `test_every_registered_game_says_what_it_hides`.
"""
from __future__ import annotations

import json
import random

import pytest

from app import engines
from app.engines.contract import IllegalAction

from .properties import (check_views, dumps, filled, hidden_modes, json_strings, legal_moves, mode_name, play,
                         play_random_game, strings_in)

NAMES = ["Ana", "Ben", "Cara", "Dev", "Eli", "Fay"]
MODES = hidden_modes()


def test_every_registered_game_says_what_it_hides():
    silent = [key for key in engines.keys() if not engines.spec(key).hidden]
    assert not silent, f"say what these games hide (GameSpec.hidden), so they are checked: {silent}"


@pytest.mark.parametrize("key, hidden", [pytest.param(key, hidden, id=mode_name(key, hidden)) for key, hidden in MODES])
@pytest.mark.parametrize("seed", range(3))
def test_random_games_keep_the_contract_and_bots_see_only_their_seat(key, hidden, seed):
    engine = engines.get(key)
    options = dict(hidden.options)
    lo, hi = engine.GAME.seat_range(options)   # the seats a table with these options takes
    for n in range(lo, hi + 1):
        played = play_random_game(engine, seats=NAMES[:n], seed=1000 * seed + n, options=options,
                                  secret_ids=hidden.secret_ids, scramble=hidden.scramble, full_every=7,
                                  max_steps=5_000)
        assert engine.result(played.state) is not None and played.steps > 0


@pytest.mark.parametrize("key, hidden", [pytest.param(key, hidden, id=mode_name(key, hidden)) for key, hidden in MODES])
def test_the_lesson_clock_and_the_time_limit_end_every_game_by_its_tie_break(key, hidden):
    """`finish(state, "lesson_clock")` (app/service/tables/lesson.py) ends a game in progress:
    a ranking (and winners, with more than one seat), a reason that names the lesson clock,
    and the game's `<key>.lesson_clock` ruling logged, as its catalogue states it. The input
    is left as it was; an unknown cause is refused; the teacher's End logs no such ruling.
    `finish(state, "time_limit")` (the platform stopped a teacher-less game that ran too
    long) ends it by the same tie-break as the teacher's End and says so, naming no teacher."""
    engine = engines.get(key)
    options = dict(hidden.options)
    n = engine.GAME.seat_range(options)[0]
    chooser = random.Random(key)
    state = engine.new(options, NAMES[:n], 7)
    for _ in range(30):  # part of the way into the game
        moves = legal_moves(engine, state, n, exclude=("finish",))
        if not moves:
            break
        actor, action = chooser.choice(moves)
        after, _log = play(engine, state, actor, filled(action))
        if engine.result(after) is not None:
            break
        state = after
    before = json.dumps(state, sort_keys=True)
    ended, log = engine.finish(state, "lesson_clock")
    assert json.dumps(state, sort_keys=True) == before, "finish() changed its input"
    result = engine.result(ended)
    assert result["ranking"] and "lesson clock" in result["reason"].replace("_", " ")
    if n > 1:
        assert result["winners"], "the lesson clock must leave a winner"
    catalogue = {r["id"]: r for r in engine.GAME.rulings}
    clock = [e for e in log if e.get("t") == "ruling" and e.get("id") == f"{key}.lesson_clock"]
    assert clock and clock[0]["text"] == catalogue[f"{key}.lesson_clock"]["text"]
    assert all(engine.actions(ended, viewer) == [] for viewer in list(range(n)) + ["facilitator"])
    with pytest.raises(IllegalAction) as refused:
        engine.finish(state, "bored")
    assert refused.value.code == "bad_request"
    _state, teacher_log = engine.finish(state)
    assert not any(e.get("id") == f"{key}.lesson_clock" for e in teacher_log)
    # The platform's time limit (a teacher-less demo ran too long, app/service/demo.py): the
    # same end by the tie-break, said truthfully: no teacher, no lesson clock, no ruling.
    stopped, stop_log = engine.finish(state, "time_limit")
    assert json.dumps(state, sort_keys=True) == before, "finish() changed its input"
    stop_result = engine.result(stopped)
    assert stop_result["ranking"] and "too long" in stop_result["reason"].replace("_", " ")
    assert "teacher" not in stop_result["reason"] and "lesson" not in stop_result["reason"]
    if n > 1:
        assert stop_result["winners"], "a game stopped for its time limit still has a winner"
    stop_text = " ".join(e.get("text", "") for e in stop_log if e.get("t") != "ruling")
    assert "ran too long" in stop_text and "teacher" not in stop_text.lower() and "lesson" not in stop_text.lower()
    assert not any(e.get("t") == "ruling" and e.get("id", "").endswith((".lesson_clock", ".facilitator_end"))
                   for e in stop_log)
    assert all(engine.actions(stopped, viewer) == [] for viewer in list(range(n)) + ["facilitator"])
    # ...by the same tie-break as the teacher's End
    assert stop_result["winners"] == engine.result(_state)["winners"]
    assert stop_result["ranking"] == engine.result(_state)["ranking"]


SECRET_MODES = [pytest.param(key, hidden, id=mode_name(key, hidden)) for key, hidden in MODES if hidden.secret_ids]


@pytest.mark.parametrize("key, hidden", SECRET_MODES)
@pytest.mark.parametrize("beside", ["", 'the "quoted" word\n'])
def test_the_view_check_finds_a_secret_id_shown_to_a_seat(key, hidden, beside):
    """The harness's privacy check can fail: a view that shows seat 0 one of the ids hidden
    from it is caught, whether the view's text has no escape (its strings read between the
    quotes) or has one (the text parsed)."""
    engine = engines.get(key)
    options = dict(hidden.options)
    n = engine.GAME.seat_range(options)[0]
    for seed in range(20):  # a random move or two to a state that hides something from seat 0
        state, chooser = engine.new(options, NAMES[:n], seed), random.Random(seed)
        while not hidden.secret_ids(state, 0) and engine.result(state) is None:  # a run: its match not dealt
            actor, action = chooser.choice(legal_moves(engine, state, n, ("finish",)))
            state, _entries = play(engine, state, actor, filled(action))
        if hidden.secret_ids(state, 0):
            break
    secret = sorted(hidden.secret_ids(state, 0))[0]

    class Leaky:
        @staticmethod
        def view(s, viewer):
            seen = engine.view(s, viewer)
            return dict(seen, public=dict(seen["public"], leak=[beside, secret]))

    with pytest.raises(AssertionError, match="shows secret ids"):
        check_views(Leaky, state, n, hidden.secret_ids)
    check_views(engine, state, n, hidden.secret_ids)  # the game's own view passes


@pytest.mark.parametrize("value", [{"a": ["k1", "x y", {"é": "z"}], "n": [1, 2.5, None]},
                                   {"a": ['q"z', "back\\slash", "line\nbreak"], "k1": True}, [], "k1"])
def test_the_strings_of_a_json_text_are_the_strings_of_its_value(value):
    assert json_strings(dumps(value)) == strings_in(value)
