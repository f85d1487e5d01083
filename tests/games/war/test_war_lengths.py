"""War's match lengths, one situation at a time, on rigged decks: first to
30/40/45 cards, 3/5/10-minute clocks, first to 25/50/100 points, full
elimination, the default that fits a lesson (picked by the number of players),
their tie-breaks, rulings and snapshot upgrade."""
from __future__ import annotations

import pytest

from app.engines import war
from app.engines.contract import IllegalAction

from .test_war_rules import NAMES, act, overview, ruling_ids, texts, total_cards
from .test_war_rules import rig as war_rig

TIME_UP = {"type": "time_up"}
SYSTEM = "system"


def rig(length: str, *decks: str, rng: int = 1) -> dict:
    """test_war_rules.rig, with a match length."""
    return war_rig(*decks, rng=rng, length=length)


def time_up(state: dict) -> tuple[dict, list[dict]]:
    return war.apply(state, SYSTEM, TIME_UP)


# --------------------------------------------------------------------------
# The option, the catalogue and the view

def test_length_option_labels_read_well_on_the_create_form():
    from app.facilitator import choice_label
    option = next(o for o in war.GAME.options if o.key == "length")
    assert option.default == "fits_a_lesson" and option.label == "Match length"
    assert [choice_label(c) for c in option.choices] == [
        "Fits a lesson", "Full elimination", "First to 30 cards", "First to 40 cards", "First to 45 cards",
        "3 minutes", "5 minutes", "10 minutes",
        "First to 25 points", "First to 50 points", "First to 100 points"]
    assert war.new({"mode": "classic"}, NAMES[:2], 1)["options"]["length"] == "full_elimination"
    with pytest.raises(IllegalAction):
        war.new({"length": "first_to_20_cards"}, NAMES[:2], 1)


def first_battle(state: dict) -> list[dict]:
    """Everyone reveals once: the log of the first battle's resolution."""
    log = []
    for seat in range(len(state["names"])):
        state, entries = war.apply(state, seat, {"type": "reveal"})
        log += entries
    return log


def test_the_default_length_fits_a_lesson_by_the_number_of_players():
    from app.engines.war import engine as E
    assert E.LESSON_LENGTHS == {2: "full_elimination", 3: "first_to_45_cards", 4: "first_to_45_cards",
                                5: "full_elimination", 6: "full_elimination"}
    for n, length in E.LESSON_LENGTHS.items():
        state = war.new({}, NAMES[:n], 1)
        assert state["options"]["length"] == length
        assert war.view(state, "board")["public"]["length"]["choice"] == length
        said = [e for e in first_battle(state) if e.get("id") == "war.length_fits_a_lesson"]
        # Said once, at the first battle, where the table's size chose a card target.
        assert said == ([] if length == "full_elimination" else
                        [{**said[0], "players": n, "length": length, "battle": 1}])
    four = war.new({}, NAMES[:4], 1)
    assert war.view(four, "board")["public"]["length"]["label"] == "First to 45 cards"
    # A length the teacher chose is played as chosen, without the ruling.
    chosen = war.new({"length": "full_elimination"}, NAMES[:4], 1)
    assert chosen["options"]["length"] == "full_elimination"
    assert "war.length_fits_a_lesson" not in ruling_ids(first_battle(chosen))
    assert "Fits a lesson" in next(o for o in war.GAME.options if o.key == "length").help
    assert war.GAME.presets["classic"]["length"] == "fits_a_lesson"


def test_new_rulings_are_catalogued():
    text = {r["id"]: r for r in war.GAME.rulings}
    assert {"war.cards_target", "war.points_target", "war.time_up", "war.length_fits_a_lesson"} <= set(text)
    assert "card count" not in text["war.time_up"]["text"]   # spelled out for teachers
    for rid in ("war.cards_target", "war.points_target", "war.time_up"):
        body = text[rid]["text"]
        assert "cards held, the total rank value of those cards, battle wins, then the rank of their " \
               "final face-up card" in body, rid
    assert "1 point for each war" in text["war.points_target"]["text"]
    assert "ends at once" in text["war.time_up"]["text"]


