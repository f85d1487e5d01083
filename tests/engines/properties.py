"""Generic property checks for any engine that follows the engine contract.

`play_random_game` plays one game with uniformly random legal actions (taken
from every seat's and the facilitator's `actions()`, plus the facilitator's
`finish` when the package has one), checking on the way:

* every listed action carries a non-empty string "label", and `apply` accepts
  it without the label (the platform strips labels with `strip_label`);
* `apply` (and `finish`) never mutate their input, on success or refusal;
* every state survives a JSON round trip unchanged;
* `view` works for every seat, the board and the facilitator, is JSON, and
  has exactly "public", "private" and "prompt", the prompt being
  {"waiting_for": [seats], "text": str};
* no id returned by `secret_ids(state, viewer)` appears in that viewer's view
  or in any log entry that viewer may see (entries whose `visible_to` leaves
  the viewer out are not visible to it), including entries from earlier steps;
* `timers(state)` (when the package has it) lists well-formed timers whose
  actions are on offer to their actor, and a timer's key never comes back
  once the move it was waiting for has been made;
* the bot (seeing only its seat) picks one of that seat's listed actions, or
  None, and when `scramble` is given its choice does not change when
  everything the seat cannot see is scrambled (`check_bot_privacy`, one seat
  in turn on each full check);
* the game's `GAME.figures` (when set) returns well-formed figures;
* the game ends within `max_steps`, after which nobody has an action left;
* replaying (options, seats, seed, recorded moves) gives the final state.

Moves are chosen uniformly at random unless a `choose(moves, rng)` policy is
given (for example "lowest seat first", the way bots tap in turn).

Cheap checks run on every step; the heavier ones (every listed action, every
view, the bot) run every `full_every` steps and on the final state, so long
games stay affordable. Pass `full_every=1` to run everything on every step.
"""
from __future__ import annotations

import json
import numbers
import pkgutil
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import orjson

from app import engines
from app.engines.contract import Hidden, IllegalAction, entry_visible, strip_label

FACILITATOR = "facilitator"
BOARD = "board"
FINISH = {"type": "__finish__"}   # in a history: the facilitator called engine.finish(state)


def modules_of_test_games() -> list[str]:
    """The games that live only under tests/testgames/, by dotted name (the app's
    GAME_MODULES setting): a new one there is checked like an installed game."""
    import testgames

    return [f"testgames.{info.name}" for info in pkgutil.iter_modules(testgames.__path__) if info.ispkg]


def hidden_modes() -> list[tuple[str, Hidden]]:
    """(game key, Hidden) for every mode every game declares it hides things in
    (GameSpec.hidden): the installed games and the test games. The privacy checks
    run over these, so none of them names a game."""
    for name in modules_of_test_games():
        engines.register(name)
    return [(key, hidden) for key in engines.keys() for hidden in engines.spec(key).hidden]


def mode_name(key: str, hidden: Hidden) -> str:
    """"war power", or "wizard" for a game with one mode: names a mode in test ids."""
    return f"{key} {hidden.label}" if hidden.label else key


@dataclass
class Played:
    """What a random game left behind."""

    state: dict
    history: list = field(default_factory=list)   # [(actor, action), ...] (actions without labels)
    log: list = field(default_factory=list)       # every log entry, in order
    states: list = field(default_factory=list)    # a sample of the states passed through

    @property
    def steps(self) -> int:
        return len(self.history)


def dumps(obj: Any) -> str:
    """JSON with sorted keys, to compare and copy states: orjson (the sweeps write every
    state several times), or json for what orjson refuses (an int of more than 64 bits, a
    key that is not a string: the plain-JSON checks then see it come back different)."""
    try:
        return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:
        return json.dumps(obj, sort_keys=True, ensure_ascii=False)


