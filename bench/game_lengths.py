"""How long games last between computer players (seeded, bots in every seat):
the distribution of turns (or rounds) and how the games end. Run:

    .venv/bin/python bench/game_lengths.py GAME [games] [players] [options as JSON]
    .venv/bin/python bench/game_lengths.py wizard 1000 2 '{"computer_level": "novice"}'
    .venv/bin/python bench/game_lengths.py water_cycle 300 4 '{"crisis_mode": "on"}'

A game counts as unfinished when no one has won after 20,000 moves (the teacher
would end it); the share is printed. Turns are the engine's own count:
`round` (Wizard duel), `turn_no` (Water Cycle Challenge, Storm War) or battles (War)."""
from __future__ import annotations

import json
import re
import random
import statistics
import sys
from collections import Counter

from app import engines
from app.engines.contract import strip_label

MOVES = 20_000


def turns(state: dict) -> int:
    for key in ("round", "turn_no", "battle"):
        if isinstance(state.get(key), int):
            return state[key]
    return 0


def play(engine, players: int, options: dict, seed: int) -> tuple[int, str | None]:
    names = [f"P{i}" for i in range(players)]
    state = engine.new(options, names, seed)
    rng = random.Random(seed)
    for _ in range(MOVES):
        if engine.result(state):
            return turns(state), engine.result(state)["reason"]
        waiting = engine.view(state, "board")["prompt"]["waiting_for"]
        if not waiting:   # the teacher decides (a Crisis review): accept, as a kind teacher would
            offered = engine.actions(state, "facilitator")
            state, _ = engine.apply(state, "facilitator", strip_label(offered[0]))
            continue
        seat = waiting[0]
        choice = engine.bot(engine.view(state, seat), engine.actions(state, seat), rng)
        state, _ = engine.apply(state, seat, strip_label(choice))
    return turns(state), None


def main() -> None:
    key = sys.argv[1] if len(sys.argv) > 1 else "wizard"
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    engine = engines.get(key)
    players = int(sys.argv[3]) if len(sys.argv) > 3 else engine.GAME.min_seats
    options = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
    played = [play(engine, players, options, seed) for seed in range(games)]
    done = sorted(t for t, reason in played if reason)
    print(f"{key}: {games} games of {players} computer players, options {options}")
    if done:
        deciles = statistics.quantiles(done, n=10) if len(done) > 1 else [done[0]] * 9
        print(f"turns: median {statistics.median(done)}, p10 {deciles[0]:.0f}, p90 {deciles[-1]:.0f}, "
              f"max {done[-1]}")
    print(f"unfinished after {MOVES:,} moves: {sum(1 for _, r in played if not r) / games:.0%}")
    # How games end, with names and numbers folded together ("P1 ... 27 willpower").
    kinds = Counter(re.sub(r"\d+", "N", re.sub(r"\bP\d\b", "a player", r)) for _, r in played if r)
    for reason, count in kinds.most_common(6):
        shown = reason if len(reason) < 70 else reason[:67] + "..."
        print(f"  {count / games:5.0%}  {shown}")


if __name__ == "__main__":
    main()
