"""Storm War's card data, loaded once at import from data/ (validated by cards.py):
the 143 active cards by key, the 5 reference-only cards, and the 21 Environments."""
from __future__ import annotations

import functools

from . import cards as _cards

CARDS_VERSION, _ACTIVE, REFERENCES = _cards.load_cards()
ENVIRONMENTS_VERSION, _ENVIRONMENTS = _cards.load_environments()
DATA_VERSIONS = {"cards.json": CARDS_VERSION, "environments.json": ENVIRONMENTS_VERSION}

CARDS = {c["id"]: c for c in _ACTIVE}
ENVIRONMENTS = {e["id"]: e for e in _ENVIRONMENTS}
CARD_ORDER = [c["id"] for c in _ACTIVE]
ENVIRONMENT_ORDER = [e["id"] for e in _ENVIRONMENTS]

RISKS = ("toxic", "erosion", "nutrient")
PERMANENT = ("bmp", "preventative", "permanent_chaos", "mentor", "defender", "tool")
SECTION_OF = {"bmp": "bmp", "preventative": "bmp", "permanent_chaos": "chaos", "mentor": "mentor",
              "defender": "mentor", "tool": "tools"}
BASE_LIMITS = {"bmp": 5, "chaos": 2, "mentor": 1, "tools": 2}

# The guided demo: the trainee's four cards and the Environment they clean up.
_BY_NAME = {c["name"].replace("\u2019", "'"): c["id"] for c in _ACTIVE}
DEMO_CARDS = tuple(_BY_NAME[name] for name in ("Check Dam", "Biochar", "Sgt. Stormwater", "Sgt's Shield"))
DEMO_ENVIRONMENT = next(e["id"] for e in _ENVIRONMENTS if e["name"] == "City")


def card(key: str) -> dict:
    return CARDS[key]


@functools.cache
def synergies(key: str, risk: str) -> tuple[dict, ...]:
    """The card's synergy effects for one risk (most cards: none)."""
    return tuple(e for e in CARDS[key].get("effects", ()) if e["op"] == "synergy" and e["risk"] == risk)


def public_card(key: str) -> dict:
    """What a face-up card shows: everything printed on it."""
    c = CARDS[key]
    shown = {"key": key, "name": c["name"], "type": c["type"], "text": c["text"], "science": c["science"]}
    if "defense" in c:
        shown["defense"] = dict(c["defense"])
    if "risk" in c:
        shown["risk"] = dict(c["risk"])
    return shown


def public_environment(key: str) -> dict:
    e = ENVIRONMENTS[key]
    return {"key": key, "name": e["name"], "risks": dict(e["risks"]), "text": e["text"], "science": e["science"]}
