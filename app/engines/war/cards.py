"""Card faces for War: a plain 52-card deck where only the rank matters.

A card in the game state is an opaque id ("c0".."c51"); its face lives in the
state's `faces` table as a two-letter code, rank then suit: "QH" is the Queen
of Hearts, "TS" the 10 of Spades. (Strings keep the state cheap to copy.) Ids are handed out after shuffling, so
an id tells nobody anything about the face.
"""
from __future__ import annotations

import functools

from ..contract import Rng
from ..text import N_

SUITS = ("S", "H", "D", "C")
SUIT_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAME = {"S": N_("Spades"), "H": N_("Hearts"), "D": N_("Diamonds"), "C": N_("Clubs")}
RANKS = tuple(range(2, 15))  # 11 = Jack, 12 = Queen, 13 = King, 14 = Ace
_COURT_LABEL = {11: "J", 12: "Q", 13: "K", 14: "A"}
_COURT_NAME = {11: N_("Jack"), 12: N_("Queen"), 13: N_("King"), 14: N_("Ace")}
# A rank in the plural ("tie with Queens", "tie with 10s"): each one a catalog text.
_PLURAL_NAME = {2: N_("2s"), 3: N_("3s"), 4: N_("4s"), 5: N_("5s"), 6: N_("6s"), 7: N_("7s"), 8: N_("8s"),
                9: N_("9s"), 10: N_("10s"), 11: N_("Jacks"), 12: N_("Queens"), 13: N_("Kings"), 14: N_("Aces"),
                # Past the deck's ranks with a power: Drain (0, 1), Boost or Mirror (15, 16).
                0: N_("0s"), 1: N_("1s"), 15: N_("15s"), 16: N_("16s")}
RANK_CHAR = {r: "23456789TJQKA"[r - 2] for r in RANKS}
RANK_OF = {c: r for r, c in RANK_CHAR.items()}


def code(rank: int, suit: str) -> str:
    return RANK_CHAR[rank] + suit


def rank_of(code_: str) -> int:
    return RANK_OF[code_[0]]


def rank_label(rank: int) -> str:
    return _COURT_LABEL.get(rank, str(rank))


def rank_name(rank: int, plural: bool = False) -> str:
    if plural:   # a power may take a rank past the deck's (Boost: 16, Drain: 0)
        # (Several Drains on one card go lower still: said in English only, as "-2s".)
        return _PLURAL_NAME[rank] if rank in _PLURAL_NAME else f"{rank}s"
    return _COURT_NAME.get(rank, str(rank))


def shuffled_faces(rng: Rng) -> list[str]:
    """The 52 face codes in a random order drawn from `rng`."""
    faces = [code(rank, suit) for suit in SUITS for rank in RANKS]
    rng.shuffle(faces)
    return faces


def face(faces: dict, cid: str) -> dict:
    """What a face-up card looks like to a player, without its id (a dict of its own)."""
    return dict(_face_of(faces[cid]))


@functools.cache
def _face_of(code_: str) -> dict:
    """A face code's look, worked out once per code (a view shows a dozen cards)."""
    rank, suit = rank_of(code_), code_[1]
    return {
        "rank": rank,
        "label": rank_label(rank),
        "suit": SUIT_SYMBOL[suit],
        "name": N_("{rank} of {suit}").format(rank=rank_name(rank), suit=SUIT_NAME[suit]),
    }


def card_view(faces: dict, cid: str) -> dict:
    """A face-up card that is still on the table: its id may be shown."""
    return {"id": cid, **_face_of(faces[cid])}  # a dict of its own, as `face` makes
