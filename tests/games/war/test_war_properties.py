"""Hundreds of seeded random War games, checked with the generic properties.

Three kinds of game keep this fast but thorough:
* short games where every move is on offer (the facilitator may `finish` the
  game and seats toggle auto-play), checked completely on every step;
* full games of reveals only, played to the end (knock-outs, wars, wars in
  wars), with cheap checks every step and the complete set every few steps;
* a few games tapped always in seat order, as bots do: such games can loop,
  which exercises the repeat shuffle and sudden death;
* full games at every match length (first to 30/40/45 cards or 25/50/100
  points, and the 3/5/10-minute clock firing `time_up` at a random moment).
The bot-privacy property runs on the full checks of all of them and on many
states sampled from further random games.
"""
from __future__ import annotations

import random
from collections import Counter
from types import SimpleNamespace

import pytest

from app.engines import war
from app.engines.war import engine as E
from app.engines.war.hidden import match_scramble as scramble
from app.engines.war.hidden import match_secret_ids as secret_ids

from app.engines.contract import strip_label

from engines.properties import FINISH, check_bot_choice, check_bot_privacy, play_random_game

NAMES = ["Ana", "Ben", "Cara", "Dev", "Eli", "Fay"]


def cards_conserved(state: dict) -> None:
    held = [cid for deck in state["decks"] for cid in deck] + [item["id"] for item in state["pot"]]
    assert len(held) == 52, f"{len(held)} cards in play instead of 52"
    assert set(held) == set(state["faces"]), "a card is missing or duplicated"


def check_result(state: dict, n: int) -> dict:
    res = war.result(state)
    assert state["status"] == "ended" and res is not None
    assert sorted(res["ranking"]) == list(range(n)), "every seat must be ranked once"
    assert res["winners"] and res["winners"] == res["ranking"][:len(res["winners"])]
    kind, target = E.LENGTHS[state["options"]["length"]]
    if kind == "points":
        assert res["scores"] == state["points"]
    else:
        assert res["scores"] == [len(d) for d in state["decks"]]
    assert res["reason"] in {"elimination", "sudden_death", "ended_by_facilitator",
                             "simultaneous_elimination", "cards_target", "points_target", "time_up"}
    assert res["reason"] != "time_up" or kind == "minutes"
    if res["reason"] in ("cards_target", "points_target"):
        reached = [len(d) if kind == "cards" else pts for d, pts in zip(state["decks"], state["points"])]
        assert [p for p in range(n) if reached[p] >= target] == res["winners"], "the target's winner"
        assert res["reason"] == f"{kind}_target"
    elif kind in ("cards", "points") and res["reason"] == "sudden_death":
        assert not any(len(d) >= target if kind == "cards" else pts >= target
                       for d, pts in zip(state["decks"], state["points"])), "a target reached but missed"
    return res


def play(seed: int, n: int, length: str = "full_elimination", engine=war, **kwargs):
    return play_random_game(engine, seats=NAMES[:n], seed=seed, options={"mode": "classic", "length": length},
                            secret_ids=secret_ids, invariant=cards_conserved, scramble=scramble, **kwargs)


@pytest.mark.parametrize("n", range(2, 7))
def test_short_games_with_every_move_fully_checked(n):
    reasons = Counter()
    for seed in range(25):
        played = play(1000 * n + seed, n, full_every=1, max_steps=2_000)
        reasons[check_result(played.state, n)["reason"]] += 1
    assert reasons["ended_by_facilitator"] > 0


# Two and three seats in the fast suite; the longer games of four to six in CI.
@pytest.mark.parametrize("n", [2, 3] + [pytest.param(n, marks=pytest.mark.slow) for n in (4, 5, 6)])
def test_full_games_of_reveals_end_properly(n):
    kinds = Counter()
    reasons = Counter()
    for seed in range(8):
        # A battle takes at most one reveal per seat and war stage; sudden death
        # caps a game at 5,020 battles.
        played = play(seed * 7 + n, n, exclude=("finish", "autoplay"), full_every=211,
                      max_steps=5_020 * n * 8)
        res = check_result(played.state, n)
        reasons[res["reason"]] += 1
        kinds.update(entry["t"] for entry in played.log)
        kinds.update(entry["id"] for entry in played.log if entry["t"] == "ruling")
    # The random games really do reach wars and knock-outs, not just plain battles.
    assert kinds["tie"] > 0 and kinds["war"] > 0 and kinds["out"] >= 8 * (n - 1)
    assert kinds["war.commitment_order_is_tap_order"] == 8
    assert reasons["elimination"] + reasons["simultaneous_elimination"] + reasons["sudden_death"] == 8
    # Every log kind is one the package declares (a debrief filters on them).
    assert {k for k in kinds if not k.startswith("war.")} <= set(E.LOG_KINDS)


def lowest_seat_first(moves, rng):
    return min(moves, key=lambda move: move[0])