@pytest.mark.parametrize("length, kind, target, clock", [
    ("full_elimination", "elimination", None, None),
    ("first_to_40_cards", "cards", 40, None),
    ("5_minutes", "minutes", None, 300),
    ("first_to_50_points", "points", 50, None),
])
def test_the_board_shows_the_match_length(length, kind, target, clock):
    pub = war.view(war.new({"length": length}, NAMES[:2], 3), "board")["public"]
    assert pub["length"] == {"choice": length, "kind": kind, "target": target,
                             "label": length.replace("_", " ").capitalize(), "clock_seconds": clock,
                             "clock_key": None if clock is None else f"clock:{clock}"}
    assert [p["points"] for p in pub["players"]] == [0, 0]


# --------------------------------------------------------------------------
# Full elimination: today's game, no clock, no target

def test_full_elimination_ignores_cards_and_points():
    state = rig("full_elimination", "K " + "3 " * 40, "2 " + "4 " * 10)
    state["points"] = [99, 0]
    state, log = act(state, 0, 1)
    assert war.result(state) is None and war.timers(state) == []
    refused = pytest.raises(IllegalAction)
    with refused as err:
        time_up(state)
    assert err.value.code == "illegal"
    state, log = act(rig("full_elimination", "K 3", "2"), 0, 1)
    assert war.result(state)["reason"] == "elimination"


# --------------------------------------------------------------------------
# First to 30, 40 or 45 cards

@pytest.mark.parametrize("target", [30, 40, 45])
def test_first_to_hold_the_target_wins_after_the_battle(target):
    length = f"first_to_{target}_cards"
    # Ana holds target - 1 cards and wins two: she holds the target.
    state = rig(length, "K " + "3 " * (target - 2), "2 " + "4 " * (52 - target))
    state, log = act(state, 0)
    assert war.result(state) is None           # only after the battle is resolved
    state, log = act(state, 1)
    res = war.result(state)
    assert res == {"winners": [0], "ranking": [0, 1], "scores": [target, 52 - target],
                   "reason": "cards_target"}
    entry = next(e for e in log if e.get("id") == "war.cards_target")
    assert entry["target"] == target and entry["seats"] == [0] and entry["cards"] == [target, 52 - target]
    assert f"Ana reached {target} cards." in texts(log) and texts(log)[-1] == "Ana wins the game!"
    assert ruling_ids(log)[-1] == "war.cards_target"


@pytest.mark.parametrize("target", [30, 40, 45])
def test_one_card_short_of_the_target_plays_on(target):
    state = rig(f"first_to_{target}_cards", "K " + "3 " * (target - 3), "2 " + "4 " * (51 - target))
    state, log = act(state, 0, 1)
    assert war.result(state) is None and len(state["decks"][0]) == target - 1
    assert "war.cards_target" not in ruling_ids(log)


def test_the_target_is_checked_after_the_whole_battle_and_the_rest_rank_by_the_tie_break():
    # Three players: Ana (29 cards) and Ben tie, and the war is fought out first.
    state = rig("first_to_30_cards", "9 2 2 2 K " + "3 " * 24, "9 3 3 3 Q 4 4", "5 " + "6 " * 12)
    state, log = act(state, 0, 1, 2)           # Ana and Ben tie: war
    assert war.result(state) is None and len(state["pot"]) == 3
    state, log = act(state, 0, 1)              # Ana takes 11: 24 + 11 = 35 cards
    res = war.result(state)
    assert res["reason"] == "cards_target" and res["winners"] == [0]
    # Cara (12 cards) above Ben (2 cards).
    assert res["ranking"] == [0, 2, 1] and res["scores"] == [35, 2, 12]
    assert total_cards(state) == 49


def test_a_knock_out_before_the_target_still_ends_by_elimination():
    state, _ = act(rig("first_to_45_cards", "K 3 3", "2"), 0, 1)
    assert war.result(state)["reason"] == "elimination"


# --------------------------------------------------------------------------
# First to 25, 50 or 100 points

def test_a_battle_scores_one_point_plus_one_per_war():
    state = rig("first_to_25_points", "5 2 2 2 7 2 2 2 K 9 9", "5 3 3 3 7 3 3 3 Q 4 4")
    state, _ = act(state, 0, 1, 0, 1, 0, 1)    # two wars: 3 points
    assert state["points"] == [3, 0] and state["wins"] == [1, 0]
    state, _ = act(state, 1, 0)                # a plain battle: 1 point
    assert state["points"] == [4, 0]
    assert war.view(state, "board")["public"]["players"][0]["points"] == 4


