"""What Dice Race keeps from its seats (GameSpec.hidden; see app/engines/contract.py
Hidden): other seats' lucky numbers and last rolls, other seats' secret votes,
and the generator. No id is secret (the race has no cards)."""
from __future__ import annotations

import json
import random

MARK = 987_650  # far outside the game's numbers, so a leak is easy to spot


def hidden_from(state: dict, seat, rng_value: int | None = None, rng: random.Random | None = None) -> dict:
    """The same state as `seat` sees it, with everything it cannot see changed:
    other seats' lucky numbers (marked, or permuted and redrawn when `rng` is
    given), other seats' secret votes, and the generator's state."""
    other = json.loads(json.dumps(state))
    n = len(other["names"])
    others = [p for p in range(n) if p != seat]
    if rng is None:
        for p in others:
            other["lucky"][p] = MARK + p
            other["last_roll"][p] = MARK + 10 + p
    else:
        values = [other["lucky"][p] for p in others]
        rng.shuffle(values)
        for p, v in zip(others, values):
            other["lucky"][p] = v if rng.random() < 0.5 else rng.randint(1, 5)
            other["last_roll"][p] = rng.randint(1, 6)
    for p in others:
        if other["votes"][p] is not None:
            other["votes"][p] = "steady" if other["votes"][p] == "sprint" else "sprint"
    other["rng"] = rng_value if rng_value is not None else (rng.getrandbits(64) if rng else MARK * 1_000_003)
    return other


def scramble(state: dict, seat: int, rng: random.Random) -> dict:
    """The contract's scramble: what `seat` cannot see, permuted and redrawn."""
    return hidden_from(state, seat, rng=rng)
