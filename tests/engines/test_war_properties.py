"""Hundreds of seeded random War games, checked with the generic properties.

Two kinds of game keep this fast but thorough:
* short games where every action type is on offer (the facilitator may end
  the game and seats toggle auto-play), checked completely on every step;
* full games of reveals only, played to the end (knock-outs, wars, wars in
  wars), with cheap checks every step and the complete set every few steps;
* a few games tapped always in seat order, as bots do: such games can loop,
  which exercises the repeat shuffle and sudden death.
"""
from __future__ import annotations

from collections import Counter

import pytest

from app.engines import war

from .properties import play_random_game

NAMES = ["Ana", "Ben", "Cara", "Dev", "Eli", "Fay"]


def secret_ids(state: dict, viewer) -> set:
    """Nobody may see the id of a card in any deck or face down in the pot."""
    hidden = {cid for deck in state["decks"] for cid in deck}
    hidden.update(item["id"] for item in state["pot"] if item["down"])
    return hidden


def cards_conserved(state: dict) -> None:
    held = [cid for deck in state["decks"] for cid in deck] + [item["id"] for item in state["pot"]]
    assert len(held) == 52, f"{len(held)} cards in play instead of 52"
    assert set(held) == set(state["faces"]), "a card is missing or duplicated"


def check_result(state: dict, n: int) -> dict:
    res = war.result(state)
    assert state["status"] == "ended" and res is not None
    assert sorted(res["ranking"]) == list(range(n)), "every seat must be ranked once"
    assert res["winners"] and res["winners"] == res["ranking"][:len(res["winners"])]
    assert res["scores"] == [len(d) for d in state["decks"]]
    assert res["reason"] in {"elimination", "sudden_death", "ended_by_facilitator",
                             "simultaneous_elimination"}
    return res


def play(seed: int, n: int, **kwargs):
    return play_random_game(war, seats=NAMES[:n], seed=seed, options={"mode": "classic"},
                            secret_ids=secret_ids, invariant=cards_conserved, **kwargs)


@pytest.mark.parametrize("n", range(2, 7))
def test_short_games_with_every_action_fully_checked(n):
    for seed in range(40):
        played = play(1000 * n + seed, n, full_every=1, max_steps=2_000)
        check_result(played.state, n)


@pytest.mark.parametrize("n", range(2, 7))
def test_full_games_of_reveals_end_properly(n):
    kinds = Counter()
    reasons = Counter()
    for seed in range(8):
        # A battle takes at most one reveal per seat and war stage; sudden death
        # caps a game at 5,020 battles.
        played = play(seed * 7 + n, n, exclude=("end", "autoplay"), full_every=97,
                      max_steps=5_020 * n * 8)
        res = check_result(played.state, n)
        reasons[res["reason"]] += 1
        kinds.update(entry["t"] for entry in played.log)
        kinds.update(entry["id"] for entry in played.log if entry["t"] == "ruling")
    # The random games really do reach wars and knock-outs, not just plain battles.
    assert kinds["tie"] > 0 and kinds["war"] > 0 and kinds["out"] >= 8 * (n - 1)
    assert kinds["war.commitment_order_is_tap_order"] == 8
    assert reasons["elimination"] + reasons["simultaneous_elimination"] + reasons["sudden_death"] == 8


def lowest_seat_first(moves, rng):
    return min(moves, key=lambda move: move[0])


def test_games_in_seat_order_reach_the_stalemate_backstops():
    # These (seats, seed) pairs loop when tapped in seat order: the first
    # repeat shuffles, and in the 4-seat game a second repeat starts sudden death.
    seen = Counter()
    for n, seed in [(2, 7), (3, 24), (4, 20)]:
        played = play(seed, n, exclude=("end", "autoplay"), full_every=211,
                      max_steps=5_020 * n * 8, choose=lowest_seat_first)
        state = played.state
        res = check_result(state, n)
        seen.update(entry["id"] for entry in played.log if entry["t"] == "ruling")
        if res["reason"] == "sudden_death":
            assert state["battle"] == state["sudden"]["first_battle"] + 19
    assert seen["war.repeat_shuffle"] == 3
    assert seen["war.sudden_death"] == 2       # its start and its end
