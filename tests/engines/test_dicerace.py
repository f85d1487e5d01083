"""Dice Race (tests/testgames/dicerace): rule walk-throughs and seeded random games.

The property checks are written out here rather than taken from
tests/engines/properties.py, so that this file keeps working while that
generic harness is rewritten for the new contract.
"""
from __future__ import annotations

import json
import random

import pytest

from app.engines.contract import GameSpec, IllegalAction, Rng, entry_visible, strip_label
from testgames import dicerace
from testgames.dicerace.hidden import MARK, hidden_from

NAMES = ["Ana", "Ben", "Cara", "Dev"]
FAC, BOARD, SYSTEM = "facilitator", "board", "system"
TIME_UP = {"type": "time_up"}


def dumps(obj) -> str:
    return json.dumps(obj, sort_keys=True)


def fresh(n: int = 3, seed: int = 1, **options) -> dict:
    return dicerace.new(options, NAMES[:n], seed)


def act(state: dict, actor, action: dict) -> tuple[dict, list[dict]]:
    """apply, checking on the way that the input is left alone."""
    before = dumps(state)
    after, entries = dicerace.apply(state, actor, action)
    assert dumps(state) == before, "apply mutated its input"
    assert json.loads(dumps(after)) == after and all(e.get("text") for e in entries)
    return after, entries


def refused(state: dict, actor, action, code: str) -> str:
    before = dumps(state)
    with pytest.raises(IllegalAction) as err:
        dicerace.apply(state, actor, action)
    assert dumps(state) == before, "a refused action mutated the state"
    assert err.value.code == code, (err.value.code, err.value.message)
    assert err.value.message.endswith((".", "!", "?"))
    return err.value.message


def types(actions: list[dict]) -> list[str]:
    return [a["type"] for a in actions]


def next_face(state: dict) -> int:
    """The face the next roll will show (tests may look ahead; views never do)."""
    return Rng(state["rng"]).randint(1, 6)


def roll_all(state: dict) -> tuple[dict, list[dict]]:
    """Every seat that has not rolled yet rolls, in seat order."""
    entries = []
    for seat in list(dicerace.view(state, BOARD)["public"]["waiting_for"]):
        state, more = act(state, seat, {"type": "move"})
        entries += more
    return state, entries


def play_round(state: dict) -> tuple[dict, list[dict]]:
    state, entries = act(state, state["leader"], {"type": "start"})
    state, more = roll_all(state)
    return state, entries + more


def at_vote(n: int = 3, seed: int = 1) -> dict:
    """A fresh game with the first checkpoint vote open (nobody near the goal)."""
    state = fresh(n, seed, goal=30)
    for _ in range(3):
        state, _ = play_round(state)
    assert state["phase"] == "vote" and state["status"] == "playing", state["positions"]
    return state


def vote(state: dict, *choices) -> tuple[dict, list[dict]]:
    entries = []
    for seat, choice in enumerate(choices):
        if choice is not None:
            state, more = act(state, seat, {"type": "vote", "choice": choice})
            entries += more
    return state, entries


def rulings_in(entries: list[dict]) -> list[dict]:
    return [e for e in entries if e["t"] == "ruling"]


# =========================================================== the spec
def test_the_spec_says_everything_the_platform_needs():
    game = dicerace.GAME
    assert isinstance(game, GameSpec)
    assert (game.key, game.title, game.version) == ("dicerace", "Dice Race", "dicerace-1")
    assert (game.min_seats, game.max_seats) == (2, 4)
    seating = game.seating
    assert (seating.sizes, seating.default, seating.minimum) == ((2, 3, 4), 2, 2)
    assert seating.solo_computers == 1 and seating.solo_label == "Solo against the computer"
    assert game.order_free == frozenset({"move", "vote"})
    assert game.data_versions == {} and game.ui.phone is None and game.ui.board is None
    assert [r["id"] for r in game.rulings] == ["dicerace.tie_vote_is_steady", "dicerace.lesson_clock"]
    assert all(r["kind"] == "provisional" and r["title"] and r["text"] for r in game.rulings)
    assert 2 <= len(game.discussion) <= 3 and "vote_closed" in game.key_moments
    assert json.loads(json.dumps(game.to_json()))["options"][0]["default"] == 20
    for name in ("new", "actions", "apply", "view", "bot", "result", "finish", "timers"):
        assert callable(getattr(dicerace, name)), name


