"""War engine speed against a deepcopy baseline, measured in the same run."""
from __future__ import annotations

import copy
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from app.engines import war  # noqa: E402


def states(n_games=12, seats=4):
    """Mid-game states from seeded games (a realistic mix of decks and pots)."""
    out = []
    for seed in range(n_games):
        s = war.new({"mode": "classic"}, [f"P{i}" for i in range(seats)], seed)
        for _ in range(40 + seed * 7):
            if war.result(s) is not None:
                break
            for p in range(seats):
                a = war.bot(s, p)
                if a:
                    s, _ = war.apply(s, p, a)
                    break
        if war.result(s) is None:
            out.append(s)
    return out


def per_call(fn, items, repeat=5):
    best = []
    for _ in range(repeat):
        t = time.perf_counter()
        for item in items:
            fn(item)
        best.append((time.perf_counter() - t) / len(items))
    return min(best)


def main():
    sample = states()
    moves = []
    for s in sample:
        seat = next(p for p in range(len(s["names"])) if war.bot(s, p))
        moves.append((s, seat))
    engine = per_call(lambda m: war.apply(m[0], m[1], {"type": "reveal"}), moves)
    baseline = per_call(lambda m: copy.deepcopy(m[0]), moves)
    view = per_call(lambda m: war.view(m[0], "board"), moves)
    size = statistics.mean(len(json.dumps(s)) for s in sample)
    print(f"war.apply(reveal): {engine * 1e6:8.1f} µs   deepcopy(state): {baseline * 1e6:8.1f} µs   "
          f"ratio {engine / baseline:5.2f}x")
    print(f"war.view(board):   {view * 1e6:8.1f} µs   ratio to deepcopy {view / baseline:5.2f}x")
    print(f"snapshot JSON size: {size / 1024:.1f} KiB (4 seats)")


if __name__ == "__main__":
    main()
