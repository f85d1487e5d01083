"""How long Wizard duels last between two computer wizards (seeded, bot against
bot): the distribution of rounds, and how the duels are won. Run:

    .venv/bin/python bench/wizard_lengths.py [games] [level]

The issue asks that 23 willpower be reachable but contested; this prints the
evidence (median and spread of rounds, share of leader-recruit wins, and
whether the wizard who started with Apa Nochis wins more often)."""
from __future__ import annotations

import random
import statistics
import sys
from collections import Counter

from app.engines.contract import strip_label
from app.engines.wizard import engine as E


def duel(seed: int, level: str) -> dict:
    s = E.new({"computer_level": level}, ["A", "B"], seed)
    rng = random.Random(seed)
    for _ in range(100_000):
        if E.result(s):
            break
        seat = E.view(s, "board")["prompt"]["waiting_for"][0]
        s, _ = E.apply(s, seat, strip_label(E.bot(E.view(s, seat), E.actions(s, seat), rng)))
    return {"rounds": s["round"], "result": E.result(s), "first": s["leader_of"].get("0") == E.content.LEADERS[0]}


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    level = sys.argv[2] if len(sys.argv) > 2 else "adept"
    played = [duel(seed, level) for seed in range(games)]
    rounds = sorted(p["rounds"] for p in played)
    deciles = statistics.quantiles(rounds, n=10)
    how = Counter("leader" if "leader" in p["result"]["reason"] else "willpower" for p in played)
    apa = sum(1 for p in played if (0 in p["result"]["winners"]) == p["first"]) / games
    print(f"{games} duels, computer level {level}")
    print(f"rounds: median {statistics.median(rounds)}, p10 {deciles[0]:.0f}, p90 {deciles[-1]:.0f}, "
          f"max {rounds[-1]}")
    histogram = Counter(min(r, 30) for r in rounds)
    for r in sorted(histogram):
        print(f"  {r:>3}{'+' if r == 30 else ' '} rounds  {histogram[r]:>5}  {'#' * (60 * histogram[r] // games)}")
    print(f"won by willpower {how['willpower'] / games:.0%}, by recruiting the rival's leader "
          f"{how['leader'] / games:.0%}; the wizard who started with Apa Nochis won {apa:.0%}")


if __name__ == "__main__":
    main()
