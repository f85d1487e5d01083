"""Dice Race: a small fifth game that lives only under tests/.

It exists to test the design's promise that a game is one package: registered
with `app.engines.register("testgames.dicerace")` (the app's `GAME_MODULES`
setting), it plays end to end (lobby, sockets, class session, replay, report)
without a change to any platform file. See engine.py for the rules.
"""
from .engine import (GAME, actions, apply, bot, figures, finish, new, result, timers, view)

__all__ = ["GAME", "new", "actions", "apply", "view", "bot", "result", "finish", "timers", "figures"]
