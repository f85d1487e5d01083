"""War's controls beyond the battle (app/engines/war/control.py): P or Escape
holds a seat's own play (`hold`, `resume`), and R twice restarts (`restart`).

Alone with the computers (every other seat a computer, as the platform tells
War through GameSpec.computer_options) a hold pauses the whole match: the
computers get no actions and the match clock is listed as held, so the
platform stops it with the time it had left. At a table with another person a
hold pauses only the seat's own play, and a restart is refused."""
from __future__ import annotations

import random

import pytest

from app.engines import war
from app.engines.contract import IllegalAction, strip_label
from app.engines.war import control
from app.engines.war import engine as E

from .test_war_rules import LISTED_REVEAL, NAMES, REVEAL, act, plain, rig, ruling_ids, texts

HOLD, RESUME, RESTART = {"type": "hold"}, {"type": "resume"}, {"type": "restart"}
AUTO = [{"type": "autoplay", "speed": s} for s in (1, 2, 4)]


def with_computers(state: dict, computers=(1,)) -> dict:
    """The same rigged game, as the platform starts it with these computer seats."""
    options = war.GAME.computer_options(dict(state["options"]), list(computers))
    decks = [[state["faces"][c] for c in deck] for deck in state["decks"]]
    return E.new_with_decks(options, list(state["names"]), decks, state["rng"])


def refused(code: str, state: dict, actor, action) -> str:
    with pytest.raises(IllegalAction) as err:
        war.apply(state, actor, action)
    assert err.value.code == code, err.value.message
    return err.value.message


def bot_move(state: dict, seat: int):
    choice = war.bot(war.view(state, seat), war.actions(state, seat), random.Random(0))
    return None if choice is None else strip_label(choice)


# --------------------------------------------------------------------------
# Computer seats

def test_the_platform_tells_war_its_computer_seats_and_nothing_else_changes():
    assert war.GAME.computer_options({"mode": "classic"}, []) == {"mode": "classic"}
    assert war.GAME.computer_options({"mode": "classic"}, [1, 2]) == {"mode": "classic", "computer_seats": [1, 2]}
    plain_game = war.new({"mode": "classic"}, NAMES[:3], 5)
    solo = war.new(war.GAME.computer_options({"mode": "classic"}, [2, 1]), NAMES[:3], 5)
    assert solo["computers"] == [1, 2] and solo["options"] == plain_game["options"]
    assert {k: v for k, v in solo.items() if k != "computers"} == plain_game
    assert "computers" not in plain_game and "held" not in plain_game and "restarts" not in plain_game
    with pytest.raises(IllegalAction):   # the key is the platform's, never a form's
        war.new({"mode": "classic", "computer_seats": "1"}, NAMES[:2], 5)


def test_alone_means_every_other_seat_is_a_computer():
    three = war.new(war.GAME.computer_options({}, [1, 2]), NAMES[:3], 1)
    assert control.alone(three, 0) and not control.alone(three, 1)
    partly = war.new(war.GAME.computer_options({}, [2]), NAMES[:3], 1)
    assert not any(control.alone(partly, p) for p in range(3))


# --------------------------------------------------------------------------
# Holding at a table with another person

def test_a_hold_at_a_table_of_people_pauses_only_your_own_play():
    state, _ = act(rig("Q 3", "5 4"), (0, {"type": "autoplay", "speed": 2}))
    before = state
    assert plain(war.actions(state, 0))[-1] == HOLD and war.actions(state, 0)[-1]["label"] == "Pause your play"
    state, log = act(state, (0, HOLD))
    assert texts(log) == ["Ana pauses their play."] and ruling_ids(log) == []
    assert state["autoplay"] == [0, 0] and state["held"] == [{"seat": 0, "speed": 2}]
    assert war.timers(state) == []                       # no auto-play reveal owed by Ana
    assert plain(war.actions(state, 0)) == [RESUME]      # no restart: Ben is a person
    assert war.actions(state, 0)[0]["label"] == "Resume your play"
    assert refused("illegal", state, 0, REVEAL).startswith("Your play is paused")
    assert refused("illegal", state, 0, {"type": "autoplay", "speed": 1}).startswith("Your play is paused")
    assert refused("illegal", state, 0, HOLD) == "Your play is already paused."
    # Ben plays on as usual; the battle waits for Ana, as it would anyway.
    assert plain(war.actions(state, 1)) == [LISTED_REVEAL] + AUTO + [HOLD]
    state, _ = act(state, 1)
    view = war.view(state, 0)
    assert view["private"]["held"] and view["private"]["held_speed"] == 2 and not view["private"]["alone"]
    assert view["prompt"] == {"waiting_for": [0], "text": "Your play is paused. Tap Resume or press P to play on."}
    assert war.view(state, "board")["public"]["hold"] == {"seats": [0], "match": False}
    assert war.view(state, 1)["prompt"]["text"] == "Waiting for Ana to reveal"
    state, log = act(state, (0, RESUME))
    assert texts(log) == ["Ana plays on (auto-play at speed 2)."]
    assert state["autoplay"] == [2, 0] and "held" not in state
    assert refused("illegal", state, 0, RESUME) == "Your play is not paused."
    assert [t["key"] for t in war.timers(state)] == ["auto:0:1:0:2"]   # auto-play reveals again


