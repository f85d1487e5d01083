"""Storm War's ruling catalogue (rulings.json), loaded and checked by app/engines/catalogue.py."""
from pathlib import Path

from ..catalogue import Catalogue

CATALOGUE = Catalogue(Path(__file__).with_name("rulings.json"), "storm_war")
RULINGS_VERSION, RULINGS, rule = CATALOGUE.version, CATALOGUE.rulings, CATALOGUE.rule
