"""How long games last between computer players (seeded, bots in every seat): the
distribution of turns, the minutes a class would spend at a classroom pace, and how
the games end. Run from the repository root:

    python bench/game_lengths.py                         every game, player count and level
    python bench/game_lengths.py GAME [games] [players] [options as JSON]
    python bench/game_lengths.py water_cycle 1000 4       the issue 20 aim (four players)
    python bench/game_lengths.py --games 100             the whole table, quicker

A game counts as unfinished when no one has won after 5,000 actions (the teacher
would have ended it long before); the share is printed. Turns are the engine's own
count: `round` (Wizard duel), `turn_no` (Water Cycle Challenge, Storm War) or battles
(War).

Minutes at classroom pace: every action costs the think-time of its kind (PACE:
a tap on a card or a button a few seconds, a trivia question longer, a Crisis
explanation typed on a phone a minute). Actions that every phone sends at once
(the game's order-free ones, e.g. everyone revealing in War or voting on a Crisis)
cost one think-time together, not one each. The aim (issue 20 item 4) is a p90 game
inside a 40-minute lesson at default options.
"""
from __future__ import annotations

import json
import os
import random
import re
import statistics
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout's app

from app import engines  # noqa: E402
from app.engines.contract import strip_label  # noqa: E402

MOVES = 5_000
LESSON_MINUTES = 40

# Seconds a student (or the teacher) takes over one action of each kind. A tap on
# a listed button is the default; what needs reading, deciding or typing is longer.
TAP = 4
PACE = {
    "reveal": 2, "autoplay": 2, "draw": 4, "end_turn": 3, "pass": 3, "skip": 3, "continue": 3,
    "vote": 10, "answer": 20, "explain": 60, "reject": 15, "accept": 8,   # Water Cycle
    "pick": 5, "unpick": 3, "weather": 8, "weather_at": 10, "trade": 6, "challenge": 6,
    "cast": 10, "defend": 8, "no_defense": 4, "choose": 8, "roll": 3,      # Wizard duel
    "loadout": 15, "activate": 6, "counter": 5, "resolve": 2,             # Power War
    "call": 5, "check": 4, "raise": 6, "fold": 4,                        # Wager Battle
    "sue": 15, "donate": 10, "upgrade": 8, "apply": 8, "equip": 8, "shield": 6,  # Storm War
}


def turns(state: dict) -> int:
    for key in ("round", "turn_no", "battle"):
        if isinstance(state.get(key), int):
            return state[key]
    return 0


def pace(kind: str) -> int:
    return PACE.get(kind, TAP)


def play(engine, players: int, options: dict, seed: int, moves: int = MOVES) -> dict:
    """One seeded game with computers in every seat: turns, seconds at classroom pace,
    the actions taken and the ending (None when unfinished after `moves`)."""
    names = [f"P{i}" for i in range(players)]
    state = engine.new(options, names, seed)
    rng = random.Random(seed)
    order_free = engine.GAME.order_free
    seconds, together = 0, None
    for taken in range(moves):
        if engine.result(state):
            return {"turns": turns(state), "seconds": seconds, "actions": taken,
                    "reason": engine.result(state)["reason"]}
        waiting = engine.view(state, "board")["prompt"]["waiting_for"]
        if not waiting:   # the teacher decides (a Crisis review): accept, as a kind teacher would
            actor = "facilitator"
            choice = engine.actions(state, actor)[0]
        else:
            actor = waiting[0]
            choice = engine.bot(engine.view(state, actor), engine.actions(state, actor), rng)
        kind = choice["type"]
        # Order-free actions that the phones waiting together send at once (everyone
        # revealing a battle, voting on one Crisis) cost one think-time for all of them;
        # a seat acting a second time starts the next group.
        if kind in order_free and together and together[0] == kind and actor in together[1] - together[2]:
            together[2].add(actor)
        else:
            seconds += pace(kind)
            together = (kind, set(waiting), {actor}) if kind in order_free else None
        state, _ = engine.apply(state, actor, strip_label(choice))
    return {"turns": turns(state), "seconds": seconds, "actions": moves, "reason": None}


def summary(key: str, games: int, players: int, options: dict, moves: int = MOVES) -> dict:
    engine = engines.get(key)
    played = [play(engine, players, options, seed, moves) for seed in range(games)]
    done = [p for p in played if p["reason"]]
    out = {"game": key, "players": players, "options": options, "games": games,
           "unfinished": sum(1 for p in played if not p["reason"]) / games, "played": played}
    if done:
        t = sorted(p["turns"] for p in done)
        m = sorted(p["seconds"] / 60 for p in played)   # an unfinished game is still a lesson spent
        out["turns_median"] = statistics.median(t)
        out["turns_p90"] = _p90(t)
        out["minutes_median"] = statistics.median(m)
        out["minutes_p90"] = _p90(m)
    return out


def _p90(values: list) -> float:
    return statistics.quantiles(values, n=10)[-1] if len(values) > 1 else values[0]


def report(s: dict) -> None:
    print(f"{s['game']}: {s['games']} games of {s['players']} computer players, options {s['options']}")
    if "turns_median" in s:
        fits = "fits" if s["minutes_p90"] <= LESSON_MINUTES else "DOES NOT fit"
        print(f"  turns: median {s['turns_median']}, p90 {s['turns_p90']:.0f}; minutes at classroom pace: "
              f"median {s['minutes_median']:.1f}, p90 {s['minutes_p90']:.1f} ({fits} a {LESSON_MINUTES}-minute lesson)")
    print(f"  unfinished after {MOVES:,} actions: {s['unfinished']:.1%}")
    # How games end, with names and numbers folded together ("P1 ... 27 willpower").
    kinds = Counter(re.sub(r"\d+", "N", re.sub(r"\bP\d\b", "a player", p["reason"]))
                    for p in s["played"] if p["reason"])
    for reason, count in kinds.most_common(4):
        shown = reason if len(reason) < 70 else reason[:67] + "..."
        print(f"    {count / s['games']:5.0%}  {shown}")


def every_game(games: int) -> None:
    """Every registered game at each player count and computer level, default options otherwise."""
    for key in engines.keys():
        engine = engines.get(key)
        spec = engine.GAME
        sizes = spec.seating.sizes if spec.seating and spec.seating.sizes else (spec.min_seats,)
        levels = spec.bot_levels if any(o.key == "computer_level" for o in spec.options) else (None,)
        for players in sizes:
            for level in levels:
                report(summary(key, games, players, {} if level is None else {"computer_level": level}))


def main(argv: list[str]) -> None:
    games = 300
    if "--games" in argv:
        i = argv.index("--games")
        games = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    if not argv:
        every_game(games)
        return
    key = argv[0]
    games = int(argv[1]) if len(argv) > 1 else games
    engine = engines.get(key)
    players = int(argv[2]) if len(argv) > 2 else engine.GAME.min_seats
    options = json.loads(argv[3]) if len(argv) > 3 else {}
    report(summary(key, games, players, options))


if __name__ == "__main__":
    main(sys.argv[1:])
