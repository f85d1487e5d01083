"""War's ruling catalogue (rulings.json), loaded and checked by app/engines/catalogue.py."""
from __future__ import annotations

from pathlib import Path

from ..catalogue import Catalogue, load_catalogue as _load

_PATH = Path(__file__).with_name("rulings.json")
CATALOGUE = Catalogue(_PATH, "war")
RULINGS_VERSION, RULINGS = CATALOGUE.version, CATALOGUE.rulings
rule = CATALOGUE.rule


def load_catalogue(path: Path = _PATH) -> tuple[str, list[dict]]:
    return _load(path, "war")


def load_rulings(path: Path = _PATH) -> list[dict]:
    return load_catalogue(path)[1]
