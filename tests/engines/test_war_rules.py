"""War (Classic) rules, one situation at a time, on rigged decks."""
from __future__ import annotations

import json
from collections import Counter

import pytest

from app.engines import war
from app.engines.contract import IllegalAction
from app.engines.war import engine as E
from app.engines.war.cards import rank_of
from app.engines.war.rulings import load_rulings

from .properties import strings_in

NAMES = ["Ana", "Ben", "Cara", "Dev", "Eli", "Fay"]
REVEAL = {"type": "reveal"}
END = {"type": "end"}
CATALOGUE = {r["id"] for r in war.RULINGS}


# --------------------------------------------------------------------------
# Helpers

def rig(*decks: str, rng: int = 1) -> dict:
    """A game whose decks are given top first, e.g. rig("Q 3", "5 4").

    A token is a rank character (2-9, T, J, Q, K, A: suits are handed out in
    turn) or a full code such as "AS".
    """
    used = Counter()
    codes = []
    for deck in decks:
        row = []
        for tok in deck.split():
            if len(tok) == 1:
                row.append(tok + "SHDC"[used[tok] % 4])
                used[tok] += 1
            else:
                row.append(tok)
        codes.append(row)
    return E.new_with_decks({"mode": "classic"}, NAMES[:len(decks)], codes, rng)


def act(state: dict, *moves) -> tuple[dict, list[dict]]:
    """Apply moves in order: a seat number means that seat reveals."""
    entries = []
    for move in moves:
        actor, action = (move, REVEAL) if isinstance(move, int) else move
        state, new = war.apply(state, actor, action)
        entries += new
    return state, entries


def ranks(state: dict, seat: int) -> list[int]:
    return [rank_of(state["faces"][cid]) for cid in state["decks"][seat]]


def ruling_ids(entries: list[dict]) -> list[str]:
    return [e["id"] for e in entries if e["t"] == "ruling"]


def texts(entries: list[dict]) -> list[str]:
    return [e["text"] for e in entries]


def refused(code: str, state: dict, actor, action) -> str:
    before = json.dumps(state, sort_keys=True)
    with pytest.raises(IllegalAction) as err:
        war.apply(state, actor, action)
    assert err.value.code == code, err.value.message
    assert json.dumps(state, sort_keys=True) == before, "a refused action changed the state"
    message = err.value.message
    assert message[0].isupper() and message.endswith(".") and "_" not in message
    return message


def total_cards(state: dict) -> int:
    return sum(len(d) for d in state["decks"]) + len(state["pot"])


# --------------------------------------------------------------------------
# Module interface and catalogue

def test_module_exports_the_contract():
    assert sorted(war.__all__) == sorted([
        "KEY", "TITLE", "VERSION", "MIN_SEATS", "MAX_SEATS", "BLURB", "OPTIONS", "RULINGS",
        "new", "actions", "apply", "view", "bot", "result", "pending_auto"])
    assert (war.KEY, war.TITLE, war.VERSION) == ("war", "War", "war-classic-1")
    assert (war.MIN_SEATS, war.MAX_SEATS) == (2, 6)
    assert [(o.key, o.default, o.choices) for o in war.OPTIONS] == [("mode", "classic", ("classic",))]
    assert war.BLURB.endswith(".")


def test_ruling_catalogue_is_valid():
    ids = [r["id"] for r in war.RULINGS]
    assert len(ids) == len(set(ids))
    assert {"war.commitment_order_is_tap_order", "war.sole_survivor_takes_pot", "war.pot_carries_over",
            "war.simultaneous_elimination", "war.face_down_shown_on_win", "war.repeat_shuffle",
            "war.sudden_death", "war.facilitator_end"} <= set(ids)
    for r in war.RULINGS:
        assert r["kind"] in ("provisional", "reconstruction") and r["text"].strip()


@pytest.mark.parametrize("bad", [
    [{"id": "war.a", "kind": "provisional", "text": "One."}, {"id": "war.a", "kind": "provisional", "text": "Two."}],
    [{"id": "war.a", "kind": "provisional", "text": "  "}],
    [{"id": "war.a", "kind": "guess", "text": "One."}],
    [{"id": "a", "kind": "provisional", "text": "One."}],
    [],
])
def test_ruling_catalogue_rejects_broken_files(tmp_path, bad):
    path = tmp_path / "rulings.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(ValueError):
        load_rulings(path)