def test_registering_the_package_by_name_makes_it_a_game():
    from app import engines

    assert engines.register("testgames.dicerace") is dicerace.GAME
    assert engines.register("testgames.dicerace") is dicerace.GAME  # idempotent
    assert engines.get("dicerace") is dicerace
    assert "dicerace" in [g["key"] for g in engines.games()]
    assert engines.options_for("dicerace", {}) == {"goal": 20}
    assert engines.options_for("dicerace", {"preset": "quick"}) == {"goal": 10}
    with pytest.raises(IllegalAction):
        engines.options_for("dicerace", {"goal": 21})


# ======================================================= a first round
def test_a_new_race_waits_for_the_first_leader():
    state = fresh(3, seed=5)
    assert json.loads(dumps(state)) == state
    assert all(1 <= x <= 5 for x in state["lucky"])
    assert state["positions"] == [0, 0, 0] and state["phase"] == "leader"
    assert dicerace.actions(state, 0) == [{"type": "start", "label": "Start round 1"}]
    assert dicerace.actions(state, 1) == [] and dicerace.actions(state, BOARD) == []
    assert types(dicerace.actions(state, FAC)) == ["bonus"] * 3
    assert dicerace.timers(state) == [] and dicerace.result(state) is None
    ana = dicerace.view(state, 0)
    assert ana["prompt"] == {"waiting_for": [0], "text": "Start round 1."}
    assert dicerace.view(state, 1)["prompt"]["text"] == "Waiting for Ana to start round 1."


def test_seats_and_options_are_checked():
    with pytest.raises(IllegalAction):
        dicerace.new({}, ["Ana"], 1)
    with pytest.raises(IllegalAction):
        dicerace.new({}, NAMES + ["Eli"], 1)
    with pytest.raises(IllegalAction):
        dicerace.new({"goal": 7}, NAMES[:2], 1)
    assert fresh(2, goal=10)["goal"] == 10
    assert dicerace.new({}, NAMES[:2], "a string seed")["rng"] == dicerace.new({}, NAMES[:2], "a string seed")["rng"]


def test_a_round_starts_by_the_leader_then_everyone_rolls_in_any_order():
    state = fresh(3, seed=11)
    refused(state, 1, {"type": "start"}, "not_your_turn")
    refused(state, 0, {"type": "move"}, "illegal")
    state, entries = act(state, 0, {"type": "start"})
    assert entries[0]["t"] == "round" and entries[0]["text"] == "Ana starts round 1."
    assert [types(dicerace.actions(state, p)) for p in range(3)] == [["move"]] * 3
    assert dicerace.actions(state, 2)[0]["label"] == "Roll the die"
    refused(state, 0, {"type": "start"}, "illegal")
    for seat in (2, 0, 1):  # any order
        face = next_face(state)
        lucky = face == state["lucky"][seat]
        before = state["positions"][seat]
        state, entries = act(state, seat, {"type": "move"})
        assert state["positions"][seat] == before + face + lucky
        private = [e for e in entries if "visible_to" in e]
        assert private[0] == {"t": "roll", "text": f"You rolled a {face}.", "visible_to": [seat],
                              "round": 1, "seat": seat, "face": face}
        assert (len(private) == 2) == lucky
        public = [e for e in entries if "visible_to" not in e]
        assert public[0]["t"] == "advance" and public[0]["steps"] == face + lucky
        if seat != 1:
            refused(state, seat, {"type": "move"}, "not_your_turn")
    assert state["round"] == 2 and state["leader"] == 1 and state["phase"] == "leader"
    assert entries[-1]["t"] == "round_over"


def test_the_lucky_number_adds_one_step_and_only_its_owner_is_told():
    for seed in range(50):  # lucky numbers are 1..5: find a first roll that can be lucky
        state, _ = act(fresh(2, seed=seed), 0, {"type": "start"})
        face = next_face(state)
        if face <= 5:
            break
    state["lucky"][0] = face
    state, entries = act(state, 0, {"type": "move"})
    lucky = [e for e in entries if e["t"] == "lucky"]
    assert len(lucky) == 1 and lucky[0]["visible_to"] == [0] and lucky[0]["lucky"] == face
    advance = next(e for e in entries if e["t"] == "advance")
    assert advance["steps"] == face + 1 and "visible_to" not in advance
    assert "lucky" not in dumps(advance) and "lucky" not in advance["text"]
    assert not any(entry_visible(e, 1) or entry_visible(e, BOARD) for e in entries if e["t"] in ("roll", "lucky"))


