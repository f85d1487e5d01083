"""The Wizard duel's ruling catalogue (rulings.json), loaded and checked by app/engines/catalogue.py."""
from pathlib import Path

from ..catalogue import Catalogue

CATALOGUE = Catalogue(Path(__file__).with_name("rulings.json"), "wizard")
RULINGS_VERSION, RULINGS, rule = CATALOGUE.version, CATALOGUE.rulings, CATALOGUE.rule
