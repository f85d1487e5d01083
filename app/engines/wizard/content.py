"""The Wizard duel's data, loaded once at import from data/ (validated by
data_loader.py): the two leaders, the eight villagers and the 40 spells."""
from __future__ import annotations

from . import data_loader

CHARACTERS_VERSION, _LEADERS, _VILLAGERS = data_loader.load_characters()
SPELLS_VERSION, _SPELLS = data_loader.load_spells()
DATA_VERSIONS = {"characters.json": CHARACTERS_VERSION, "spells.json": SPELLS_VERSION}

_APA = next(c for c in _LEADERS if c["name"] == "Apa Nochis")
_SARAPION = next(c for c in _LEADERS if c["name"] == "Sarapion")
LEADERS = (_APA["id"], _SARAPION["id"])   # the initiative winner's leader first
CHARACTERS = {c["id"]: c for c in _LEADERS + _VILLAGERS}
CHARACTER_ORDER = list(LEADERS) + [c["id"] for c in _VILLAGERS]
SPELLS = {s["number"]: s for s in _SPELLS}
