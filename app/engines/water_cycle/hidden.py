"""What Water Cycle Challenge keeps from its players (GameSpec.hidden; see
contract.Hidden). No view and no log entry ever shows a card id: choices name
kinds, so a card cannot be followed through the deck or from hand to hand."""
from __future__ import annotations

import json
import random

from ..contract import Hidden

THREATS = ("crisis", "collapse")   # cards that stay where they are when the rest is permuted


def secret_ids(state: dict, viewer) -> set:
    """Every card id: none may reach any viewer."""
    return set(state["kinds"])


def scramble(state: dict, seat: int, rng: random.Random) -> dict:
    """Everything `seat` cannot see, permuted: the cards in the deck, the Bucket and
    the other hands (each keeps its size; a Pipe Burst target's hand is visible to
    the attacker), which disaster each undrawn Crisis card is, the order of the
    draw pile, the future trivia questions and the engine's generator."""
    s = json.loads(json.dumps(state))
    p = s["pending"] or {}
    seen = {seat} | ({p["target"]} if p.get("kind") == "burst" and p.get("seat") == seat else set())
    places = [s["deck"], s["bucket"]] + [s["hands"][x] for x in range(len(s["names"])) if x not in seen]
    slots = [(place, i) for place in places for i, c in enumerate(place) if s["kinds"][c] not in THREATS]
    cards = [place[i] for place, i in slots]
    rng.shuffle(cards)
    for (place, i), cid in zip(slots, cards):
        place[i] = cid
    rng.shuffle(s["deck"])
    undrawn = [c for c in s["deck"] if s["kinds"][c] == "crisis"]
    names = [s["crises"][c] for c in undrawn]
    rng.shuffle(names)
    s["crises"].update(zip(undrawn, names))
    rng.shuffle(s["trivia_order"])
    s["rng"] = rng.getrandbits(64)
    return s


# Ten rounds: long enough for Crises and trivia, short enough to play many games.
HIDDEN = (Hidden(secret_ids=secret_ids, scramble=scramble, options={"rounds": 10}),)