def round_trip(obj: Any) -> Any:
    """obj written as JSON and read back, as a state goes to the database and comes back:
    equal to obj exactly when obj is plain JSON. orjson both ways (every step of a sweep
    does this twice; json's parser was a tenth of a War sweep), json for what orjson will
    not write (it reads an int of more than 64 bits back as a float, so it never sees one)."""
    try:
        return orjson.loads(orjson.dumps(obj))
    except TypeError:
        return json.loads(json.dumps(obj))


def json_strings(text: str) -> set:
    """Every string in a JSON text, dict keys included (as `strings_in` finds them in its
    value). A text without a backslash writes each string as it is between two quotes,
    so a split finds them all; one with escapes is parsed."""
    if "\\" not in text:
        return set(text.split('"')[1::2])
    return strings_in(json.loads(text))


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


def legal_moves(engine, state: dict, n_seats: int, exclude: Iterable[str] = (),
                actions_of: dict | None = None) -> list[tuple]:
    """Every (actor, action) pair any seat or the facilitator may play now,
    actions as listed (with labels), plus ("facilitator", FINISH) when the
    package can `finish` a running game (exclude "finish" to leave it out).
    `actions_of`: each viewer's actions in this state, when already asked."""
    exclude = set(exclude)
    actions_of = actions_of or {actor: engine.actions(state, actor) for actor in list(range(n_seats)) + [FACILITATOR]}
    moves = [(actor, action)
             for actor in list(range(n_seats)) + [FACILITATOR]
             for action in actions_of[actor]
             if action.get("type") not in exclude]
    if hasattr(engine, "finish") and "finish" not in exclude and engine.result(state) is None:
        moves.append((FACILITATOR, FINISH))
    return moves


def filled(action: dict) -> dict:
    """A listed action with its free-text fields (listed as "") filled in, as a person would."""
    return {k: ("A few words." if v == "" else v) for k, v in action.items()}


def fills(chosen: dict, listed: dict) -> bool:
    """`chosen` is the listed action, with any free-text field (listed as "") filled in."""
    return chosen.keys() == listed.keys() and all(
        chosen[k] == v or (v == "" and isinstance(chosen[k], str) and chosen[k].strip()) for k, v in listed.items())


def play(engine, state: dict, actor, action: dict) -> tuple[dict, list[dict]]:
    """One move the way the platform makes it: labels stripped; FINISH calls finish."""
    if action == FINISH:
        return engine.finish(state)
    return engine.apply(state, actor, strip_label(action))


def replay(engine, options: dict, seats: list[str], seed, history: list[tuple]) -> dict:
    state = engine.new(options, seats, seed)
    for actor, action in history:
        state, _ = play(engine, state, actor, action)
    return state


def check_no_secrets(strings: set, secrets: set, where: str) -> None:
    leaked = strings & secrets
    assert not leaked, f"{where} shows secret ids {sorted(leaked)[:5]}"


def check_prompt(seen: dict, viewer, n_seats: int) -> None:
    prompt = seen["prompt"]
    assert isinstance(prompt, dict) and set(prompt) == {"waiting_for", "text"}, \
        f"view({viewer!r}) prompt is {prompt!r}"
    assert isinstance(prompt["waiting_for"], list), f"view({viewer!r}) prompt waiting_for is not a list"
    assert all(isinstance(p, int) and not isinstance(p, bool) and 0 <= p < n_seats
               for p in prompt["waiting_for"]), f"view({viewer!r}) waits for {prompt['waiting_for']!r}"
    assert isinstance(prompt["text"], str) and prompt["text"].strip(), f"view({viewer!r}) prompt has no text"


def check_views(engine, state: dict, n_seats: int, secret_ids: Callable | None) -> None:
    if hasattr(engine, "views"):  # the optional batch (the platform's views after a change): the same views
        every = viewers(n_seats)
        together = engine.views(state, every)
        assert list(together) == every, f"views() answered for {list(together)!r}, not {every!r}"
        for viewer in every:
            assert together[viewer] == engine.view(state, viewer), f"views() and view({viewer!r}) differ"
    for viewer in viewers(n_seats):
        seen = engine.view(state, viewer)
        assert set(seen) == {"public", "private", "prompt"}, f"view({viewer!r}) keys are {sorted(seen)}"
        text = dumps(seen)
        assert round_trip(seen) == seen, f"view({viewer!r}) is not plain JSON"
        check_prompt(seen, viewer, n_seats)
        if viewer in (BOARD, FACILITATOR):
            assert seen["private"] == {}, f"{viewer} has private data"
        if secret_ids is not None:
            check_no_secrets(json_strings(text), set(secret_ids(state, viewer)), f"view({viewer!r})")


