"""TEMPORARY adapter (replaced by the war-package branch)."""
from ..contract import GameSpec, Seating, UI, label, prompt as _prompt
from . import engine as _e
from .engine import (BLURB, KEY, MAX_SEATS, MIN_SEATS, OPTIONS, TITLE, VERSION, new, result)
from .rulings import RULINGS


def actions(state, viewer):
    if viewer == "facilitator":
        return []
    return [label(a, a["type"]) for a in _e.actions(state, viewer)]


def apply(state, actor, action):
    action = {k: v for k, v in action.items() if k != "label"}
    if action.get("type") == "end":
        raise _e.IllegalAction("illegal", "no")
    return _e.apply(state, actor, action)


def finish(state):
    return _e.apply(state, "facilitator", {"type": "end"})


def view(state, viewer):
    v = _e.view(state, viewer)
    w = v["public"]["waiting_for"]
    v["prompt"] = _prompt(w, "reveal")
    return v


def bot(view, actions, rng):
    return next((a for a in actions if a["type"] == "reveal"), None)


def timers(state):
    return [{"key": f"auto:{s}:{state['battle']}:{state['stage']}:{len(state['taps'])}", "after": d, "actor": s,
             "action": {"type": "reveal"}, "pace": True} for s, d in _e.pending_auto(state)]


def _figures(table):
    return {}


GAME = GameSpec(key="war", title="War", blurb=BLURB, version=VERSION, min_seats=2, max_seats=6,
                seating=Seating((2, 3, 4, 5, 6), 4, 2, 1, "Solo: each student against a computer"),
                options=tuple(OPTIONS), order_free=frozenset({"reveal", "autoplay"}), rulings=tuple(RULINGS),
                figures=_figures, start_label="Deal cards & start",
                ui=UI(phone="games/war/war.js", board="games/war/war.js"))