# --------------------------------------------------------------------------
# Setting up and determinism

def test_new_deals_a_full_deck_round_robin():
    state = war.new({"mode": "classic"}, NAMES[:5], 42)
    assert [len(d) for d in state["decks"]] == [11, 11, 10, 10, 10]
    assert len(set(state["faces"].values())) == 52
    assert sorted({rank_of(c) for c in state["faces"].values()}) == list(range(2, 15))
    assert state["status"] == "playing" and state["battle"] == 1
    assert json.loads(json.dumps(state)) == state


def test_same_seed_same_game_and_different_seed_different_deal():
    a = war.new({"mode": "classic"}, NAMES[:3], 7)
    assert a == war.new({"mode": "classic"}, NAMES[:3], 7)
    assert a["faces"] != war.new({"mode": "classic"}, NAMES[:3], 8)["faces"]
    moves = []
    x = y = a
    for _ in range(300):
        if war.result(x):
            break
        seat = next(p for p in range(3) if war.bot(x, p))
        moves.append(seat)
        x, _ = act(x, seat)
    y, _ = act(y, *moves)
    assert x == y


def test_new_rejects_wrong_player_counts_and_options():
    with pytest.raises(IllegalAction):
        war.new({"mode": "classic"}, ["Ana"], 1)
    with pytest.raises(IllegalAction):
        war.new({"mode": "classic"}, NAMES + ["Gus"], 1)
    with pytest.raises(IllegalAction):
        war.new({"mode": "power"}, NAMES[:2], 1)


# --------------------------------------------------------------------------
# Traditional battle

def test_highest_card_wins_the_battle():
    state = rig("Q 3", "5 4", "2 6")
    state, log = act(state, 1, 0, 2)
    assert ranks(state, 0) == [3, 5, 12, 2]      # Ben, Ana, Cara tapped in that order
    assert ranks(state, 1) == [4] and ranks(state, 2) == [6]
    assert state["wins"] == [1, 0, 0] and state["battle"] == 2
    assert "Ana reveals the Queen of Spades." in texts(log)
    assert "Ana wins 3 cards." in texts(log)
    assert state["last"]["winner"] == 0 and state["last"]["count"] == 3
    assert war.view(state, "board")["public"]["waiting_for"] == [0, 1, 2]


def test_pot_goes_to_the_bottom_in_tap_order():
    state, log = act(rig("Q 3", "5 4", "2 6"), 2, 0, 1)
    assert ranks(state, 0) == [3, 2, 12, 5]
    assert ruling_ids(log) == ["war.commitment_order_is_tap_order"]
    assert next(e for e in log if e["t"] == "ruling")["order"] == [2, 0, 1]


def test_commitment_order_ruling_is_logged_once_per_game():
    state, log = act(rig("Q 3 9", "5 4 8"), 0, 1, 1, 0, 0, 1)
    assert ruling_ids(log).count("war.commitment_order_is_tap_order") == 1


def test_suits_never_break_ties():
    state, log = act(rig("AS 2 2 2 K", "AH 3 3 3 Q"), 0, 1)
    assert state["stage"] == 1 and state["participants"] == [0, 1]
    assert "Ana and Ben tie with Aces." in texts(log)
    assert "War! Ana and Ben each put three cards face down and one face up." in texts(log)
    state, log = act(state, 1, 0)
    assert ranks(state, 0) == [14, 14, 3, 3, 3, 12, 2, 2, 2, 13]
    assert "Ana wins 10 cards." in texts(log)


# --------------------------------------------------------------------------
# Multi-player war