def test_hold_then_resume_leaves_the_state_as_it_was():
    state, _ = act(rig("Q 3", "5 4"), (1, {"type": "autoplay", "speed": 4}))
    again, _ = act(state, (1, HOLD), (1, RESUME))
    assert again == state


def test_a_timed_match_clock_runs_on_while_someone_at_a_table_of_people_holds():
    state, _ = act(rig("Q 3", "5 4", length="3_minutes"), (0, HOLD))
    assert war.timers(state) == [{"key": "clock:180", "after": 180, "actor": "system",
                                  "action": {"type": "time_up"}}]


def test_a_restart_is_refused_at_a_table_with_another_person():
    state = rig("Q 3", "5 4", "2 6")
    solo_but_one = with_computers(state, computers=(2,))   # Ben is a person
    for s in (state, solo_but_one):
        assert RESTART not in plain(war.actions(s, 0))
        assert "restart" in refused("illegal", s, 0, RESTART)


# --------------------------------------------------------------------------
# Holding alone with the computers: the match stands still

def test_alone_with_a_computer_a_hold_pauses_the_match_and_its_clock():
    state = with_computers(rig("Q 3 7", "5 4 8", length="5_minutes"))
    clock = {"key": "clock:300", "after": 300, "actor": "system", "action": {"type": "time_up"}}
    assert war.timers(state) == [clock]
    assert plain(war.actions(state, 0)) == [LISTED_REVEAL] + AUTO + [HOLD, RESTART]
    assert war.actions(state, 0)[-2]["label"] == "Pause the game"
    state, _ = act(state, (0, {"type": "autoplay", "speed": 1}))
    state, log = act(state, (0, HOLD))
    assert texts(log)[0] == "Ana pauses the game." and ruling_ids(log) == ["war.hold"]
    # The clock: listed under the same key, held (the platform keeps the time left).
    assert war.timers(state) == [dict(clock, held=True)]
    # The computer gets nothing to do, and the game waits for Ana alone.
    assert war.actions(state, 1) == [] and bot_move(state, 1) is None
    assert refused("not_your_turn", state, 1, REVEAL) == "The game is paused."
    board = war.view(state, "board")
    assert board["prompt"] == {"waiting_for": [0], "text": "Ana paused the game."}
    assert board["public"]["hold"] == {"seats": [0], "match": True}
    assert board["public"]["length"]["clock_key"] == "clock:300"
    mine = war.view(state, 0)
    assert mine["prompt"]["text"] == "The game is paused. Tap Resume or press P to play on."
    assert mine["private"]["alone"] and plain(war.actions(state, 0)) == [RESUME, RESTART]
    assert war.actions(state, 0)[0]["label"] == "Resume the game"
    # Resuming: the clock runs on under the same key, the computer plays again.
    state, log = act(state, (0, RESUME))
    assert texts(log) == ["Ana plays on (auto-play at speed 1)."]
    assert war.timers(state)[0] == clock and bot_move(state, 1) == LISTED_REVEAL
    assert war.view(state, "board")["prompt"]["waiting_for"] == [0, 1]
    _, log = act(state, (0, HOLD))
    assert texts(log) == ["Ana pauses the game."] and ruling_ids(log) == []   # the ruling is flagged once


