"""War's engine contract as the platform calls it (app/engines/contract.py):
a solo run (Tournament, Survival: runs.py) or a match of any other mode
(engine.py, with its variants).

Only this module knows both: runs.py plays its matches through engine.py, and
engine.py knows nothing of runs, so neither imports the other in a circle.
"""
from __future__ import annotations

from . import engine, runs
from .engine import result, upgrade


def new(options: dict, seats: list[str], seed: int) -> dict:
    if (options or {}).get("mode") in engine.RUN_MODES:
        return runs.new(options, seats, seed)
    return engine.new(options, seats, seed)


def actions(state: dict, viewer) -> list[dict]:
    return runs.actions(state, viewer) if "run" in state else engine.actions(state, viewer)


def apply(state: dict, actor, action: dict) -> tuple[dict, list[dict]]:
    return runs.apply(state, actor, action) if "run" in state else engine.apply(state, actor, action)


def view(state: dict, viewer) -> dict:
    return runs.view(state, viewer) if "run" in state else engine.view(state, viewer)


def views(state: dict, viewers: list) -> dict:
    """A run is played alone: its views have nothing to share."""
    return {viewer: runs.view(state, viewer) for viewer in viewers} if "run" in state \
        else engine.views(state, viewers)


def bot(view: dict, actions: list[dict], rng) -> dict | None:
    """A run's view carries `public["run"]`; a match's never does."""
    return runs.bot(view, actions, rng) if "run" in view["public"] else engine.bot(view, actions, rng)


def finish(state: dict, cause: str = "teacher") -> tuple[dict, list[dict]]:
    return runs.finish(state, cause) if "run" in state else engine.finish(state, cause)


def timers(state: dict) -> list[dict]:
    return runs.timers(state) if "run" in state else engine.timers(state)


__all__ = ["new", "actions", "apply", "view", "views", "bot", "result", "finish", "timers", "upgrade"]