def test_reaching_the_goal_waits_for_the_end_of_the_round():
    state = fresh(3, seed=2)
    state["positions"] = [19, 3, 4]
    state, _ = act(state, 0, {"type": "start"})
    state, _ = act(state, 0, {"type": "move"})
    assert state["status"] == "playing" and state["positions"][0] >= 20
    state, entries = roll_all(state)
    assert state["status"] == "ended" and entries[-1]["t"] == "game_over"
    res = dicerace.result(state)
    assert res == {"winners": [0], "ranking": sorted(range(3), key=lambda p: (-state["positions"][p], p)),
                   "scores": state["positions"], "reason": "goal"}
    assert entries[-1]["text"].startswith("Ana wins")
    assert all(dicerace.actions(state, v) == [] for v in (0, 1, 2, FAC, BOARD))
    assert dicerace.timers(state) == []
    refused(state, 1, {"type": "start"}, "game_over")
    assert dicerace.view(state, 2)["prompt"] == {"waiting_for": [], "text": "The race is over: Ana wins."}
    with pytest.raises(IllegalAction) as err:
        dicerace.finish(state)
    assert err.value.code == "game_over"


def test_players_level_at_the_top_share_the_win():
    state = fresh(3, seed=2)
    state["positions"] = [25, 25, 0]
    state, _ = act(state, 0, {"type": "start"})
    state["rolled"] = [0, 1]  # only Cara has still to roll; she cannot catch up
    state, _ = act(state, 2, {"type": "move"})
    assert dicerace.result(state)["winners"] == [0, 1]
    assert dicerace.result(state)["ranking"] == [0, 1, 2]


def test_the_first_to_twenty_wins_in_a_plain_race():
    state = fresh(2, seed=8)
    rounds = 0
    while state["status"] == "playing":
        if state["phase"] == "vote":
            state, _ = vote(state, "steady", "steady")
            state, _ = act(state, 0, {"type": "resume"})
            state, _ = act(state, 1, {"type": "resume"})
        else:
            state, _ = play_round(state)
            rounds += 1
    res = dicerace.result(state)
    assert res["reason"] == "goal" and max(state["positions"]) >= 20 and 3 <= rounds <= 20
    assert state["positions"][res["winners"][0]] == max(state["positions"])


# ============================================================ voting
def test_a_vote_opens_every_third_round_with_a_deadline():
    state = fresh(3, seed=4, goal=30)
    for expected_round in (1, 2):
        state, _ = play_round(state)
        assert state["phase"] == "leader" and state["round"] == expected_round + 1
    state, entries = play_round(state)
    assert state["phase"] == "vote" and state["checkpoint"] == 1 and entries[-1]["t"] == "vote_open"
    assert dicerace.timers(state) == [{"key": "vote:1", "after": 30, "actor": "system", "action": TIME_UP}]
    assert dicerace.actions(state, 1) == [
        {"type": "vote", "choice": "sprint", "label": "Vote sprint: next round's moves count double"},
        {"type": "vote", "choice": "steady", "label": "Vote steady: next round as usual"}]
    assert types(dicerace.actions(state, FAC))[-1] == "skip_vote"
    refused(state, 0, {"type": "move"}, "illegal")
    refused(state, 1, {"type": "start"}, "illegal")
    refused(state, 0, {"type": "resume"}, "illegal")


def test_votes_stay_secret_until_the_vote_closes():
    state = at_vote(3)
    state, entries = act(state, 1, {"type": "vote", "choice": "sprint"})
    mine = [e for e in entries if e["t"] == "my_vote"]
    assert mine and mine[0]["visible_to"] == [1] and mine[0]["choice"] == "sprint"
    public = [e for e in entries if "visible_to" not in e]
    assert public == [{"t": "vote", "text": "Ben has voted.", "checkpoint": 1, "seat": 1}]
    assert dicerace.view(state, 1)["private"]["vote"] == "sprint"
    for viewer in (0, 2, BOARD, FAC):
        seen = dicerace.view(state, viewer)
        assert seen["public"]["last_vote"] is None and seen["private"].get("vote") is None
        assert all(set(p) == {"seat", "name", "position", "rolled", "voted", "ready", "bonused"}
                   for p in seen["public"]["players"])
    assert dicerace.view(state, BOARD)["public"]["players"][1]["voted"] is True
    refused(state, 1, {"type": "vote", "choice": "steady"}, "not_your_turn")
    assert dicerace.actions(state, 1) == []


