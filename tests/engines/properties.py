"""Generic property checks for any engine that follows the engine contract.

`play_random_game` plays one game with uniformly random legal actions (taken
from every seat's and the facilitator's `actions()`), checking on the way:

* `apply` never mutates its input (on success or on a refused action);
* every state survives a JSON round trip unchanged;
* every action listed by `actions()` is accepted by `apply`;
* `view` works for every seat, the board and the facilitator, and is JSON;
* no id returned by `secret_ids(state, viewer)` appears in that viewer's view
  or in any log entry that viewer may see (entries whose `visible_to` leaves
  the viewer out are not visible to it), including entries from earlier steps;
* the game ends within `max_steps`, after which nobody has an action left;
* replaying (options, seats, seed, recorded actions) gives the final state.

Moves are chosen uniformly at random unless a `choose(moves, rng)` policy is
given (for example "lowest seat first", the way bots tap in turn).

Cheap checks run on every step; the heavier ones (every listed action, every
view) run every `full_every` steps and on the final state, so long games stay
affordable. Pass `full_every=1` to run everything on every step.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from app.engines.contract import IllegalAction, entry_visible

FACILITATOR = "facilitator"
BOARD = "board"


@dataclass
class Played:
    """What a random game left behind."""

    state: dict
    history: list = field(default_factory=list)   # [(actor, action), ...]
    log: list = field(default_factory=list)       # every log entry, in order

    @property
    def steps(self) -> int:
        return len(self.history)


def dumps(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False)


def strings_in(obj: Any, out: set | None = None) -> set:
    """Every string anywhere in a JSON-like value (dict keys included)."""
    out = set() if out is None else out
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            out.add(x)
        elif isinstance(x, dict):
            out.update(k for k in x if isinstance(k, str))
            stack.extend(x.values())
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
    return out


def viewers(n_seats: int) -> list:
    return list(range(n_seats)) + [BOARD, FACILITATOR]


def legal_moves(engine, state: dict, n_seats: int, exclude: Iterable[str] = ()) -> list[tuple]:
    """Every (actor, action) pair any seat or the facilitator may play now."""
    exclude = set(exclude)
    return [(actor, action)
            for actor in list(range(n_seats)) + [FACILITATOR]
            for action in engine.actions(state, actor)
            if action.get("type") not in exclude]


def replay(engine, options: dict, seats: list[str], seed, history: list[tuple]) -> dict:
    state = engine.new(options, seats, seed)
    for actor, action in history:
        state, _ = engine.apply(state, actor, action)
    return state


def check_no_secrets(strings: set, secrets: set, where: str) -> None:
    leaked = strings & secrets
    assert not leaked, f"{where} shows secret ids {sorted(leaked)[:5]}"


def check_views(engine, state: dict, n_seats: int, secret_ids: Callable | None) -> None:
    for viewer in viewers(n_seats):
        seen = engine.view(state, viewer)
        assert set(seen) == {"public", "private"}, f"view({viewer!r}) keys are {sorted(seen)}"
        assert json.loads(dumps(seen)) == seen, f"view({viewer!r}) is not plain JSON"
        if viewer in (BOARD, FACILITATOR):
            assert seen["private"] == {}, f"{viewer} has private data"
        if secret_ids is not None:
            check_no_secrets(strings_in(seen), set(secret_ids(state, viewer)), f"view({viewer!r})")


def check_listed_actions(engine, state: dict, n_seats: int) -> None:
    """Every action on offer is accepted, and `apply` leaves its input alone."""
    before = dumps(state)
    assert engine.actions(state, BOARD) == [], "the board only shows the game"
    for actor, action in legal_moves(engine, state, n_seats):
        try:
            engine.apply(state, actor, action)
        except IllegalAction as err:  # pragma: no cover - reported as a failure
            raise AssertionError(f"listed action {action!r} for {actor!r} refused: {err.code}: {err.message}")
    # A refused action must not change anything either.
    try:
        engine.apply(state, FACILITATOR, {"type": "__not_an_action__"})
    except IllegalAction:
        pass
    else:
        raise AssertionError("apply accepted a made-up action type")
    assert dumps(state) == before, "apply mutated its input"


def play_random_game(engine, *, seats: list[str], seed, options: dict | None = None,
                     choice_seed=None, exclude: Iterable[str] = (), max_steps: int = 10_000,
                     secret_ids: Callable | None = None, invariant: Callable | None = None,
                     full_every: int = 1, choose: Callable | None = None) -> Played:
    """Play one random legal game, checking the contract on the way (see module doc).

    `invariant(state)` is an extra engine-specific check run on every state.
    `secret_ids(state, viewer)` returns the ids that viewer must not see now.
    """
    n = len(seats)
    options = dict(options or {})
    chooser = random.Random(seed if choice_seed is None else choice_seed)
    state = engine.new(options, seats, seed)
    assert json.loads(dumps(state)) == state, "new() state is not plain JSON"
    played = Played(state)
    log_strings = {v: set() for v in viewers(n)}  # strings each viewer has seen in the log

    def check(state: dict, step: int, new_entries: list[dict]) -> None:
        if invariant is not None:
            invariant(state)
        full = step % full_every == 0 or engine.result(state) is not None
        for viewer in viewers(n):
            for entry in new_entries:
                if entry_visible(entry, viewer):
                    strings_in(entry, log_strings[viewer])
            if secret_ids is not None and (full or new_entries):
                where = f"log seen by {viewer!r} (step {step})"
                check_no_secrets(log_strings[viewer], set(secret_ids(state, viewer)), where)
        if full:
            check_views(engine, state, n, secret_ids)
            check_listed_actions(engine, state, n)

    check(state, 0, [])
    while engine.result(state) is None:
        assert played.steps < max_steps, f"game (seed {seed}) did not end within {max_steps} steps"
        moves = legal_moves(engine, state, n, exclude)
        assert moves, f"game (seed {seed}) is stuck: nobody can act but there is no result"
        actor, action = chooser.choice(moves) if choose is None else choose(moves, chooser)
        before = dumps(state)
        new_state, entries = engine.apply(state, actor, action)
        assert dumps(state) == before, f"apply mutated its input at step {played.steps + 1}"
        after = dumps(new_state)
        assert json.loads(after) == new_state, "state does not survive a JSON round trip"
        assert json.loads(dumps(entries)) == entries, "log entries are not plain JSON"
        for entry in entries:
            assert isinstance(entry.get("t"), str) and isinstance(entry.get("text"), str), entry
        played.history.append((actor, action))
        played.log.extend(entries)
        state = played.state = new_state
        check(state, played.steps, entries)

    for viewer in viewers(n):
        assert engine.actions(state, viewer) == [], f"{viewer!r} can still act after the end"
    again = replay(engine, options, seats, seed, played.history)
    assert dumps(again) == dumps(state), f"replaying game (seed {seed}) gave a different state"
    return played
