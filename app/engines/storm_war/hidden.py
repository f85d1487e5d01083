"""What Storm War keeps from its trainees (GameSpec.hidden; see contract.Hidden):
the draw deck and the other trainees' hands, the Environments still to come and
the generator. A card that goes face down gets a fresh id, so no id ever seen
face up may point at a hidden card."""
from __future__ import annotations

import json
import random

from ..contract import Hidden


def secret_ids(state: dict, viewer) -> set:
    """The ids of the draw deck and of the other trainees' hands."""
    hidden = set(state["deck"])
    for seat, hand in enumerate(state["hands"]):
        if seat != viewer:
            hidden.update(hand)
    return hidden


def scramble(state: dict, seat: int, rng: random.Random) -> dict:
    """Everything `seat` cannot see, permuted: which card is where in the deck and
    the other hands (each keeps its size), the order of the Environments still to
    come, and the engine's generator."""
    s = json.loads(json.dumps(state))
    hidden = list(s["deck"]) + [c for p, hand in enumerate(s["hands"]) if p != seat for c in hand]
    faces = [s["faces"][c] for c in hidden]
    rng.shuffle(faces)
    s["faces"].update(zip(hidden, faces))
    rng.shuffle(s["envs"])
    s["rng"] = rng.getrandbits(64)
    return s


HIDDEN = (Hidden(secret_ids=secret_ids, scramble=scramble),)