def test_a_majority_for_sprint_doubles_the_next_round():
    state = at_vote(3)
    state, entries = vote(state, "sprint", "steady", "sprint")
    closed = next(e for e in entries if e["t"] == "vote_closed")
    assert (closed["sprint"], closed["steady"], closed["decision"]) == (2, 1, "sprint")
    assert closed["votes"] == ["sprint", "steady", "sprint"] and not rulings_in(entries)
    assert state["phase"] == "break" and state["sprint"] and dicerace.timers(state) == []
    assert dicerace.actions(state, 2) == [{"type": "resume", "label": "I'm ready: go on to round 4"}]
    assert dicerace.view(state, 0)["prompt"]["text"] == "Round 4 will be sprint. Ready to go on?"
    for seat in (2, 0):
        state, _ = act(state, seat, {"type": "resume"})
        refused(state, seat, {"type": "resume"}, "not_your_turn")
    assert state["phase"] == "break"
    state, _ = act(state, 1, {"type": "resume"})
    assert state["phase"] == "leader" and state["round"] == 4 and state["leader"] == 0
    state, entries = act(state, 0, {"type": "start"})
    assert "Sprint" in entries[0]["text"]
    face = next_face(state)
    before = state["positions"][1]
    state, _ = act(state, 1, {"type": "move"})
    assert state["positions"][1] - before == 2 * (face + (face == state["lucky"][1]))
    state, _ = roll_all(state)
    assert state["sprint"] is False  # only the one round


@pytest.mark.parametrize("n, choices", [(2, ("sprint", "steady")), (4, ("sprint", "steady", "sprint", "steady"))])
def test_a_tied_vote_is_steady_and_flags_the_ruling(n, choices):
    state = at_vote(n)
    state, entries = vote(state, *choices)
    closed = next(e for e in entries if e["t"] == "vote_closed")
    assert closed["decision"] == "steady" and state["sprint"] is False
    flagged = rulings_in(entries)
    assert len(flagged) == 1 and flagged[0]["id"] == "dicerace.tie_vote_is_steady"
    assert flagged[0]["checkpoint"] == 1 and flagged[0]["sprint"] == flagged[0]["steady"] == n // 2
    assert "visible_to" not in flagged[0] and "tied" in flagged[0]["text"]
    assert flagged[0]["id"] in {r["id"] for r in dicerace.GAME.rulings}


def test_time_up_closes_the_vote_with_the_votes_cast_and_missing_ones_count_steady():
    state = at_vote(3)
    refused(state, 0, TIME_UP, "forbidden")
    refused(state, FAC, TIME_UP, "forbidden")
    assert TIME_UP not in [strip_label(a) for v in (0, 1, 2, FAC) for a in dicerace.actions(state, v)]
    state, _ = act(state, 0, {"type": "vote", "choice": "sprint"})
    state, entries = act(state, SYSTEM, TIME_UP)
    assert entries[0]["t"] == "time_up" and entries[0]["missing"] == [1, 2]
    assert entries[0]["text"] == "Time is up: Ben and Cara did not vote (counted as steady)."
    closed = entries[1]
    assert (closed["sprint"], closed["steady"], closed["missing"]) == (1, 0, 2)
    assert closed["decision"] == "steady" and closed["closed_by"] == "time" and not rulings_in(entries)
    assert state["phase"] == "break" and dicerace.timers(state) == []
    refused(state, SYSTEM, TIME_UP, "illegal")  # a late timer finds no vote open


def test_time_up_can_make_a_tie_too():
    state = at_vote(2)
    state, _ = act(state, 1, {"type": "vote", "choice": "sprint"})
    state, entries = act(state, SYSTEM, TIME_UP)
    assert [e["id"] for e in rulings_in(entries)] == ["dicerace.tie_vote_is_steady"]
    assert state["sprint"] is False


def test_time_up_with_no_votes_is_steady_and_a_sprint_majority_still_counts():
    state = at_vote(2)
    state, entries = act(state, SYSTEM, TIME_UP)  # nobody voted: all steady
    assert entries[1]["decision"] == "steady" and entries[1]["missing"] == 2
    state = at_vote(3)
    state, _ = vote(state, "sprint", "sprint", None)
    state, entries = act(state, SYSTEM, TIME_UP)
    assert entries[-1]["decision"] == "sprint" and state["sprint"] is True