def test_two_way_tie_only_tied_players_continue():
    state, log = act(rig("T 2 3 4 K 9", "T 5 6 7 8 9", "4 J"), 0, 1, 2)
    assert state["participants"] == [0, 1] and state["stage"] == 1
    assert war.view(state, "board")["public"]["stage"] == 1
    assert refused("not_your_turn", state, 2, REVEAL) == "You are not in this war. Wait for the tied players."
    assert war.actions(state, 2) == [{"type": "autoplay", "speed": s} for s in (1, 2, 4)]
    assert war.bot(state, 2) is None
    before = len(state["decks"][0])
    state, log = act(state, 1)
    assert len(state["decks"][1]) == 1 and len(state["decks"][0]) == before  # 3 down + 1 up
    state, log = act(state, 0)
    # Cara's 4 stayed in the pot; stage 0 in tap order, then the war in tap order.
    assert ranks(state, 0) == [9, 10, 10, 4, 5, 6, 7, 8, 2, 3, 4, 13]
    assert ranks(state, 1) == [9] and ranks(state, 2) == [11]
    assert state["stage"] == 0 and state["participants"] == [0, 1, 2]


def test_three_way_tie_with_a_lower_card_left_in_the_pot():
    state, _ = act(rig("9 2 2 2 5 2", "9 3 3 3 K 2", "9 4 4 4 7 2", "6 8"), 3, 2, 1, 0)
    assert state["participants"] == [0, 1, 2]
    assert war.view(state, "board")["public"]["waiting_for"] == [0, 1, 2]
    refused("not_your_turn", state, 3, REVEAL)
    state, log = act(state, 0, 1, 2)
    assert "Ben wins 16 cards." in texts(log)
    assert ranks(state, 1) == [2, 6, 9, 9, 9, 2, 2, 2, 5, 3, 3, 3, 13, 4, 4, 4, 7]
    assert [len(d) for d in state["decks"]] == [1, 17, 1, 1]


def test_multi_level_war():
    state, log = act(rig("9 2 2 2 7 3 3 3 K 5", "9 4 4 4 7 6 6 6 2 5"), 0, 1, 0, 1)
    assert state["stage"] == 2 and "Ana and Ben tie with 7s." in texts(log)
    assert war.view(state, 0)["public"]["stage"] == 2
    state, log = act(state, 1, 0)
    assert "Ana wins 18 cards." in texts(log)
    assert ranks(state, 0) == [5, 9, 9, 2, 2, 2, 7, 4, 4, 4, 7, 6, 6, 6, 2, 3, 3, 3, 13]
    assert ranks(state, 1) == [5]
    assert state["wins"] == [1, 0]
    shown = next(e for e in log if e["t"] == "ruling" and e["id"] == "war.face_down_shown_on_win")
    assert len(shown["cards"]) == 12 and all(c["down"] for c in shown["cards"])


def test_players_out_together_after_a_war_are_ranked_by_what_they_put_in():
    state, log = act(rig("9 2 2 2 5", "9 3 3 3 K 2", "9 4 4 4 7", "6 8"), 0, 1, 2, 3, 0, 1, 2)
    assert state["out"][0]["moment"] == state["out"][2]["moment"]
    assert "Ana has no cards left and is out of the game." in texts(log)
    tie_break = next(e for e in log if e.get("id") == "war.elimination_tie_break")
    assert tie_break["ranking"] == [2, 0]        # Cara put in 28 rank points, Ana 20
    state, _ = act(state, 1, 3)                   # Ben's 2 loses to Dev's 8 ...
    state, _ = act(state, 1, 3)                   # ... and so on until one is left
    while war.result(state) is None:
        state, _ = act(state, *[p for p in (1, 3) if war.bot(state, p)])
    assert war.result(state)["ranking"][2:] == [2, 0]


# --------------------------------------------------------------------------
# Knock-outs during a war

def test_short_player_commits_everything_and_sole_survivor_takes_pot():
    state, log = act(rig("9 2 3", "9 4 4 4 6 8", "5 7 7"), 0, 1, 2)
    assert "Ana cannot put up four cards and is out of the game." in texts(log)
    assert ruling_ids(log) == ["war.commitment_order_is_tap_order", "war.short_cards_face_down",
                               "war.sole_survivor_takes_pot", "war.face_down_shown_on_win"]
    assert ranks(state, 1) == [4, 4, 4, 6, 8, 9, 9, 5, 2, 3]   # Ben put up nothing more
    assert state["decks"][0] == [] and state["out"][0]["moment"] == 1
    assert state["participants"] == [1, 2] and state["battle"] == 2
    assert war.actions(state, 0) == [] and war.bot(state, 0) is None
    assert refused("not_your_turn", state, 0, REVEAL) == "You are out of this game."
    refused("not_your_turn", state, 0, {"type": "autoplay", "speed": 1})
    assert war.view(state, "board")["public"]["players"][0]["eliminated"] is True