def check_labels(engine, state: dict, n_seats: int, actions_of: dict | None = None) -> None:
    for actor in viewers(n_seats):
        for action in (actions_of[actor] if actions_of else engine.actions(state, actor)):
            text = action.get("label")
            assert isinstance(text, str) and text.strip(), f"{action!r} for {actor!r} has no label"


def check_listed_actions(engine, state: dict, n_seats: int) -> None:
    """Every action on offer is accepted without its label, and nothing
    (`apply`, `finish`) changes its input."""
    before = dumps(state)
    assert engine.actions(state, BOARD) == [], "the board only shows the game"
    check_labels(engine, state, n_seats)
    for actor, action in legal_moves(engine, state, n_seats):
        try:
            new_state, _ = play(engine, state, actor, filled(action))
        except IllegalAction as err:  # pragma: no cover - reported as a failure
            raise AssertionError(f"listed action {action!r} for {actor!r} refused: {err.code}: {err.message}")
        if action == FINISH:
            assert engine.result(new_state) is not None, "finish() left the game without a result"
            for viewer in viewers(n_seats):
                assert engine.actions(new_state, viewer) == [], f"{viewer!r} can act after finish()"
    # A refused action must not change anything either.
    for actor in (FACILITATOR, 0):
        try:
            engine.apply(state, actor, {"type": "__not_an_action__"})
        except IllegalAction:
            pass
        else:
            raise AssertionError("apply accepted a made-up action type")
    assert dumps(state) == before, "apply mutated its input"


def check_timers(engine, state: dict, n_seats: int, actions_of: dict | None = None) -> list[dict]:
    """`timers(state)` is a list of {key, after, actor, action}, each action on offer.
    `actions_of`: each viewer's actions in this state, when already asked."""
    if not hasattr(engine, "timers"):
        return []
    listed = engine.timers(state)
    assert isinstance(listed, list), "timers() must return a list"
    keys = set()
    for timer in listed:
        assert isinstance(timer, dict) and {"key", "after", "actor", "action"} <= set(timer) \
            <= {"key", "after", "actor", "action", "pace"}, timer
        assert isinstance(timer.get("pace", False), bool), timer
        assert isinstance(timer["key"], str) and timer["key"], timer
        assert timer["key"] not in keys, f"two timers share the key {timer['key']!r}"
        keys.add(timer["key"])
        after = timer["after"]
        assert isinstance(after, numbers.Real) and not isinstance(after, bool) and after >= 0, timer
        actor = timer["actor"]
        assert actor == "system" or (isinstance(actor, int) and not isinstance(actor, bool)
                                     and 0 <= actor < n_seats), timer
        assert isinstance(timer["action"], dict) and "label" not in timer["action"], timer
        if actor != "system":
            offered = [strip_label(a) for a in (actions_of[actor] if actions_of else engine.actions(state, actor))]
            assert timer["action"] in offered, f"timer {timer!r} is not on offer to {actor!r}"
    assert round_trip(listed) == listed, "timers are not plain JSON"
    return listed


def check_bot_choice(engine, state: dict, seat: int, seed: int = 0):
    """The bot, seeing only its seat, picks a listed action or None."""
    offered = engine.actions(state, seat)
    choice = engine.bot(engine.view(state, seat), offered, random.Random(seed))
    if choice is not None:
        assert any(fills(strip_label(choice), strip_label(a)) for a in offered), \
            f"bot for seat {seat} chose {choice!r}, which is not on offer"
    return None if choice is None else strip_label(choice)