def test_computers_wait_while_held_even_in_the_middle_of_a_war():
    state = with_computers(rig("T 2 3 4 K 9", "T 5 6 7 8 9", "4 J"), computers=(1, 2))
    state, _ = act(state, 1, 0, 2)                   # a war between Ana and Ben
    assert state["stage"] == 1
    state, _ = act(state, (0, HOLD))
    for seat in (1, 2):
        assert war.actions(state, seat) == [] and bot_move(state, seat) is None
    state, _ = act(state, (0, RESUME), 1, 0)
    assert state["battle"] == 2 and state["last"]["winner"] == 0   # the war resolved as usual (K beats 8)


def test_a_hold_by_a_player_who_is_out_is_not_offered_but_a_restart_is():
    state = with_computers(rig("2", "A 5", "3 K"), computers=(1, 2))
    state, _ = act(state, 0, 1, 2)
    assert control.holding(state, 0) is None and E.is_out(state, 0)
    assert plain(war.actions(state, 0)) == [RESTART]
    assert refused("illegal", state, 0, HOLD) == "You are out of the game."


# --------------------------------------------------------------------------
# Restarting

def test_a_restart_deals_afresh_to_the_same_players_with_the_same_options():
    state = with_computers(war.new({"mode": "classic", "length": "3_minutes"}, NAMES[:2], 42))
    state, _ = act(state, 0, 1, 0, 1, (0, {"type": "autoplay", "speed": 4}), (0, HOLD))
    fresh, log = act(state, (0, RESTART))
    assert texts(log)[0] == "Ana restarts the game: the cards are shuffled and dealt again."
    assert ruling_ids(log) == ["war.restart"]
    seed = next(e for e in log if e["t"] == "ruling")["seed"]
    # Exactly a new game with a seed drawn from the game's own Rng, the computers kept.
    expected = war.new(war.GAME.computer_options(dict(state["options"]), [1]), NAMES[:2], seed)
    assert {k: v for k, v in fresh.items() if k != "restarts"} == expected and fresh["restarts"] == 1
    assert fresh["battle"] == 1 and fresh["autoplay"] == [0, 0] and "held" not in fresh
    assert fresh["faces"] != state["faces"]
    # A fresh deal gets a fresh clock (a new key: the platform starts it from the full time).
    assert war.timers(fresh)[0]["key"] == "clock:180:r1" and war.timers(fresh)[0]["after"] == 180
    assert war.view(fresh, 0)["public"]["length"]["clock_key"] == "clock:180:r1"
    again, _ = act(fresh, (0, RESTART))
    assert again["restarts"] == 2 and war.timers(again)[0]["key"] == "clock:180:r2"
    # The same moves give the same game (replay): the restart is deterministic.
    assert act(state, (0, RESTART))[0] == fresh


def test_only_a_player_may_restart_and_not_once_the_game_is_over():
    state = with_computers(rig("A", "2"))
    assert refused("forbidden", state, "facilitator", RESTART)
    assert refused("forbidden", state, "board", RESTART)
    over, _ = act(state, 0, 1)
    assert war.result(over) is not None and war.actions(over, 0) == []
    assert refused("game_over", over, 0, RESTART)


def test_controls_reject_extra_fields():
    state = with_computers(rig("Q 3", "5 4"))
    for action in ({"type": "hold", "speed": 1}, {"type": "restart", "seed": 3}, {"type": "resume", "x": 0}):
        assert refused("illegal", state, 0, action) == "That move has the wrong details."


def test_new_log_kinds_are_known():
    assert {"hold", "resume", "restart"} <= set(E.LOG_KINDS)
    ids = {r["id"] for r in war.GAME.rulings}
    assert {"war.hold", "war.restart"} <= ids
    assert {"hold", "resume", "restart"} <= war.GAME.order_free


def test_a_computer_that_takes_over_a_paused_seat_plays_on():
    """The teacher removes a player who had paused: the computer now in that seat resumes."""
    state, _ = act(rig("Q 3", "5 4"), (0, HOLD))
    assert bot_move(state, 0) == RESUME
    state, _ = act(state, (0, RESUME))
    assert bot_move(state, 0) == LISTED_REVEAL
    alone, _ = act(with_computers(rig("Q 3", "5 4")), (0, HOLD))
    assert bot_move(alone, 0) == RESUME            # never the restart
