"""What War keeps from its seats (GameSpec.hidden; see contract.Hidden): the
platform's privacy checks play every mode with these, without naming War.

In a match nobody sees the id of a card in any deck or face down in the pot (a
card shown face up keeps its id: won cards go to the bottom "in visible
commitment order", which anyone watching knows). Power War also hides every
other seat's draft, scouted card and hidden power choices; a run (Tournament,
Survival) hides its match's secrets and its opponents' generators.
"""
from __future__ import annotations

import random

from ..contract import Hidden, clone
from . import powers as P


def match_secret_ids(state: dict, viewer) -> set:
    """Nobody may see the id of a card in any deck or face down in the pot."""
    hidden = {cid for deck in state["decks"] for cid in deck}
    hidden.update(item["id"] for item in state["pot"] if item["down"])
    return hidden


def match_scramble(state: dict, seat: int, rng: random.Random) -> dict:
    """Everything `seat` cannot see, permuted: the other players' cards shuffled
    among their decks (each keeps its size), the seat's own deck order, the
    face-down cards in the pot, and the engine's generator."""
    s = clone(state)
    others = [p for p in range(len(s["decks"])) if p != seat]
    pool = [cid for p in others for cid in s["decks"][p]]
    rng.shuffle(pool)
    for p in others:
        size = len(s["decks"][p])
        s["decks"][p], pool = pool[:size], pool[size:]
    rng.shuffle(s["decks"][seat])
    down = [i for i, item in enumerate(s["pot"]) if item["down"]]
    ids = [s["pot"][i]["id"] for i in down]
    rng.shuffle(ids)
    for i, cid in zip(down, ids):
        s["pot"][i]["id"] = cid
    s["rng"] = rng.getrandbits(64)
    return s


def power_scramble(state: dict, seat: int, rng: random.Random) -> dict:
    """What `seat` cannot see, permuted: the match scramble (other decks, its
    own deck order, face-down pot cards, the generator), every other seat's
    draft and scouted card, and every other seat's hidden power choices
    (replaced by other powers it could have chosen: the energy and charges
    shown to everyone stay the same)."""
    s = match_scramble(state, seat, rng)
    pw = s.get("powers")
    if pw is None or s["status"] != "playing":
        return s
    for p in range(len(s["names"])):
        if p == seat:
            continue
        if not pw["ready"][p]:
            pw["draft"][p] = rng.sample(P.IDS, rng.randint(0, P.MAX_LOADOUT))
        if pw["scout"][p] is not None and s["decks"][p]:
            pw["scout"][p] = s["decks"][p][0]
        for e in [e for e in pw["used"] if e["seat"] == p and not e["public"] and e["power"] not in ("scout",)]:
            if e["power"] == "counter":
                targets = [x for x in pw["used"] if x["public"] and x["seat"] != p and x["stage"] == s["stage"]
                           and x["status"] == "chosen" and P.POWERS[x["power"]]["step"] in P.COUNTERABLE]
                pick = rng.choice(targets)
                e["target"], e["aim"] = pick["seat"], pick["power"]
                continue
            shown_energy = pw["energy"][p] + P.POWERS[e["power"]]["cost"]
            taken = {x["power"] for x in pw["used"] if x["seat"] == p}
            choices = [pid for pid in pw["loadout"][p]
                       if pid not in taken and pid not in ("counter", "scout")
                       and pw["charges"][p][pid] > 0 and pw["ready_at"][p][pid] <= s["battle"]
                       and P.POWERS[pid]["cost"] <= shown_energy and len(s["participants"]) > 1
                       and not (s["sudden"] is not None and pid in P.SUDDEN_DEATH_OFF)]
            if not choices:
                continue
            new = rng.choice(choices)
            pw["charges"][p][e["power"]] += 1
            pw["energy"][p] = shown_energy - P.POWERS[new]["cost"]
            pw["charges"][p][new] -= 1
            e["power"] = new
            e["target"] = rng.choice([q for q in s["participants"] if q != p]) \
                if P.POWERS[new]["target"] == "opponent" else None
    return s


def run_secret_ids(state: dict, viewer) -> set:
    """A run's secrets are its current match's."""
    match = state.get("match")
    return set() if match is None else match_secret_ids(match, viewer)


def run_scramble(state: dict, seat: int, rng: random.Random) -> dict:
    """The run with everything the player cannot see permuted: inside its match,
    and the run's generator and its opponents' generators."""
    s = clone(state)
    if s["match"] is not None:
        s["match"] = match_scramble(s["match"], seat, rng)
    s["rng"] = rng.getrandbits(64)
    s["run"]["bots"] = [rng.getrandbits(64) for _ in s["run"]["bots"]]
    return s


# Every mode, each in a short game: a Classic game to elimination is thousands of moves.
SHORT = {"length": "first_to_30_cards"}
HIDDEN = (
    Hidden(label="classic", options=dict(SHORT, mode="classic"), secret_ids=match_secret_ids,
           scramble=match_scramble),
    Hidden(label="power", options=dict(SHORT, mode="power"), secret_ids=match_secret_ids,
           scramble=power_scramble),
    Hidden(label="wager", options=dict(SHORT, mode="wager"), secret_ids=match_secret_ids,
           scramble=match_scramble),
    Hidden(label="power_wager", options=dict(SHORT, mode="power_wager"), secret_ids=match_secret_ids,
           scramble=power_scramble),
    Hidden(label="tournament", options={"mode": "tournament"}, secret_ids=run_secret_ids, scramble=run_scramble),
    Hidden(label="survival", options={"mode": "survival"}, secret_ids=run_secret_ids, scramble=run_scramble),
)
