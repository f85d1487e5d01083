"""What the Wizard duel keeps from both wizards (GameSpec.hidden; see
contract.Hidden): the face-down spells of both decks (the computer's own future
draw order included) and the dice generator. No spell id is secret: a view shows
a face-down spell without one."""
from __future__ import annotations

import json
import random

from ..contract import Hidden


def scramble(state: dict, seat: int, rng: random.Random) -> dict:
    """The face-down spells of both decks shuffled between them (each deck keeps
    its size), and a fresh generator: nobody sees either."""
    s = json.loads(json.dumps(state))
    hidden = s["decks"][0] + s["decks"][1]
    rng.shuffle(hidden)
    size = len(s["decks"][0])
    s["decks"] = [hidden[:size], hidden[size:]]
    s["rng"] = rng.getrandbits(64)
    return s


HIDDEN = (Hidden(secret_ids=None, scramble=scramble),)
