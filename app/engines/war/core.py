"""The small public API of a War state that the battle core (engine.py) and its
variants (control.py, wager.py, powers.py, runs.py) share.

Everything here reads or changes a state directly and never asks a variant
anything, so every module of the package may import it without a cycle. The
battle's own steps, which do ask the variants (resolve a stage, take the pot,
finish a battle, end the game), are engine.py's, and reach a variant through
`variant.BattleCore`.

State is plain JSON (see engine.py's `_initial_state`): seats are list
indices; cards are opaque ids whose faces sit in `state["faces"]`.
"""
from __future__ import annotations

from ..contract import IllegalAction, join_names
from . import cards
from .rulings import rule


def fail(code: str, message: str):
    raise IllegalAction(code, message)


def rank(s: dict, cid: str) -> int:
    """The printed rank of a card (2..14); Power War's rank changes are powers.py's."""
    return cards.rank_of(s["faces"][cid])


def name(s: dict, seat: int) -> str:
    return s["names"][seat]


def names(s: dict, seats: list[int]) -> str:
    """'Ana', 'Ana and Ben', 'Ana, Ben and Cara'."""
    return join_names([name(s, p) for p in seats])


def is_seat(s: dict, who) -> bool:
    """A real seat index (True/False are ints in Python, but not seats)."""
    return isinstance(who, int) and not isinstance(who, bool) and 0 <= who < len(s["names"])


def is_out(s: dict, seat: int) -> bool:
    return s["out"][seat] is not None


def active(s: dict) -> list[int]:
    """The seats still in the game, in seat order."""
    return [p for p in range(len(s["names"])) if not is_out(s, p)]


def commit(s: dict, seat: int, cid: str, down: bool) -> None:
    """Move a card into the pot, remembering who put it in and how.

    `spent` counts every card but adds up face-up ranks only: it breaks ties
    between players knocked out together, and a face-down card may still be
    hidden when that ranking is announced.
    """
    s["pot"].append({"id": cid, "seat": seat, "down": down})
    s["spent"][seat][0] += 1
    if not down:
        s["spent"][seat][1] += rank(s, cid)


# --------------------------------------------------------------------------
# Knock-outs and their tie-break order

def out_key(s: dict, seat: int) -> tuple:
    """The order for knocked-out players, from public facts only: cards put
    into their last battle, the ranks of their face-up cards in it, battle
    wins, final face-up card. Face-down cards never count: they may be hidden."""
    out = s["out"][seat]
    return (out["cards"], out["shown"], s["wins"][seat], s["last_up"][seat])


def order_out(s: dict, seats: list[int]) -> list[int]:
    return sorted(seats, key=lambda p: (tuple(-x for x in out_key(s, p)), p))


def tied_out(s: dict, seats: list[int]) -> list[list[int]]:
    """Groups of these seats that the tie-break order cannot separate."""
    groups: dict[tuple, list[int]] = {}
    for p in order_out(s, seats):
        groups.setdefault(out_key(s, p), []).append(p)
    return [g for g in groups.values() if len(g) > 1]


def mark_out(s: dict, seats: list[int]) -> None:
    """Knock these seats out together, at one new moment, remembering what
    they visibly put into this battle (it breaks ties between them later)."""
    s["moment"] += 1
    for p in seats:
        s["out"][p] = {"moment": s["moment"], "battle": s["battle"],
                       "cards": s["spent"][p][0], "shown": s["spent"][p][1]}
    # A knocked-out seat holds no cards from now on, so no later position can
    # repeat an earlier one: forget them.
    s["cycle"]["seen"] = ""


def knock_out(s: dict, seats: list[int]) -> list[dict]:
    """Knock these seats out together; two or more get the tie-break ruling."""
    mark_out(s, seats)
    if len(seats) >= 2:
        return [rule("war.elimination_tie_break", battle=s["battle"], seats=list(seats),
                     ranking=order_out(s, seats), tied=tied_out(s, seats))]
    return []