def test_short_player_in_a_two_player_game_loses_at_once():
    state, log = act(rig("9 2 3", "9 4 4 4 6 8"), 0, 1)
    res = war.result(state)
    assert res == {"winners": [1], "ranking": [1, 0], "scores": [0, 9], "reason": "elimination"}
    assert "Ben wins the game!" in texts(log)
    assert state["status"] == "ended"


def test_pot_carries_over_when_every_tied_player_is_out():
    state, log = act(rig("9 2", "9 3", "5 6 6", "4 7 7"), 0, 1, 2, 3)
    assert "war.pot_carries_over" in ruling_ids(log)
    assert ruling_ids(log).count("war.short_cards_face_down") == 2
    tie_break = next(e for e in log if e.get("id") == "war.elimination_tie_break")
    assert tie_break["ranking"] == [1, 0]         # Ben's 9 + 3 beats Ana's 9 + 2
    assert state["carried"] == 6 and len(state["pot"]) == 6
    assert state["participants"] == [2, 3] and state["last"]["winner"] is None
    # The pot stays on the table, so its face-down cards stay hidden.
    assert state["last"]["cards"][4:] == [{"seat": 0, "down": True}, {"seat": 1, "down": True}]
    assert war.view(state, 2)["public"]["pot_count"] == 6
    state, log = act(state, 2, 3)
    assert ranks(state, 3) == [7, 9, 9, 5, 4, 2, 3, 6, 7]     # carried pot first
    assert "Dev wins 8 cards." in texts(log) and state["carried"] == 0
    assert total_cards(state) == 10


def test_last_player_with_cards_takes_the_pot():
    state, log = act(rig("9 2", "9 3", "5 6"), 0, 1, 2)
    assert "war.last_player_takes_pot" in ruling_ids(log)
    res = war.result(state)
    assert res["winners"] == [2] and res["ranking"] == [2, 1, 0] and res["reason"] == "elimination"
    assert res["scores"] == [0, 0, 6]


def test_everyone_out_at_once_ranks_by_cards_put_in():
    state, log = act(rig("9 2", "9 3", "5"), 0, 1, 2)
    assert "war.simultaneous_elimination" in ruling_ids(log)
    assert "Cara has no cards left and is out of the game." in texts(log)
    res = war.result(state)
    assert res["reason"] == "simultaneous_elimination"
    assert res["ranking"] == [1, 0, 2] and res["winners"] == [1]   # Ben 2 cards (12), Ana 2 (11), Cara 1
    assert total_cards(state) == 5                                   # the pot stays on the table


def test_everyone_out_with_identical_contributions_share_the_win():
    state, log = act(rig("9S 2S", "9H 2H"), 1, 0)
    res = war.result(state)
    assert res["winners"] == [0, 1] and res["reason"] == "simultaneous_elimination"
    assert "Ana and Ben share the win!" in texts(log)


# --------------------------------------------------------------------------
# Knock-outs after a battle and the end of the game

def test_player_with_no_cards_after_a_battle_is_out():
    state, log = act(rig("K 2 2", "Q 3 3", "5"), 0, 1, 2)
    assert "Cara has no cards left and is out of the game." in texts(log)
    assert state["out"][2] is not None and state["participants"] == [0, 1]
    assert state["status"] == "playing"


