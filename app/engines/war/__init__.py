"""War (Classic mode): the pure game engine. See engine.py for the rules flow."""
from .engine import (BLURB, KEY, MAX_SEATS, MIN_SEATS, OPTIONS, TITLE, VERSION, actions, apply,
                     bot, new, pending_auto, result, view)
from .rulings import RULINGS

__all__ = ["KEY", "TITLE", "VERSION", "MIN_SEATS", "MAX_SEATS", "BLURB", "OPTIONS", "RULINGS",
           "new", "actions", "apply", "view", "bot", "result", "pending_auto"]