def test_the_facilitator_can_skip_the_vote():
    state = at_vote(3)
    state, _ = act(state, 0, {"type": "vote", "choice": "sprint"})
    skip = next(a for a in dicerace.actions(state, FAC) if a["type"] == "skip_vote")
    assert "Skip the vote" in skip["label"]
    refused(state, 1, {"type": "skip_vote"}, "forbidden")
    state, entries = act(state, FAC, strip_label(skip))
    assert [e["t"] for e in entries] == ["skip_vote"] and state["phase"] == "break"
    assert state["sprint"] is False and state["last_vote"]["closed_by"] == "facilitator"
    assert state["votes"] == [None] * 3 and state["last_vote"]["votes"] is None  # Ana's vote is never told
    refused(state, FAC, {"type": "skip_vote"}, "illegal")


# ======================================================= the facilitator
def test_the_facilitators_bonus():
    state = fresh(3, seed=6)
    offered = dicerace.actions(state, FAC)
    assert offered[1] == {"type": "bonus", "seat": 1, "label": "Give Ben a +2 bonus"}
    state, entries = act(state, FAC, {"type": "bonus", "seat": 1})
    assert state["positions"] == [0, 2, 0]
    assert entries == [{"t": "bonus", "text": "The teacher gives Ben a +2 bonus: now on square 2.", "round": 1,
                        "seat": 1, "amount": 2, "position": 2}]
    assert {"type": "bonus", "seat": 1} not in [strip_label(a) for a in dicerace.actions(state, FAC)]
    refused(state, FAC, {"type": "bonus", "seat": 1}, "illegal")  # once a round
    refused(state, FAC, {"type": "bonus", "seat": 3}, "illegal")
    refused(state, FAC, {"type": "bonus", "seat": True}, "illegal")
    refused(state, 0, {"type": "bonus", "seat": 0}, "forbidden")
    refused(state, FAC, {"type": "move"}, "forbidden")
    assert dicerace.view(state, BOARD)["public"]["players"][1]["bonused"]
    state, _ = play_round(state)
    assert {"type": "bonus", "seat": 1} in [strip_label(a) for a in dicerace.actions(state, FAC)]


def test_finish_ends_the_race_with_a_result_by_position():
    state = fresh(4, seed=9)
    state, _ = play_round(state)
    state["positions"] = [4, 9, 9, 2]
    before = dumps(state)
    ended, entries = dicerace.finish(state)
    assert dumps(state) == before
    assert [e["t"] for e in entries] == ["end", "game_over"]
    assert dicerace.result(ended) == {"winners": [1, 2], "ranking": [1, 2, 0, 3], "scores": [4, 9, 9, 2],
                                      "reason": "ended_by_facilitator"}
    assert ended["status"] == "ended" and dicerace.actions(ended, 1) == []
    assert dicerace.timers(ended) == []
    # Ending during an open vote closes it: no deadline is left behind.
    voting = at_vote(3)
    ended, _ = dicerace.finish(voting)
    assert dicerace.timers(ended) == [] and dicerace.result(ended)["reason"] == "ended_by_facilitator"


# ======================================================= refusing things
@pytest.mark.parametrize("action", [None, "move", [], {}, {"type": 3}, {"type": "fly"}, {"type": "end"},
                                    {"type": "start", "round": 1}, {"type": "vote"},
                                    {"type": "vote", "choice": "fast"}, {"kind": "move"}])
def test_malformed_actions_are_illegal(action):
    refused(fresh(3), 0, action, "illegal")


def test_unknown_actors_are_forbidden():
    state = fresh(3)
    refused(state, BOARD, {"type": "start"}, "forbidden")
    refused(state, 3, {"type": "start"}, "forbidden")
    refused(state, True, {"type": "start"}, "forbidden")
    refused(state, "seat:0", {"type": "start"}, "forbidden")
    with pytest.raises(IllegalAction) as err:
        dicerace.view(state, 7)
    assert err.value.code == "forbidden"


def test_a_labelled_action_is_the_same_action():
    state = fresh(2)
    offered = dicerace.actions(state, 0)[0]
    assert dicerace.apply(state, 0, offered) == dicerace.apply(state, 0, strip_label(offered))