@pytest.mark.parametrize("target", [25, 50, 100])
def test_first_to_the_points_target_wins(target):
    state = rig(f"first_to_{target}_points", "5 2 2 2 K 9 8", "5 3 3 3 Q 4 A")
    state["points"] = [target - 3, target - 1]
    state, log = act(state, 0, 1, 0, 1)        # a war: Ana + 2 = target - 1
    assert war.result(state) is None and state["points"] == [target - 1, target - 1]
    state, log = act(state, 0, 1)              # Ana's 9 beats the 4
    res = war.result(state)
    assert res == {"winners": [0], "ranking": [0, 1], "scores": [target, target - 1],
                   "reason": "points_target"}
    entry = next(e for e in log if e.get("id") == "war.points_target")
    assert entry["points"] == [target, target - 1] and entry["seats"] == [0]
    assert f"Ana reached {target} points." in texts(log)


def test_a_carried_pot_adds_no_points():
    state, _ = act(rig("first_to_25_points", "9 2", "9 3", "5 6 6", "4 7 7"), 0, 1, 2, 3)
    assert state["carried"] == 6 and state["points"] == [0, 0, 0, 0]
    state, _ = act(state, 2, 3)
    assert state["points"] == [0, 0, 0, 1]


def test_points_rank_first_in_a_points_match_when_the_teacher_ends_it():
    state = rig("first_to_50_points", "K K K K", "2 2", "3 3 3")
    state["points"] = [1, 5, 3]
    state, log = act(state, "finish")
    res = war.result(state)
    assert res["ranking"] == [1, 2, 0] and res["winners"] == [1] and res["scores"] == [1, 5, 3]
    # Equal points: the usual tie-break order (cards held first).
    state = rig("first_to_50_points", "K K K K", "2 2", "3 3 3")
    state["points"] = [4, 4, 4]
    state, _ = act(state, "finish")
    assert war.result(state)["ranking"] == [0, 2, 1]


# --------------------------------------------------------------------------
# 3, 5 or 10 minutes: the server-side clock

@pytest.mark.parametrize("length, seconds", [("3_minutes", 180), ("5_minutes", 300), ("10_minutes", 600)])
def test_the_clock_is_listed_from_the_start_under_one_key(length, seconds):
    clock = {"key": f"clock:{seconds}", "after": seconds, "actor": "system", "action": TIME_UP}
    state = rig(length, "K 3 5", "2 4 6")
    assert war.timers(state) == [clock]
    state, _ = act(state, 0, (1, {"type": "autoplay", "speed": 2}))
    listed = war.timers(state)
    assert listed[0] == clock and [t["key"] for t in listed[1:]] == ["auto:1:1:0:2"]
    state, _ = act(state, 1)
    assert war.timers(state)[0] == clock       # same key: the platform keeps its due time
    state, log = time_up(state)
    assert war.result(state)["reason"] == "time_up" and war.timers(state) == []
    assert f"Time is up after {seconds // 60} minutes." in texts(log)


def test_time_up_ends_at_once_mid_war_and_returns_the_unfinished_battle():
    state = rig("3_minutes", "5 2 2 2 K", "5 3 3 3 Q")
    state, _ = act(state, 0, 1, 0)             # a war; Ana has put up her four cards
    assert len(state["pot"]) == 6
    state, log = time_up(state)
    assert state["pot"] == [] and total_cards(state) == 10
    # Five cards each: Ana's ranks total 5+2+2+2+13 = 24, Ben's 5+3+3+3+12 = 26.
    assert war.result(state) == {"winners": [1], "ranking": [1, 0], "scores": [5, 5], "reason": "time_up"}
    entry = next(e for e in log if e.get("id") == "war.time_up")
    assert entry["returned"] == [5, 1] and entry["cards"] == [5, 5] and entry["minutes"] == 3
    assert [e["t"] for e in log] == ["time_up", "ruling", "game_over"]


def test_time_up_leaves_a_carried_pot_to_nobody():
    state, _ = act(rig("5_minutes", "9 2", "9 3", "5 6 6", "4 7 7"), 0, 1, 2, 3)
    assert state["carried"] == 6
    state, log = act(state, 2)                 # Cara's 6 goes back to her; the carried six stay
    state, log = time_up(state)
    assert len(state["pot"]) == 6 and [len(d) for d in state["decks"]] == [0, 0, 2, 2]
    res = war.result(state)
    # Two cards each: Dev's 7 + 7 = 14 beats Cara's 6 + 6 = 12.
    assert res["winners"] == [3] and res["ranking"][:2] == [3, 2]