def test_game_end_and_ranking_by_knock_out_time():
    state, _ = act(rig("K K", "Q 2", "5"), 0, 1, 2)
    state, log = act(state, 1, 0)
    assert war.result(state) == {"winners": [0], "ranking": [0, 1, 2], "scores": [5, 0, 0],
                                 "reason": "elimination"}
    assert log[-1]["t"] == "game_over" and log[-1]["text"] == "Ana wins the game!"
    assert war.view(state, "board")["public"]["result"] == war.result(state)
    for viewer in (0, 1, 2, "facilitator", "board"):
        assert war.actions(state, viewer) == []
    assert war.pending_auto(state) == [] and war.bot(state, 0) is None
    assert refused("game_over", state, 0, REVEAL) == "The game is over."
    refused("game_over", state, "facilitator", END)


# --------------------------------------------------------------------------
# Refused actions

def test_double_reveal_is_not_your_turn():
    state, _ = act(rig("Q 3", "5 4", "2 6"), 0)
    assert refused("not_your_turn", state, 0, REVEAL) == "You have already revealed. Wait for the others."
    assert {"type": "reveal"} not in war.actions(state, 0)


@pytest.mark.parametrize("action", [
    {"type": "fly"}, {}, "reveal", None, ["reveal"], {"type": "reveal", "card": "c0"},
    {"type": "autoplay"}, {"type": "autoplay", "speed": 3}, {"type": "autoplay", "speed": "2"},
    {"type": "autoplay", "speed": True}, {"type": "autoplay", "speed": None},
    {"type": "autoplay", "speed": 1.5}, {"type": "autoplay", "speed": 1.0},
    {"type": "autoplay", "speed": 0},  # already off
    {"type": "end", "now": True}, {"type": ["reveal"]}, {"type": None},
])
def test_malformed_actions_are_illegal(action):
    refused("illegal", rig("Q 3", "5 4"), 0, action)


@pytest.mark.parametrize("actor, action", [
    ("board", REVEAL), ("board", END), ("facilitator", REVEAL),
    ("facilitator", {"type": "autoplay", "speed": 1}), (2, REVEAL), (-1, REVEAL),
    ("Ana", REVEAL), (True, REVEAL), (None, REVEAL), (0, END),
])
def test_wrong_actors_are_forbidden(actor, action):
    refused("forbidden", rig("Q 3", "5 4"), actor, action)


def test_unknown_viewers():
    state = rig("Q 3", "5 4")
    assert war.actions(state, "board") == [] and war.actions(state, 5) == []
    with pytest.raises(IllegalAction) as err:
        war.view(state, 5)
    assert err.value.code == "forbidden"


# --------------------------------------------------------------------------
# Auto-play

def test_autoplay_actions_and_pending_delays():
    state = rig("Q 3", "5 4", "2 6")
    assert war.actions(state, 0) == [REVEAL] + [{"type": "autoplay", "speed": s} for s in (1, 2, 4)]
    assert war.pending_auto(state) == []
    before = state
    state, log = act(state, (0, {"type": "autoplay", "speed": 1}), (1, {"type": "autoplay", "speed": 4}),
                     (2, {"type": "autoplay", "speed": 2}))
    assert {k: v for k, v in state.items() if k != "autoplay"} == \
        {k: v for k, v in before.items() if k != "autoplay"}
    assert texts(log)[0] == "Ana turns auto-play on at speed 1."
    assert war.actions(state, 1) == [REVEAL] + [{"type": "autoplay", "speed": s} for s in (0, 1, 2)]
    assert war.pending_auto(state) == [[0, 1.2], [1, 0.3], [2, 0.6]]
    state, _ = act(state, 0)
    assert war.pending_auto(state) == [[1, 0.3], [2, 0.6]]
    state, log = act(state, (2, {"type": "autoplay", "speed": 0}))
    assert texts(log) == ["Cara turns auto-play off."]
    assert war.pending_auto(state) == [[1, 0.3]]
    view = war.view(state, 1)
    assert view["private"]["autoplay"] == 4 and view["public"]["players"][1]["autoplay"] == 4


def test_autoplay_waits_out_a_war_it_is_not_in():
    state = rig("T 2 3 4 K 9", "T 5 6 7 8 9", "4 J")
    state, _ = act(state, (2, {"type": "autoplay", "speed": 2}), 0, 1)
    assert war.pending_auto(state) == [[2, 0.6]]
    state, _ = act(state, 2)
    assert war.pending_auto(state) == []