def test_games_in_seat_order_reach_the_stalemate_backstops():
    # These (seats, seed) pairs loop when tapped in seat order: the first
    # repeat shuffles, and in the 3-seat game a second repeat starts sudden death.
    seen = Counter()
    loops = []
    for n, seed in [(2, 7), (3, 6), (4, 20)]:
        played = play(seed, n, exclude=("finish", "autoplay", "hold", "resume"), full_every=307,
                      max_steps=5_020 * n * 8, choose=lowest_seat_first)
        state = played.state
        res = check_result(state, n)
        seen.update(entry["id"] for entry in played.log if entry["t"] == "ruling")
        loops += [entry["loop"] for entry in played.log if entry.get("id") == "war.repeat_detection"]
        if res["reason"] == "sudden_death":
            assert state["battle"] == state["sudden"]["first_battle"] + 19
    assert seen["war.repeat_shuffle"] == 3
    assert seen["war.sudden_death"] == 2       # its start and its end
    assert loops == [52, 52, 52, 52]


def sample_states(n: int, seed: int, every: int, max_steps: int) -> list[dict]:
    """States from one random game (any seat's move, auto-play included), one
    every `every` steps, and the last."""
    rng = random.Random(seed)
    state = war.new({"mode": "classic"}, NAMES[:n], seed)
    states = []
    for step in range(max_steps):
        if war.result(state) is not None:
            break
        if step % every == 0:
            states.append(state)
        moves = [(p, a) for p in range(n) for a in war.actions(state, p)]
        reveals = [m for m in moves if m[1]["type"] == "reveal"]
        actor, action = rng.choice(reveals if reveals and rng.random() < 0.9 else moves)
        state, _ = war.apply(state, actor, strip_label(action))
    return states + [state]


def test_the_bot_sees_only_its_own_seat():
    # Many states from random games, every seat, several bot seeds and scrambles.
    checked = Counter()
    for n in range(2, 7):
        for seed in range(3):
            for state in sample_states(n, 500 + 10 * n + seed, every=7, max_steps=40 * 7):
                for seat in range(n):
                    check_bot_privacy(war, state, seat, scramble, tries=2, seeds=range(3))
                    checked[check_bot_choice(war, state, seat) is not None] += 1
    assert checked[True] > 300 and checked[False] > 300


def test_scramble_really_moves_hidden_cards():
    state = war.new({"mode": "classic"}, NAMES[:3], 9)
    other = scramble(state, 0, random.Random(1))
    assert other["decks"][1:] != state["decks"][1:] and other["rng"] != state["rng"]
    assert sorted(other["decks"][0]) == sorted(state["decks"][0])
    assert [len(d) for d in other["decks"]] == [len(d) for d in state["decks"]]


# --------------------------------------------------------------------------
# Match lengths

# War as the harness sees it in a timed match: the teacher's `finish` is
# replaced by the match clock firing (the platform's scheduled `time_up`), so
# the harness fires it at a random moment and checks, replays and refuses it
# after the end like any other ending.
CLOCKED = SimpleNamespace(**{**{name: getattr(war, name) for name in war.__all__},
                            "finish": lambda state: war.apply(state, "system", {"type": "time_up"})})


def now_and_then(chance: float):
    """Mostly random reveals; the clock (FINISH) fires with this chance per step."""
    def choose(moves, rng):
        clock = [m for m in moves if m[1] == FINISH]
        others = [m for m in moves if m[1] != FINISH]
        return clock[0] if clock and rng.random() < chance else rng.choice(others)
    return choose


TIMED = [length for length, (kind, _) in E.LENGTHS.items() if kind == "minutes"]
TARGETS = [length for length, (kind, _) in E.LENGTHS.items() if kind in ("cards", "points")]
LENGTH_CASES = [pytest.param(length, n, seed, marks=[pytest.mark.slow] if seed >= 2 else [])
                for length in TARGETS + TIMED for n in (2, 3, 5) for seed in range(4)]


@pytest.mark.parametrize("length, n, seed", LENGTH_CASES)
def test_full_games_at_every_length_end_properly(length, n, seed):
    kind, target = E.LENGTHS[length]
    timed = kind == "minutes"
    played = play(seed * 13 + n, n, length, engine=CLOCKED if timed else war,
                  exclude=("autoplay",) if timed else ("finish", "autoplay"),
                  choose=now_and_then(1 / 150) if timed else None,
                  full_every=97, max_steps=5_020 * n * 8)
    res = check_result(played.state, n)
    ids = [entry["id"] for entry in played.log if entry["t"] == "ruling"]
    if res["reason"] in ("cards_target", "points_target", "time_up"):
        assert ids[-1] == {"cards": "war.cards_target", "points": "war.points_target",
                           "minutes": "war.time_up"}[kind]
    if timed:
        assert all(t["key"] == f"clock:{target * 60}" for t in war.timers(war.new(
            {"length": length}, NAMES[:n], seed)))
    assert {entry["t"] for entry in played.log} <= set(E.LOG_KINDS)


@pytest.mark.parametrize("length", TARGETS + TIMED)
def test_every_length_is_decided_by_its_own_rule_in_most_games(length):
    kind, _ = E.LENGTHS[length]
    reasons = Counter()
    for seed in range(6):
        n = 2 + seed % 3
        played = play(seed, n, length, engine=CLOCKED if kind == "minutes" else war,
                      exclude=("autoplay",) if kind == "minutes" else ("finish", "autoplay"),
                      choose=now_and_then(1 / 40) if kind == "minutes" else None,
                      full_every=1_000, max_steps=5_020 * n * 8)
        reasons[check_result(played.state, n)["reason"]] += 1
    own = {"cards": "cards_target", "points": "points_target", "minutes": "time_up"}[kind]
    assert reasons[own] >= 3, reasons
