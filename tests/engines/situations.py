"""Helpers for the rule tests: play one move on a rigged state and check what
the rules say about it. `Moves(engine)` binds them to one game's engine."""
from __future__ import annotations

import json

import pytest

from app.engines.contract import IllegalAction, strip_label


def rulings(log: list[dict]) -> list[str]:
    """The ids of the `ruling` entries of a move's log."""
    return [e["id"] for e in log if e["t"] == "ruling"]


class Moves:
    def __init__(self, engine):
        self.engine = engine

    def act(self, state: dict, actor, **action) -> tuple[dict, list[dict]]:
        """Apply a move; the state it was given must come back unchanged."""
        before = json.dumps(state, sort_keys=True)
        after, log = self.engine.apply(state, actor, action)
        assert json.dumps(state, sort_keys=True) == before, "apply mutated its input"
        return after, log

    def offered(self, state: dict, viewer) -> list[dict]:
        """The actions on offer, without their labels."""
        return [strip_label(a) for a in self.engine.actions(state, viewer)]

    def refused(self, state: dict, actor, code: str | None = None, **action) -> IllegalAction:
        """The move is refused (with `code`, when given) and changes nothing."""
        before = json.dumps(state, sort_keys=True)
        with pytest.raises(IllegalAction) as err:
            self.engine.apply(state, actor, action)
        assert json.dumps(state, sort_keys=True) == before
        if code:
            assert err.value.code == code, err.value.message
        return err.value