# --------------------------------------------------------------------------
# Facilitator end and the timed tie-break order

def test_facilitator_can_end_and_players_rank_by_cards_held():
    state = rig("K 2 3", "Q 4", "2 A")
    assert war.actions(state, "facilitator") == [END]
    state, log = act(state, 0, ("facilitator", END))
    assert ruling_ids(log) == ["war.facilitator_end"]
    res = war.result(state)
    # Ana's King is in the unfinished pot and counts for nobody: 2 cards each,
    # then rank totals 5 (Ana), 16 (Ben: 4 + Queen) and 16 (Cara: 2 + Ace).
    assert res["scores"] == [2, 2, 2] and res["reason"] == "ended_by_facilitator"
    assert res["ranking"][:2] == [1, 2] and res["ranking"][2] == 0
    assert res["winners"] == [1, 2]
    assert texts(log)[-1] == "Ben and Cara share the win!"
    assert total_cards(state) == 7


@pytest.mark.parametrize("wins, last_up, ranking, winners", [
    ([1, 3], [0, 0], [1, 0], [1]),      # battle wins decide
    ([2, 2], [9, 4], [0, 1], [0]),      # then the final face-up card
    ([2, 2], [7, 7], [0, 1], [0, 1]),   # still tied: shared win
])
def test_timed_tie_break_order(wins, last_up, ranking, winners):
    state = rig("2 3", "3 2")
    state["wins"], state["last_up"] = wins, last_up
    state, _ = act(state, ("facilitator", END))
    res = war.result(state)
    assert res["ranking"] == ranking and res["winners"] == winners


def test_players_still_in_rank_above_knocked_out_ones_at_facilitator_end():
    state, _ = act(rig("K 2 2", "Q 3 3", "5"), 0, 1, 2, ("facilitator", END))
    assert war.result(state)["ranking"] == [0, 1, 2]
    assert war.result(state)["winners"] == [0]


# --------------------------------------------------------------------------
# Stalemate backstops

def loop_state() -> dict:
    """Ana 3 2 against Ben 2 3, always tapped Ana first: a two-battle loop."""
    return rig("3 2", "2 3")


def test_first_repeat_shuffles_each_players_own_deck():
    state, log = act(loop_state(), 0, 1, 0, 1)
    assert ruling_ids(log)[-2:] == ["war.repeat_detection", "war.repeat_shuffle"]
    assert "The game is going round in circles, so every player's deck is shuffled." in texts(log)
    assert state["cycle"]["repeats"] == 1 and state["battle"] == 3
    assert sorted(ranks(state, 0)) == [2, 3] and sorted(ranks(state, 1)) == [2, 3]
    assert state["rng"] != loop_state()["rng"]


def test_brent_detection_keeps_one_checkpoint():
    state = rig("K Q J T 9 8 7 6 5 4 3 2", "2 3 4 5 6 7 8 9 T J Q K")
    powers = []
    for _ in range(10):
        state, _ = act(state, 0, 1)
        powers.append(state["cycle"]["power"])
    assert set(state["cycle"]) == {"mark", "power", "lam", "repeats"}
    assert powers == sorted(powers) and powers[-1] <= 32


def test_second_repeat_starts_sudden_death_decided_by_the_tie_break():
    state = loop_state()
    state["cycle"]["repeats"] = 1           # as if a shuffle had already happened
    state, log = act(state, 0, 1, 0, 1)
    assert ruling_ids(log)[-2:] == ["war.repeat_detection", "war.sudden_death"]
    assert state["sudden"] == {"reason": "repeat", "first_battle": 3, "left": 20}
    assert war.view(state, "board")["public"]["sudden_death"]["battles_left"] == 20
    while war.result(state) is None:
        state, log = act(state, 0, 1)
    assert state["battle"] == 22
    # Two cards each, both totalling 5, 11 wins each: Ben's last reveal (3) beats Ana's (2).
    assert war.result(state) == {"winners": [1], "ranking": [1, 0], "scores": [2, 2],
                                 "reason": "sudden_death"}
    assert ruling_ids(log) == ["war.sudden_death"]