# ============================================================ views
def test_views_show_each_seat_only_its_own_secrets():
    state = at_vote(3, seed=21)
    state, _ = act(state, 2, {"type": "vote", "choice": "sprint"})
    for viewer in (0, 1, 2, BOARD, FAC):
        seen = dicerace.view(state, viewer)
        assert set(seen) == {"public", "private", "prompt"}
        assert set(seen["prompt"]) == {"waiting_for", "text"} and seen["prompt"]["waiting_for"] == [0, 1]
        assert str(state["rng"]) not in dumps(seen)
        if isinstance(viewer, int):
            assert seen["private"]["lucky"] == state["lucky"][viewer] and seen["private"]["seat"] == viewer
        else:
            assert seen["private"] == {}
        assert "lucky" not in dumps(seen["public"])
    assert dicerace.view(state, 0)["prompt"]["text"].startswith("Checkpoint 1: vote sprint")
    assert dicerace.view(state, 2)["prompt"]["text"] == "Checkpoint 1: waiting for Ana and Ben to vote."


def test_figures_for_the_class_overview():
    state = at_vote(3)
    state, _ = act(state, 0, {"type": "vote", "choice": "steady"})
    table = {"public": dicerace.view(state, BOARD)["public"],
             "players": [{"seat": p, "name": n, "computer": False, "connected": True}
                         for p, n in enumerate(NAMES[:3])], "result": None}
    figures = dicerace.GAME.figures(table)
    assert figures["progress"] == {"value": max(state["positions"]), "goal": 30, "label": "Furthest along",
                                   "detail": "Round 3, first to 30 wins"}
    assert figures["turn"]["seats"] == [1, 2] and figures["turn"]["names"] == ["Ben", "Cara"]
    assert [s["score"] for s in figures["scores"]] == state["positions"]
    assert figures["alerts"] == [{"kind": "vote", "level": "info",
                                  "text": "Vote open at checkpoint 1: 1 of 3 voted"}]
    state, _ = vote(state, None, "steady", "steady")
    table["public"] = dicerace.view(state, BOARD)["public"]
    assert dicerace.GAME.figures(table)["alerts"] == []
    assert dicerace.GAME.figures({"public": {}, "players": [], "result": None}) == {}  # a lobby table
    ended, _ = dicerace.finish(state)
    table.update(public=dicerace.view(ended, BOARD)["public"], result=dicerace.result(ended))
    assert dicerace.GAME.figures(table)["turn"] == {"seats": [], "names": [], "text": "The race is over."}


# ============================================================ the bot
def test_the_bot_picks_a_listed_action_without_its_label():
    state = fresh(2, seed=4)
    assert dicerace.bot(dicerace.view(state, 1), dicerace.actions(state, 1), random.Random(0)) is None
    choice = dicerace.bot(dicerace.view(state, 0), dicerace.actions(state, 0), random.Random(0))
    assert choice == {"type": "start"}
    state = at_vote(2)
    state["positions"] = [3, 12]
    picks = [dicerace.bot(dicerace.view(state, 0), dicerace.actions(state, 0), random.Random(k))["choice"]
             for k in range(50)]
    assert picks.count("sprint") > 30  # behind: mostly sprint
    picks = [dicerace.bot(dicerace.view(state, 1), dicerace.actions(state, 1), random.Random(k))["choice"]
             for k in range(50)]
    assert picks.count("steady") > 30  # ahead: mostly steady


def test_computers_alone_finish_a_race():
    for seed in range(20):
        n = 2 + seed % 3
        state = fresh(n, seed=seed)
        rngs = [random.Random(seed * 10 + p) for p in range(n)]
        for _ in range(500):
            if state["status"] != "playing":
                break
            moved = False
            for seat in range(n):
                listed = dicerace.actions(state, seat)
                choice = dicerace.bot(dicerace.view(state, seat), listed, rngs[seat])
                if choice is not None:
                    assert choice in [strip_label(a) for a in listed]
                    state, _ = act(state, seat, choice)
                    moved = True
            assert moved, "the computers are stuck"
        assert dicerace.result(state)["reason"] == "goal"


# ================================================== seeded random games
PRIVATE_KEYS = {"lucky", "face", "choice"}  # log fields that tell one seat's secret


def viewers(n: int) -> list:
    return list(range(n)) + [BOARD, FAC]


def legal_moves(state: dict, n: int) -> dict[str, list[tuple]]:
    return {"seat": [(p, a) for p in range(n) for a in dicerace.actions(state, p)],
            "facilitator": [(FAC, a) for a in dicerace.actions(state, FAC)],
            "system": [(t["actor"], t["action"]) for t in dicerace.timers(state)]}