def check_bot_privacy(engine, state: dict, seat: int, scramble: Callable, *, tries: int = 3,
                      seeds: Iterable[int] = (0, 1)) -> None:
    """The bot's choice for `seat` depends only on what that seat may see.

    `scramble(state, seat, rng) -> state` returns a copy of `state` with
    everything `seat` cannot see permuted (other hands, deck order, the
    generator state...). For each bot seed, the choice on a scrambled state
    must equal the choice on the real one; the seat's view must be unchanged
    too (otherwise the scramble touched something the seat can see, or the
    view leaks it).
    """
    before = dumps(state)
    seen = engine.view(state, seat)
    offered = engine.actions(state, seat)
    expected = {k: check_bot_choice(engine, state, seat, k) for k in seeds}
    rng = random.Random(dumps([seat, state.get("rng")]))
    for _ in range(tries):
        other = scramble(state, seat, rng)
        assert dumps(state) == before, "scramble() changed the state it was given"
        assert engine.view(other, seat) == seen, f"the scramble changed what seat {seat} sees"
        assert engine.actions(other, seat) == offered, f"the scramble changed seat {seat}'s actions"
        for k, choice in expected.items():
            got = engine.bot(engine.view(other, seat), engine.actions(other, seat), random.Random(k))
            got = None if got is None else strip_label(got)
            assert got == choice, (f"bot for seat {seat} chose {got!r} on a scrambled state "
                                   f"but {choice!r} on the real one (seed {k})")


def check_figures(engine, state: dict, n_seats: int, names: list[str]) -> None:
    spec = getattr(engine, "GAME", None)
    if spec is None or spec.figures is None:
        return
    table = {"public": engine.view(state, BOARD)["public"],
             "players": [{"seat": p, "name": names[p], "computer": False, "connected": True}
                         for p in range(n_seats)],
             "result": engine.result(state)}
    # The projected class board gets figures from the board view alone; the teacher's
    # overview also passes the facilitator's view while the game waits on a decision.
    teacher = dict(table, facilitator=engine.view(state, FACILITATOR)["public"]) \
        if engine.actions(state, FACILITATOR) else None
    for given in filter(None, (table, teacher)):
        figures = spec.figures(given)
        assert isinstance(figures, dict) and set(figures) <= {"progress", "turn", "scores", "alerts", "queue",
                                                              "lines", "standings"}, figures
        assert round_trip(figures) == figures, "figures are not plain JSON"
        for alert in figures.get("alerts") or []:
            assert {"kind", "level", "text"} <= set(alert), alert
        assert all(isinstance(line, str) and line for line in figures.get("lines") or []), figures
        for row in figures.get("standings") or []:   # class leader-board rows (see GameSpec)
            assert set(row) == {"seat", "rank_key", "columns"} and 0 <= row["seat"] < n_seats, row
            assert row["rank_key"] and all(isinstance(x, numbers.Real) for x in row["rank_key"]), row
            assert all(set(c) == {"label", "value"} and isinstance(c["value"], str) for c in row["columns"]), row
        for item in figures.get("queue") or []:
            assert {"title"} <= set(item) <= {"title", "detail", "quote"}, item
        if given is table:
            assert not figures.get("queue"), "a decision queue built without the teacher's view"