def test_battle_limit_starts_sudden_death():
    state = rig(" ".join(["K"] * 25), " ".join(["2"] * 25))
    state["battle"] = 4999
    state, log = act(state, 0, 1)
    assert state["sudden"] is None and state["battle"] == 5000
    state, log = act(state, 0, 1)
    assert "war.sudden_death" in ruling_ids(log)
    assert state["sudden"] == {"reason": "limit", "first_battle": 5001, "left": 20}
    battles = 0
    while war.result(state) is None:
        state, log = act(state, 1, 0)
        battles += 1
    assert battles == 20 and state["battle"] == 5020
    assert war.result(state) == {"winners": [0], "ranking": [0, 1], "scores": [47, 3],
                                 "reason": "sudden_death"}


def test_knock_out_during_sudden_death_still_ends_by_elimination():
    state = rig("K K K", "2 2")
    state["battle"] = 5000
    state, _ = act(state, 0, 1)
    assert state["sudden"]["left"] == 20
    state, _ = act(state, 0, 1)
    assert war.result(state)["reason"] == "elimination"


# --------------------------------------------------------------------------
# Views and the bot

def test_views_for_a_seat_and_for_the_board():
    state, _ = act(rig("9 2 3 4 K", "9 5 6 7 Q", "3 8"), 0, 1, 2, 0)
    hidden = {c for d in state["decks"] for c in d} | {i["id"] for i in state["pot"] if i["down"]}
    board = war.view(state, "board")
    assert board["private"] == {} and war.view(state, "facilitator")["private"] == {}
    pub = board["public"]
    assert pub["stage"] == 1 and pub["participants"] == [0, 1] and pub["waiting_for"] == [1]
    assert pub["pot_count"] == 7 and pub["battle"] == 1
    assert [c["down"] for c in pub["committed"]] == [False, False, False, True, True, True, False]
    assert pub["committed"][3] == {"down": True, "seat": 0}
    king = pub["committed"][6]
    assert set(king) == {"down", "seat", "id", "rank", "label", "suit", "name"}
    assert (king["rank"], king["label"], king["name"]) == (13, "K", "King of Spades")
    assert pub["players"][0] == {"seat": 0, "name": "Ana", "cards": 0, "eliminated": False,
                                 "autoplay": 0, "wins": 0}

    ana = war.view(state, 0)
    assert ana["public"] == pub
    assert ana["private"]["waiting"] is False and ana["private"]["cards"] == 0
    assert [c["label"] for c in ana["private"]["in_play"]] == ["9", "K"]
    ben = war.view(state, 1)["private"]
    assert ben["waiting"] is True and [c["label"] for c in ben["in_play"]] == ["9"]
    for viewer in (0, 1, 2, "board", "facilitator"):
        assert not strings_in(war.view(state, viewer)) & hidden

    state, log = act(state, 1)
    last = war.view(state, "board")["public"]["last"]
    assert last["winner"] == 0 and last["count"] == 11
    assert [c["label"] for c in last["cards"]] == ["9", "9", "3", "2", "3", "4", "K", "5", "6", "7", "Q"]
    assert sum(c["down"] for c in last["cards"]) == 6
    assert [(d["seat"], d["card"]["label"]) for d in last["deciding"]] == [(0, "K"), (1, "Q"), (2, "3")]
    hidden = {c for d in state["decks"] for c in d}
    assert not strings_in(war.view(state, "board")) & hidden
    assert not strings_in(log) & hidden


def test_log_entries_never_carry_card_ids():
    state = war.new({"mode": "classic"}, NAMES[:4], 5)
    ids = set(state["faces"])
    for _ in range(200):
        seat = next(p for p in range(4) if war.bot(state, p))
        state, log = act(state, seat)
        assert not strings_in(log) & ids
        if war.result(state):
            break


def test_bot_reveals_only_when_asked():
    state = rig("Q 3", "5 4")
    assert war.bot(state, 0) == REVEAL
    state, _ = act(state, 0)
    assert war.bot(state, 0) is None and war.bot(state, 1) == REVEAL