def choose(moves: dict, rng: random.Random) -> tuple:
    """Mostly players; now and then the teacher or the clock."""
    r = rng.random()
    if moves["system"] and r < 0.15:
        return rng.choice(moves["system"])
    if moves["facilitator"] and r < 0.3:
        return rng.choice(moves["facilitator"])
    return rng.choice(moves["seat"] or moves["facilitator"] or moves["system"])


def replay(options: dict, seats: list[str], seed, history: list[tuple]) -> dict:
    state = dicerace.new(options, seats, seed)
    for actor, action in history:
        state, _ = dicerace.finish(state) if actor == "finish" else dicerace.apply(state, actor, action)
    return state


def clone_json(obj):
    return json.loads(json.dumps(obj))


def check_listed_actions(state: dict, n: int) -> None:
    before = dumps(state)
    assert dicerace.actions(state, BOARD) == []
    for actor in list(range(n)) + [FAC]:
        for action in dicerace.actions(state, actor):
            assert isinstance(action.get("label"), str) and action["label"].strip(), action
            try:
                dicerace.apply(state, actor, strip_label(action))
            except IllegalAction as err:  # pragma: no cover - reported as a failure
                raise AssertionError(f"listed {action!r} for {actor!r} refused: {err.code}: {err.message}")
    for actor, action in [(FAC, {"type": "__nothing__"}), (BOARD, {"type": "move"}), (0, {"type": "bonus", "seat": 0})]:
        with pytest.raises(IllegalAction):
            dicerace.apply(state, actor, action)
    assert dumps(state) == before, "apply mutated its input"


def check_views(state: dict, n: int) -> None:
    waiting = dicerace.view(state, BOARD)["public"]["waiting_for"]
    for viewer in viewers(n):
        seen = dicerace.view(state, viewer)
        assert set(seen) == {"public", "private", "prompt"}
        assert json.loads(dumps(seen)) == seen
        assert set(seen["prompt"]) == {"waiting_for", "text"} and seen["prompt"]["text"]
        assert seen["prompt"]["waiting_for"] == waiting
        if isinstance(viewer, int):
            assert seen["private"]["seat"] == viewer and seen["private"]["lucky"] == state["lucky"][viewer]
            assert bool(dicerace.actions(state, viewer)) == (viewer in waiting)
        else:
            assert seen["private"] == {}
        # Nothing this viewer may not know changes what it sees, and no marked secret shows.
        marked = hidden_from(state, viewer)
        assert dicerace.view(marked, viewer) == seen, f"view({viewer!r}) depends on a secret"
        assert dicerace.actions(marked, viewer) == dicerace.actions(state, viewer)
        text = dumps(seen)
        assert str(MARK)[:5] not in text and str(state["rng"]) not in text


def check_log(entries: list[dict], n: int) -> None:
    for entry in entries:
        assert entry.get("t") and entry.get("text"), entry
        if PRIVATE_KEYS & set(entry):
            assert entry.get("visible_to") == [entry["seat"]], f"{entry} tells a secret to others"
        for viewer in viewers(n):
            if entry_visible(entry, viewer) and viewer != entry.get("seat"):
                assert not PRIVATE_KEYS & set(entry)


def check_marked_log(state: dict, actor, action, n: int) -> None:
    """Apply the same move to the state with every secret marked: no entry a
    viewer may see shows another seat's marked secret or the generator state."""
    for viewer in viewers(n):
        marked = hidden_from(state, viewer, rng_value=MARK * 1_000_003)
        try:
            after, entries = dicerace.apply(marked, actor, action)
        except IllegalAction:  # pragma: no cover
            raise AssertionError(f"{action!r} refused on the marked state")
        for entry in entries:
            if entry_visible(entry, viewer):
                text = dumps(entry)
                assert str(MARK)[:5] not in text, f"{entry} shows a secret to {viewer!r}"
                assert str(after["rng"]) not in text


def flip(choice):
    return {"sprint": "steady", "steady": "sprint"}.get(choice, choice)


def check_votes_secret(state: dict, actor, action, n: int) -> None:
    """While a vote stays open, what a viewer sees (the log included) never
    depends on the choices of the others: flip them all and compare."""
    if state["phase"] != "vote":
        return
    after, entries = dicerace.apply(state, actor, action)
    if after["phase"] != "vote":
        return  # the vote closed: every choice is public now
    for viewer in viewers(n):
        variant = clone_json(state)
        variant["votes"] = [v if p == viewer else flip(v) for p, v in enumerate(variant["votes"])]
        changed = dict(action, choice=flip(action["choice"])) if action["type"] == "vote" and actor != viewer \
            else action
        other_after, other_entries = dicerace.apply(variant, actor, changed)
        assert dicerace.view(other_after, viewer) == dicerace.view(after, viewer)
        assert [e for e in other_entries if entry_visible(e, viewer)] == \
               [e for e in entries if entry_visible(e, viewer)], f"{viewer!r} learns someone's vote"