def play_random_game(engine, *, seats: list[str], seed, options: dict | None = None,
                     choice_seed=None, exclude: Iterable[str] = (), max_steps: int = 10_000,
                     secret_ids: Callable | None = None, invariant: Callable | None = None,
                     full_every: int = 1, choose: Callable | None = None,
                     scramble: Callable | None = None, keep_states: int = 0) -> Played:
    """Play one random legal game, checking the contract on the way (see module doc).

    `invariant(state)` is an extra engine-specific check run on every state.
    `secret_ids(state, viewer)` returns the ids that viewer must not see now.
    `scramble(state, seat, rng)` enables `check_bot_privacy` on full-check steps.
    `keep_states` keeps about that many states, spread over the game, in `Played.states`.
    """
    n = len(seats)
    options = dict(options or {})
    chooser = random.Random(seed if choice_seed is None else choice_seed)
    state = engine.new(options, seats, seed)
    assert round_trip(state) == state, "new() state is not plain JSON"
    played = Played(state)
    log_strings = {v: set() for v in viewers(n)}  # strings each viewer has seen in the log
    spent_timers: set[str] = set()                 # keys of timers whose move has been made

    def check(state: dict, step: int, new_entries: list[dict]) -> tuple[list[dict], dict]:
        """Checks `state`; returns its timers and each viewer's actions (asked once a step:
        the engine is pure, so the move's choice and the checks share them)."""
        if invariant is not None:
            invariant(state)
        full = step % full_every == 0 or engine.result(state) is not None
        for entry in new_entries:
            found = strings_in(entry)
            for viewer in viewers(n):
                if entry_visible(entry, viewer):
                    log_strings[viewer] |= found
        for viewer in viewers(n):
            if secret_ids is not None and (full or new_entries):
                where = f"log seen by {viewer!r} (step {step})"
                check_no_secrets(log_strings[viewer], set(secret_ids(state, viewer)), where)
        actions_of = {viewer: engine.actions(state, viewer) for viewer in viewers(n)}
        listed = check_timers(engine, state, n, actions_of)
        back = spent_timers & {t["key"] for t in listed}
        assert not back, f"timer keys {sorted(back)} came back after their move was made (step {step})"
        if full:
            check_views(engine, state, n, secret_ids)
            check_listed_actions(engine, state, n)
            check_figures(engine, state, n, seats)
            for seat in range(n):
                check_bot_choice(engine, state, seat)
            if scramble is not None:   # one seat per check, in turn (a dedicated test does more)
                check_bot_privacy(engine, state, step % n, scramble, tries=1, seeds=(0,))
        else:
            check_labels(engine, state, n, actions_of)
        return listed, actions_of

    listed, actions_of = check(state, 0, [])
    before = round_trip(state)   # a JSON copy: `apply` must leave `state` equal to it
    while engine.result(state) is None:
        assert played.steps < max_steps, f"game (seed {seed}) did not end within {max_steps} steps"
        moves = legal_moves(engine, state, n, exclude, actions_of)
        assert moves, f"game (seed {seed}) is stuck: nobody can act but there is no result"
        actor, action = chooser.choice(moves) if choose is None else choose(moves, chooser)
        action = action if action == FINISH else filled(strip_label(action))
        timers_now = listed
        new_state, entries = play(engine, state, actor, action)
        assert state == before, f"apply mutated its input at step {played.steps + 1}"
        before = round_trip(new_state)
        assert before == new_state, "state does not survive a JSON round trip"
        assert round_trip(entries) == entries, "log entries are not plain JSON"
        for entry in entries:
            assert isinstance(entry.get("t"), str) and isinstance(entry.get("text"), str), entry
        spent_timers.update(t["key"] for t in timers_now if t["actor"] == actor and t["action"] == action)
        played.history.append((actor, action))
        played.log.extend(entries)
        state = played.state = new_state
        if keep_states and (played.steps % max(1, full_every) == 0):
            played.states.append(state)
        listed, actions_of = check(state, played.steps, entries)

    for viewer in viewers(n):
        assert engine.actions(state, viewer) == [], f"{viewer!r} can still act after the end"
    if hasattr(engine, "timers"):
        assert engine.timers(state) == [], "timers are still listed after the end"
    if hasattr(engine, "finish"):
        try:
            engine.finish(state)
        except IllegalAction as err:
            assert err.code == "game_over", err.code
        else:
            raise AssertionError("finish() accepted a game that is over")
    again = replay(engine, options, seats, seed, played.history)
    assert dumps(again) == dumps(state), f"replaying game (seed {seed}) gave a different state"
    if keep_states and len(played.states) > keep_states:
        step = len(played.states) / keep_states
        played.states = [played.states[int(i * step)] for i in range(keep_states)]
    return played
