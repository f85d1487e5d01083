"""The game registry: every engine that follows the contract in contract.py.

Adding a game = a package under app/engines/ plus one line in PLAYABLE.
"""
from __future__ import annotations

import importlib
from types import ModuleType

from app.engines.contract import IllegalAction, resolve_options

# Order is the dashboard's order.
CATALOGUE = [
    {"key": "stormwar", "title": "Storm War", "seats": "2–4",
     "blurb": "Clean up polluted watersheds with best management practices."},
    {"key": "watercycle", "title": "Water Cycle Challenge", "seats": "2–4",
     "blurb": "Complete water cycles, survive crises and beat the Boss."},
    {"key": "war", "title": "War", "seats": "2–6",
     "blurb": "The classic card battle: highest card takes the pot."},
    {"key": "wizard", "title": "Wizard duel", "seats": "2",
     "blurb": "Two wizards roll dice and cast spells to win the village."},
]
PLAYABLE = {"war": "app.engines.war"}


def get(key: str) -> ModuleType:
    if key not in PLAYABLE:
        raise IllegalAction("bad_request", f"Unknown or not yet playable game: {key!r}.")
    return importlib.import_module(PLAYABLE[key])


def games() -> list[dict]:
    """What GET /api/games and the dashboard show: every game, its options and defaults."""
    out = []
    for entry in CATALOGUE:
        item = dict(entry, playable=entry["key"] in PLAYABLE, options=[])
        if item["playable"]:
            engine = get(entry["key"])
            item.update(title=engine.TITLE, min_seats=engine.MIN_SEATS, max_seats=engine.MAX_SEATS,
                        version=engine.VERSION, options=[o.to_json() for o in engine.OPTIONS])
        out.append(item)
    return out


def options_for(key: str, given: dict | None) -> dict:
    return resolve_options(get(key).OPTIONS, given)