def check_result(state: dict, n: int) -> None:
    res = dicerace.result(state)
    assert state["status"] == "ended" and res is not None
    assert sorted(res["ranking"]) == list(range(n)) and res["scores"] == state["positions"]
    top = max(state["positions"])
    assert res["winners"] == [p for p in res["ranking"] if state["positions"][p] == top]
    assert res["reason"] in {"goal", "ended_by_facilitator"}
    if res["reason"] == "goal":
        assert top >= state["goal"]
    for viewer in viewers(n):
        assert dicerace.actions(state, viewer) == []
    assert dicerace.timers(state) == []


def play_random(seed: int, n: int, goal: int, finish_chance: float = 0.0, max_steps: int = 2_000):
    rng = random.Random(seed)
    options = {"goal": goal}
    state = dicerace.new(options, NAMES[:n], seed)
    history, logged, seen_rng = [], [], {state["rng"]}
    for step in range(max_steps):
        assert json.loads(dumps(state)) == state, "state is not plain JSON"
        check_views(state, n)
        if state["status"] != "playing":
            break
        check_listed_actions(state, n)
        if rng.random() < finish_chance:
            before = dumps(state)
            state, entries = dicerace.finish(state)
            assert dumps(state) != before
            history.append(("finish", None))
        else:
            actor, action = choose(legal_moves(state, n), rng)
            action = strip_label(action)
            check_marked_log(state, actor, action, n)
            check_votes_secret(state, actor, action, n)
            state, entries = act(state, actor, action)
            history.append((actor, action))
        check_log(entries, n)
        logged += entries
        seen_rng.add(state["rng"])
    else:
        raise AssertionError(f"seed {seed}: no end after {max_steps} steps")
    check_result(state, n)
    log_text = dumps(logged)
    assert not any(str(x) in log_text for x in seen_rng), "the generator state is in the log"
    assert replay(options, NAMES[:n], seed, history) == state, "replay differs"
    return state, history, logged


@pytest.mark.parametrize("n", [2, 3, 4])
def test_seeded_random_races_keep_every_promise(n):
    reasons, rulings, kinds = set(), 0, set()
    for seed in range(60):
        goal = (10, 20, 30)[seed % 3]
        state, history, logged = play_random(1000 * n + seed, n, goal, finish_chance=0.01 if seed % 4 == 0 else 0)
        reasons.add(dicerace.result(state)["reason"])
        rulings += len(rulings_in(logged))
        kinds.update(a["type"] for _actor, a in history if a)
    assert reasons == {"goal", "ended_by_facilitator"}
    assert kinds >= {"start", "move", "vote", "resume", "bonus", "time_up", "skip_vote"}, kinds
    assert (rulings > 0) == (n % 2 == 0)  # an odd table can never tie


# =========================================================== bot privacy
def random_states(count: int, seed: int):
    """States met in random races, at every phase."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        n = rng.choice([2, 3, 4])
        state = dicerace.new({"goal": 30}, NAMES[:n], rng.getrandbits(32))
        while state["status"] == "playing" and len(found) < count:
            if rng.random() < 0.3:
                found.append(state)
            actor, action = choose(legal_moves(state, n), rng)
            state, _ = dicerace.apply(state, actor, strip_label(action))
    return found


def test_what_the_bot_cannot_see_never_changes_its_choice():
    rng = random.Random(99)
    checked = 0
    for state in random_states(300, seed=7):
        n = len(state["names"])
        for seat in range(n):
            listed = dicerace.actions(state, seat)
            for _ in range(3):
                changed = hidden_from(state, seat, rng=rng)
                assert dicerace.view(changed, seat) == dicerace.view(state, seat)
                assert dicerace.actions(changed, seat) == listed
                for k in range(3):
                    mine = dicerace.bot(dicerace.view(state, seat), listed, random.Random(k))
                    theirs = dicerace.bot(dicerace.view(changed, seat), dicerace.actions(changed, seat),
                                          random.Random(k))
                    assert mine == theirs
                    if mine is not None:
                        assert mine in [strip_label(a) for a in listed]
                        checked += 1
    assert checked > 100