@pytest.mark.parametrize("decks, wins, last_up, ranking, winners", [
    (("K 2 2", "A 3"), [0, 0], [0, 0], [0, 1], [0]),     # card count first
    (("K 2", "Q 2"), [0, 5], [0, 14], [0, 1], [0]),      # then total rank value
    (("K 2", "2 K"), [1, 3], [14, 0], [1, 0], [1]),      # then battle wins
    (("K 2", "2 K"), [2, 2], [9, 4], [0, 1], [0]),       # then the final reveal
    (("K 2", "2 K"), [2, 2], [7, 7], [0, 1], [0, 1]),    # still tied: shared win
])
def test_time_up_tie_break_order_case_by_case(decks, wins, last_up, ranking, winners):
    state = rig("10_minutes", *decks)
    state["wins"], state["last_up"] = wins, last_up
    state, log = time_up(state)
    res = war.result(state)
    assert res["ranking"] == ranking and res["winners"] == winners and res["reason"] == "time_up"
    assert ruling_ids(log) == ["war.time_up"]


def test_time_up_during_sudden_death_ends_at_once():
    state = rig("3_minutes", " ".join(["K"] * 25), " ".join(["2"] * 25))
    state["battle"] = 5000
    state, log = act(state, 0, 1)
    assert state["sudden"]["left"] == 20
    state, log = time_up(state)
    assert war.result(state) == {"winners": [0], "ranking": [0, 1], "scores": [26, 24], "reason": "time_up"}


@pytest.mark.parametrize("actor, action, code", [
    (0, TIME_UP, "illegal"),                    # a seat cannot stop the clock
    ("facilitator", TIME_UP, "forbidden"),
    (SYSTEM, {"type": "reveal"}, "forbidden"),   # the clock only says time is up
    (SYSTEM, {"type": "time_up", "x": 1}, "illegal"),
])
def test_only_the_clock_says_time_is_up(actor, action, code):
    state = rig("3_minutes", "K 3", "2 4")
    with pytest.raises(IllegalAction) as err:
        war.apply(state, actor, action)
    assert err.value.code == code
    state, _ = time_up(state)
    with pytest.raises(IllegalAction) as err:
        time_up(state)
    assert err.value.code == "game_over"


def test_figures_follow_the_match_length():
    fig = overview(rig("first_to_30_cards", "K K", "Q 2"))
    assert fig["progress"]["goal"] == 30 and fig["progress"]["label"] == "Ana holds 2 of 30 cards"
    state = rig("first_to_25_points", "K K", "Q 2")
    state["points"] = [3, 7]
    fig = overview(state)
    assert fig["progress"] == {"value": 7, "goal": 25, "label": "Ben has 7 of 25 points", "detail": "Battle 1"}
    assert [s["label"] for s in fig["scores"]] == ["3 points", "7 points"]
    fig = overview(rig("3_minutes", "K K", "Q 2"))
    assert fig["progress"]["detail"] == "Battle 1 · 3 minutes match"


# --------------------------------------------------------------------------
# Older snapshots

def test_a_snapshot_from_war_classic_2_plays_on_as_full_elimination():
    state, _ = act(war.new({"mode": "classic"}, ["Ana", "Ben"], 7), 0, 1)
    old = {k: v for k, v in state.items() if k != "points"}
    old.update(version="war-classic-2", options={"mode": "classic"})
    upgraded = war.upgrade(old)
    assert upgraded["version"] == war.GAME.version == "war-4"
    assert upgraded["options"] == war.new({}, ["Ana", "Ben"], 1)["options"]
    assert upgraded["options"]["length"] == "full_elimination"
    assert upgraded["points"] == [0, 0] and "points" not in old and old["options"] == {"mode": "classic"}
    assert war.upgrade(upgraded) is upgraded
    assert war.timers(upgraded) == []
    after, _ = war.apply(upgraded, 0, {"type": "reveal"})
    assert after["battle"] == 2


def test_a_snapshot_from_war_classic_3_takes_the_new_options_defaults():
    state = war.new({"length": "first_to_30_cards"}, ["Ana", "Ben"], 7)
    old = dict(state, version="war-classic-3",
               options={"mode": "classic", "length": "first_to_30_cards"})
    upgraded = war.upgrade(old)
    assert upgraded["version"] == "war-4"
    assert upgraded["options"] == state["options"]
    assert upgraded["options"]["length"] == "first_to_30_cards"
    assert old["options"] == {"mode": "classic", "length": "first_to_30_cards"}
    after, _ = war.apply(upgraded, 1, {"type": "reveal"})
    assert after["taps"] == [1]
