"""How strong each computer level is, measured: per game and level, the win rate of
one computer player at that level against a random legal player, and against the
next level down, over seeded two-seat games (500 by default). Run from the
repository root:

    python bench/computer_strength.py                  every game, 500 games a pairing
    python bench/computer_strength.py --games 50       a quick run
    python bench/computer_strength.py water_cycle      one game
    python bench/computer_strength.py war --setup "Wager Battle"   one of a game's set-ups

A teacher reads "easy", "standard", "hard" on the table page: this says what they
mean. Every computer move goes through the engine's own bot interface, `bot(view,
actions, rng)`, with that seat's view only (app/engines/contract.py). The engines
read the level from the table's options as shown in the view, so a seat plays at
its own level by being shown its level there (`as_level`): the one place a bench
changes a view, and only the knob that a table would set.

Seats alternate between the two players game by game (seat 0 often moves first),
a shared win counts half, and a game still running after 5,000 actions (the
teacher would end it) counts as a draw. Each rate is printed with its sample size
and its 95 % Wilson interval (about ±4.4 points at 500 games). The aim (issue 20
item 9): every level beats a random legal player, and each level beats the one
below it by more than 55 %; a line that misses says so.
"""
from __future__ import annotations

import copy
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout's app

from app import engines  # noqa: E402
from app.engines.contract import IllegalAction, strip_label  # noqa: E402

MOVES = 5_000
RANDOM = "random"
WORDS = "The water goes back into the river, so the town can use it again."

# What each game is measured with: War's Classic mode leaves a computer no choice
# (every battle is the luck of the deal), so War is measured where its levels
# play: Power War and Wager Battle, to 40 cards so a game ends in a lesson.
SETUPS = {
    "water_cycle": [("default", {})],
    "wizard": [("default", {"opponent": "computer"})],
    "storm_war": [("default", {})],
    "war": [("Power War", {"mode": "power", "length": "first_to_40_cards"}),
            ("Wager Battle", {"mode": "wager", "length": "first_to_40_cards"})],
}


def as_level(view: dict, level: str) -> dict:
    """The seat's own view, showing its level where the engines read it: the table's
    options, and War's Power and Wager panels."""
    seen = copy.deepcopy(view)
    public = seen["public"]
    if isinstance(public.get("options"), dict) and "computer_level" in public["options"]:
        public["options"]["computer_level"] = level
    if isinstance(public.get("powers"), dict) and "computer_level" in public["powers"]:
        public["powers"]["computer_level"] = level
    if isinstance(public.get("wager"), dict) and "level" in public["wager"]:
        public["wager"]["level"] = level
    return seen


def random_move(engine, state: dict, seat, listed: list[dict], rng: random.Random) -> dict:
    """A random legal move: a listed action, its free text filled in (an empty
    explanation is refused), tried until the engine accepts one."""
    order = list(listed)
    rng.shuffle(order)
    for action in order:
        action = {k: (WORDS if v == "" else v) for k, v in strip_label(action).items()}
        try:
            engine.apply(state, seat, action)
        except IllegalAction:
            continue
        return action
    raise AssertionError(f"no listed action is legal for seat {seat}")


def play(engine, options: dict, players: tuple[str, str], seed: int) -> float | None:
    """One game, players[0] in seat 0; the share of the win seat 0 took (None: unfinished)."""
    state = engine.new(options, ["A", "B"], seed)
    rng = random.Random(seed)
    for _ in range(MOVES):
        result = engine.result(state)
        if result:
            winners = result["winners"]
            return (1 / len(winners)) if 0 in winners else 0.0
        waiting = engine.view(state, "board")["prompt"]["waiting_for"]
        if not waiting:   # the teacher's decision (a Crisis review): accept, the same for both
            actor, action = "facilitator", strip_label(engine.actions(state, "facilitator")[0])
        else:
            actor = waiting[0]
            listed = engine.actions(state, actor)
            who = players[actor]
            if who == RANDOM:
                action = random_move(engine, state, actor, listed, rng)
            else:
                action = strip_label(engine.bot(as_level(engine.view(state, actor), who), listed, rng))
        state, _ = engine.apply(state, actor, action)
    return None


def win_rate(engine, options: dict, first: str, second: str, games: int) -> tuple[float, int]:
    """`first`'s win rate against `second` (seats alternating), and the unfinished games."""
    score, unfinished = 0.0, 0
    for seed in range(games):
        swap = seed % 2 == 1
        share = play(engine, options, (second, first) if swap else (first, second), seed)
        if share is None:
            unfinished += 1
            score += 0.5
        else:
            score += (1 - share) if swap else share
    return score / games, unfinished


AIM = 0.55   # each level against the one below it


def wilson(rate: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a rate observed over n games."""
    if n <= 0:
        return 0.0, 1.0
    centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((rate * (1 - rate) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def shown(rate: float, n: int) -> str:
    low, high = wilson(rate, n)
    return f"{rate:6.1%} [{low:5.1%}-{high:5.1%}] of {n}"


def measure(key: str, games: int, only: str | None = None) -> list[str]:
    """The table for one game (`only`: one of its SETUPS by name)."""
    engine = engines.get(key)
    levels = list(engine.GAME.bot_levels)
    lines = []
    for name, options in SETUPS.get(key, [("default", {})]):
        if only and only != name:
            continue
        lines.append(f"{engine.GAME.title} ({name}), {games} games a pairing, 95 % Wilson interval:")
        for i, level in enumerate(levels):
            rate, left = win_rate(engine, options, level, RANDOM, games)
            line = f"  {level:>9}: {shown(rate, games)} against a random legal player"
            if wilson(rate, games)[0] <= 0.5:
                line += "  <- NOT clearly better than random"
            if i:
                up, left_up = win_rate(engine, options, level, levels[i - 1], games)
                line += f"; {shown(up, games)} against {levels[i - 1]}"
                if wilson(up, games)[0] <= 0.5:
                    line += "  <- NOT clearly stronger"
                elif up <= AIM:
                    line += f"  <- under the {AIM:.0%} aim"
                left += left_up
            if left:
                line += f" ({left} unfinished, counted as draws)"
            lines.append(line)
    return lines


def main(argv: list[str]) -> None:
    games = 500
    if "--games" in argv:
        i = argv.index("--games")
        games = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    only = None
    if "--setup" in argv:   # one of a game's SETUPS, e.g. --setup "Wager Battle"
        i = argv.index("--setup")
        only = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    for key in argv or engines.keys():
        for line in measure(key, games, only):
            print(line, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
