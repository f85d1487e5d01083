"""War (Classic) rules, one situation at a time, on rigged decks."""
from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from app import engines
from app.engines import war
from app.engines.contract import GameSpec, IllegalAction, strip_label
from app.engines.war import engine as E
from app.engines.war.cards import rank_of
from app.engines.war.rulings import RULINGS_VERSION, load_catalogue, load_rulings

from engines.properties import strings_in

NAMES = ["Ana", "Ben", "Cara", "Dev", "Eli", "Fay"]
REVEAL = {"type": "reveal"}
# The reveal as `actions` lists it in the first battle: it names the battle it answers.
LISTED_REVEAL = {"type": "reveal", "battle": 1}
END = {"type": "end"}
FINISH = "finish"            # in act(): the teacher ends the game
CATALOGUE = {r["id"] for r in war.GAME.rulings}


# --------------------------------------------------------------------------
# Helpers

def rig(*decks: str, rng: int = 1, length: str | None = None, **options) -> dict:
    """A game whose decks are given top first, e.g. rig("Q 3", "5 4").

    A token is a rank character (2-9, T, J, Q, K, A: suits are handed out in
    turn) or a full code such as "AS". Other options (mode="power", ...) are passed on.
    The rules play full elimination unless a length is given (the default, "Fits a
    lesson", is tested in test_war_lengths.py).
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
    options = {"mode": "classic", "length": length or "full_elimination", **options}
    return E.new_with_decks(options, NAMES[:len(decks)], codes, rng)


def act(state: dict, *moves) -> tuple[dict, list[dict]]:
    """Apply moves in order: a seat number means that seat reveals, FINISH
    that the teacher ends the game."""
    entries = []
    for move in moves:
        if move == FINISH:
            state, new = war.finish(state)
        else:
            actor, action = (move, REVEAL) if isinstance(move, int) else move
            state, new = war.apply(state, actor, action)
        entries += new
    return state, entries


def plain(actions: list[dict]) -> list[dict]:
    """Listed actions without their labels."""
    return [strip_label(a) for a in actions]


def bot(state: dict, seat: int, seed: int = 0):
    """What the computer in `seat` does, seeing only its own seat."""
    choice = war.bot(war.view(state, seat), war.actions(state, seat), random.Random(seed))
    return None if choice is None else strip_label(choice)


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

def test_package_exposes_the_contract_and_its_spec():
    assert sorted(war.__all__) == sorted(["GAME", "new", "actions", "apply", "view", "views", "bot", "result",
                                          "finish", "timers", "upgrade"])
    for name in war.__all__[1:]:
        assert callable(getattr(war, name))
    spec = war.GAME
    assert isinstance(spec, GameSpec) and engines.spec("war") is spec and engines.get("war") is war
    assert (spec.key, spec.title, spec.version) == ("war", "War", "war-4")
    # A run (Tournament, Survival) is played alone; every other mode by 2 to 6.
    assert (spec.min_seats, spec.max_seats) == (1, 6)
    assert spec.seat_range({"mode": "survival"}) == spec.seat_range({"mode": "tournament"}) == (1, 1)
    assert spec.seat_range({"mode": "classic"}) == spec.seat_range({"mode": "power"}) == (2, 6)
    assert spec.blurb.endswith(".")
    options = {o.key: (o.default, o.choices) for o in spec.options}
    assert options["mode"] == ("classic", ("classic", "power", "wager", "power_wager", "tournament", "survival"))
    assert options["length"] == ("fits_a_lesson", ("fits_a_lesson", "full_elimination", "first_to_30_cards",
                                                   "first_to_40_cards",
                                                      "first_to_45_cards", "3_minutes", "5_minutes", "10_minutes",
                                                      "first_to_25_points", "first_to_50_points",
                                                      "first_to_100_points"))
    assert options["computer_level"] == ("standard", ("easy", "standard", "hard"))
    assert all(o.help for o in spec.options)
    # Every preset names only real options and values (the create form's buttons).
    for preset in spec.presets.values():
        assert all(options[k][1] == () or v in options[k][1] for k, v in preset.items())
    assert spec.seating.sizes == (2, 3, 4, 5, 6) and spec.seating.default == 4
    assert spec.seating.minimum == 2 and spec.seating.solo_computers == 1
    assert spec.seating.solo_label == "Solo: each student against a computer"
    assert set(spec.presets) == {"classic", "power_war", "wager_battle", "power_and_wager", "tournament", "survival"}
    chosen = engines.options_for("war", {"preset": "power_war"})
    assert chosen["mode"] == "power" and chosen["length"] == "first_to_40_cards"
    assert chosen["computer_level"] == "standard"
    assert spec.order_free == frozenset({"reveal", "autoplay", "hold", "resume", "restart", "loadout", "activate",
                                         "deactivate", "counter", "resolve"})
    assert spec.bot_levels == ("easy", "standard", "hard")
    assert spec.data_versions == {"rulings.json": RULINGS_VERSION, "runs.json": "war-runs-2",
                                  "powers.json": "war-powers-1"} and RULINGS_VERSION
    assert spec.start_label == "Deal cards & start"
    assert (spec.ui.phone, spec.ui.board, spec.ui.facilitator, spec.ui.stylesheet) == \
        ("games/war/war.js", "games/war/war.js", None, "games/war/war.css")
    assert 4 <= len(spec.discussion) <= 6
    assert all(isinstance(q, str) and q.endswith("?") for q in spec.discussion)
    assert spec.to_json()["data_versions"] == spec.data_versions


def test_key_moments_cover_the_important_log_kinds():
    moments = war.GAME.key_moments
    assert {"start", "war", "out", "kick", "end", "game_over", "pause", "lock",
            "sudden_death", "shuffle", "carry", "time_up", "target"} <= moments
    # Only kinds somebody emits: War's own, or the platform's table events.
    assert moments <= set(E.LOG_KINDS) | {"start", "kick", "pause", "lock"}
    assert not {"reveal", "win", "autoplay", "ruling"} & moments   # play-by-play


def test_every_mode_says_what_it_hides():
    """The platform's privacy checks play what War declares (GameSpec.hidden): every mode."""
    modes = dict((o.key, o.choices) for o in war.GAME.options)["mode"]
    assert [h.options["mode"] for h in war.GAME.hidden] == list(modes)
    assert [h.label for h in war.GAME.hidden] == list(modes)


def test_a_ruling_in_the_debrief_says_its_battle():
    assert war.GAME.moment_counters[0] == "battle"   # "move 40, 10:04, Ana, battle 7"


def test_ui_files_exist():
    from pathlib import Path
    static = Path(__file__).resolve().parents[3] / "static"
    for path in (war.GAME.ui.phone, war.GAME.ui.stylesheet):
        assert (static / path).is_file(), path
    js = (static / war.GAME.ui.phone).read_text()
    assert "export function render(root, payload, ctx)" in js and "export function onKey(" in js
    assert 'from "/static/js/dom.js"' in js and 'from "../' not in js


def test_ruling_catalogue_is_valid():
    ids = [r["id"] for r in war.GAME.rulings]
    assert len(ids) == len(set(ids))
    assert {"war.commitment_order_is_tap_order", "war.sole_survivor_takes_pot", "war.pot_carries_over",
            "war.simultaneous_elimination", "war.face_down_shown_on_win", "war.repeat_shuffle",
            "war.sudden_death", "war.facilitator_end", "war.elimination_tie_break"} <= set(ids)
    for r in war.GAME.rulings:
        assert set(r) == {"id", "kind", "title", "text"}
        assert r["kind"] in ("provisional", "reconstruction") and r["text"].strip()
        assert r["title"].strip() and len(r["title"]) <= 80 and not r["title"].endswith(".")
    assert load_catalogue()[0] == RULINGS_VERSION


def test_ruling_texts_match_the_engine():
    text = {r["id"]: r["text"] for r in war.GAME.rulings}
    assert f"{E.REPEAT_WINDOW:,} battles" in text["war.repeat_detection"]
    assert f"{E.BATTLE_LIMIT:,}-battle" in text["war.repeat_detection"]
    for rid in ("war.elimination_tie_break", "war.simultaneous_elimination"):
        assert "face-up" in text[rid] and "Face-down cards never count" in text[rid]


def ruling(**changes) -> dict:
    return {"id": "war.a", "kind": "provisional", "title": "A ruling", "text": "One.", **changes}


@pytest.mark.parametrize("bad", [
    {"version": "1", "rulings": [ruling(), ruling(text="Two.")]},
    {"version": "1", "rulings": [ruling(text="  ")]},
    {"version": "1", "rulings": [ruling(kind="guess")]},
    {"version": "1", "rulings": [ruling(id="a")]},
    {"version": "1", "rulings": [ruling(title="")]},
    {"version": "1", "rulings": [ruling(title="Ends with a full stop.")]},
    {"version": "1", "rulings": [ruling(title="x" * 81)]},
    {"version": "1", "rulings": [{"id": "war.a", "kind": "provisional", "text": "No title."}]},
    {"version": "1", "rulings": []},
    {"version": "", "rulings": [ruling()]},
    {"rulings": [ruling()]},
    [ruling()],
])
def test_ruling_catalogue_rejects_broken_files(tmp_path, bad):
    path = tmp_path / "rulings.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(ValueError):
        load_rulings(path)


def test_ruling_catalogue_accepts_a_good_file(tmp_path):
    path = tmp_path / "rulings.json"
    path.write_text(json.dumps({"version": "v9", "rulings": [ruling()]}))
    assert load_catalogue(path) == ("v9", [ruling()])


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
        seat = next(p for p in range(3) if bot(x, p))
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
        war.new({"mode": "chaos"}, NAMES[:2], 1)


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
    assert plain(war.actions(state, 2)) == [{"type": "autoplay", "speed": s} for s in (1, 2, 4)] + HOLD
    assert bot(state, 2) is None
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
    # Five cards each; their face-up cards: Cara 9 + 7 = 16, Ana 9 + 5 = 14.
    assert tie_break["ranking"] == [2, 0] and tie_break["tied"] == []
    state, _ = act(state, 1, 3)                   # Ben's 2 loses to Dev's 8 ...
    state, _ = act(state, 1, 3)                   # ... and so on until one is left
    while war.result(state) is None:
        state, _ = act(state, *[p for p in (1, 3) if bot(state, p)])
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
    assert war.actions(state, 0) == [] and bot(state, 0) is None
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
    # Two cards each and the same face-up 9: the face-down 2 and 3 are still
    # hidden, so they cannot count. Ana and Ben share their place.
    assert tie_break["ranking"] == [0, 1] and tie_break["tied"] == [[0, 1]]
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
    # Ana and Ben went out together, each with two cards and a face-up 9: tied,
    # so seat order lists them.
    assert res["winners"] == [2] and res["ranking"] == [2, 0, 1] and res["reason"] == "elimination"
    assert res["scores"] == [0, 0, 6]


def test_everyone_out_at_once_ranks_by_cards_put_in():
    state, log = act(rig("9 2", "9 3", "5"), 0, 1, 2)
    assert "war.simultaneous_elimination" in ruling_ids(log)
    assert "Cara has no cards left and is out of the game." in texts(log)
    res = war.result(state)
    assert res["reason"] == "simultaneous_elimination"
    # Ana and Ben put in two cards each with the same face-up 9 (their face-down
    # 2 and 3 stay hidden in the pot, so they cannot count); Cara put in one.
    assert res["ranking"] == [0, 1, 2] and res["winners"] == [0, 1]
    rul = next(e for e in log if e.get("id") == "war.simultaneous_elimination")
    assert rul["ranking"] == [0, 1, 2] and rul["tied"] == [[0, 1]]
    assert "Ana and Ben share the win!" in texts(log)
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
    assert war.timers(state) == [] and bot(state, 0) is None
    assert refused("game_over", state, 0, REVEAL) == "The game is over."
    with pytest.raises(IllegalAction) as err:
        war.finish(state)
    assert err.value.code == "game_over"


# --------------------------------------------------------------------------
# Refused actions

def test_double_reveal_is_not_your_turn():
    state, _ = act(rig("Q 3", "5 4", "2 6"), 0)
    assert refused("not_your_turn", state, 0, REVEAL) == "You have already revealed. Wait for the others."
    assert {"type": "reveal"} not in plain(war.actions(state, 0))


@pytest.mark.parametrize("action", [
    {"type": "fly"}, {}, "reveal", None, ["reveal"], {"type": "reveal", "card": "c0"},
    {"type": "autoplay"}, {"type": "autoplay", "speed": 3}, {"type": "autoplay", "speed": "2"},
    {"type": "autoplay", "speed": True}, {"type": "autoplay", "speed": None},
    {"type": "autoplay", "speed": 1.5}, {"type": "autoplay", "speed": 1.0},
    {"type": "autoplay", "speed": 0},  # already off
    {"type": "end"}, {"type": "end", "now": True}, {"type": ["reveal"]}, {"type": None},
    {"type": "reveal", "label": 7},
])
def test_malformed_actions_are_illegal(action):
    refused("illegal", rig("Q 3", "5 4"), 0, action)


@pytest.mark.parametrize("actor, action", [
    ("board", REVEAL), ("board", END), ("facilitator", REVEAL), ("facilitator", END),
    ("facilitator", {"type": "autoplay", "speed": 1}), (2, REVEAL), (-1, REVEAL),
    ("Ana", REVEAL), (True, REVEAL), (None, REVEAL), ("system", REVEAL),
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
# Labels, auto-play and timers

AUTO = [{"type": "autoplay", "speed": s} for s in (1, 2, 4)]
HOLD = [{"type": "hold"}]   # P or Escape (app/engines/war/control.py, tests/games/war/test_war_controls.py)


def test_every_action_has_a_label_and_apply_takes_it_without():
    state = rig("Q 3", "5 4", "2 6")
    listed = war.actions(state, 0)
    assert [a["label"] for a in listed] == ["Reveal your card", "Turn auto-play on (speed 1)",
                                            "Turn auto-play on (speed 2)", "Turn auto-play on (speed 4)",
                                            "Pause your play"]
    assert plain(listed) == [LISTED_REVEAL] + AUTO + HOLD
    stripped, log_a = war.apply(state, 0, REVEAL)
    labelled, log_b = war.apply(state, 0, listed[0])      # a labelled action is accepted too
    assert stripped == labelled and log_a == log_b
    assert war.actions(state, "facilitator") == []


def test_labels_follow_the_situation():
    state, _ = act(rig("T 2 3 4 K 9", "T 5 6 7 8 9", "4 J"), 0, 1, 2, (1, {"type": "autoplay", "speed": 2}))
    labels = {json.dumps(strip_label(a)): a["label"] for a in war.actions(state, 1)}
    assert labels == {json.dumps(LISTED_REVEAL): "Reveal your card (three go face down first)",
                      json.dumps({"type": "autoplay", "speed": 0}): "Turn auto-play off",
                      json.dumps({"type": "autoplay", "speed": 1}): "Switch auto-play to speed 1",
                      json.dumps({"type": "autoplay", "speed": 4}): "Switch auto-play to speed 4",
                      json.dumps({"type": "hold"}): "Pause your play"}


def timer(seat, battle, stage, speed):
    return {"key": f"auto:{seat}:{battle}:{stage}:{speed}", "after": E.AUTO_DELAY[speed],
            "actor": seat, "action": dict(REVEAL, battle=battle), "pace": True}


def test_autoplay_actions_and_timers():
    state = rig("Q 3", "5 4", "2 6")
    assert plain(war.actions(state, 0)) == [LISTED_REVEAL] + AUTO + HOLD
    assert war.timers(state) == []
    before = state
    state, log = act(state, (0, {"type": "autoplay", "speed": 1}), (1, {"type": "autoplay", "speed": 4}),
                     (2, {"type": "autoplay", "speed": 2}))
    assert {k: v for k, v in state.items() if k != "autoplay"} == \
        {k: v for k, v in before.items() if k != "autoplay"}
    assert texts(log)[0] == "Ana turns auto-play on at speed 1."
    assert plain(war.actions(state, 1)) == [LISTED_REVEAL] + [{"type": "autoplay", "speed": s} for s in (0, 1, 2)] + HOLD
    assert war.timers(state) == [timer(0, 1, 0, 1), timer(1, 1, 0, 4), timer(2, 1, 0, 2)]
    assert [t["after"] for t in war.timers(state)] == [1.2, 0.3, 0.6]
    state, _ = act(state, 0)
    assert war.timers(state) == [timer(1, 1, 0, 4), timer(2, 1, 0, 2)]
    state, log = act(state, (2, {"type": "autoplay", "speed": 0}))
    assert texts(log) == ["Cara turns auto-play off."]
    assert war.timers(state) == [timer(1, 1, 0, 4)]
    view = war.view(state, 1)
    assert view["private"]["autoplay"] == 4 and view["public"]["players"][1]["autoplay"] == 4
    # A timer fires as its seat's move; the next reveal owed gets a new key.
    fired = war.timers(state)[0]
    state, _ = act(state, 2, (fired["actor"], fired["action"]))
    assert state["battle"] == 2
    assert war.timers(state) == [timer(0, 2, 0, 1), timer(1, 2, 0, 4)]


def test_a_speed_change_gives_the_timer_a_new_key():
    state, _ = act(rig("Q 3", "5 4"), (0, {"type": "autoplay", "speed": 1}))
    first = war.timers(state)[0]
    state, _ = act(state, (0, {"type": "autoplay", "speed": 4}))
    second = war.timers(state)[0]
    assert first["key"] != second["key"] and second["after"] == 0.3


def test_autoplay_waits_out_a_war_it_is_not_in():
    state = rig("T 2 3 4 K 9", "T 5 6 7 8 9", "4 J")
    state, _ = act(state, (2, {"type": "autoplay", "speed": 2}), 0, 1)
    assert war.timers(state) == [timer(2, 1, 0, 2)]
    state, _ = act(state, (0, {"type": "autoplay", "speed": 1}), 2)
    assert state["stage"] == 1
    assert war.timers(state) == [timer(0, 1, 1, 1)]     # a war stage: a new key for Ana


# --------------------------------------------------------------------------
# Prompts

def test_prompts_say_what_each_viewer_is_asked():
    state = rig("Q 3", "5 4", "2 6")
    assert war.view(state, 0)["prompt"] == {"waiting_for": [0, 1, 2], "text": "Tap your deck to reveal"}
    assert war.view(state, "board")["prompt"] == \
        {"waiting_for": [0, 1, 2], "text": "Waiting for Ana, Ben and Cara to reveal"}
    state, _ = act(state, 0)
    assert war.view(state, 0)["prompt"] == {"waiting_for": [1, 2], "text": "Waiting for Ben and Cara to reveal"}
    state, _ = act(state, 1, (2, {"type": "autoplay", "speed": 2}))
    assert war.view(state, "facilitator")["prompt"]["text"] == "Waiting for Cara to reveal"
    assert war.view(state, 2)["prompt"]["text"] == \
        "Tap your deck to reveal (auto-play will reveal for you at speed 2)"


def test_prompts_in_a_war_when_out_and_at_the_end():
    state, _ = act(rig("T 2 3 4 K 9", "T 5 6 7 8 9", "4 J"), 0, 1, 2)
    assert war.view(state, 0)["prompt"] == \
        {"waiting_for": [0, 1], "text": "War! Tap your deck: three cards go face down and one face up"}
    assert war.view(state, 2)["prompt"]["text"] == "War! Waiting for Ana and Ben to reveal"
    state, _ = act(rig("K 2 2", "Q 3 3", "5"), 0, 1, 2)
    assert war.view(state, 2)["prompt"] == {"waiting_for": [0, 1], "text": "You are out of the game"}
    while war.result(state) is None:
        state, _ = act(state, *E.waiting(state))
    assert war.result(state)["winners"] == [0]
    assert war.view(state, 0)["prompt"] == {"waiting_for": [], "text": "Game over: you win!"}
    assert war.view(state, 1)["prompt"]["text"] == "Game over: Ana wins the game!"
    assert war.view(state, "board")["prompt"]["text"] == "Game over: Ana wins the game!"
    state, _ = act(rig("9S 2S", "9H 2H", "5"), 0, 1, 2)
    assert war.view(state, 0)["prompt"]["text"] == "Game over: you share the win with Ben!"
    assert war.view(state, 2)["prompt"]["text"] == "Game over: Ana and Ben share the win!"


# --------------------------------------------------------------------------
# The teacher ends the game (finish) and the timed tie-break order

def test_facilitator_can_end_and_players_rank_by_cards_held():
    state = rig("K 2 3", "Q 4", "2 A")
    assert war.actions(state, "facilitator") == []
    before = json.dumps(state, sort_keys=True)
    ended, log = war.finish(state)
    assert json.dumps(state, sort_keys=True) == before, "finish changed its input"
    state, log = act(state, 0, FINISH)
    assert [e["t"] for e in log] == ["reveal", "end", "ruling", "game_over"]
    assert ruling_ids(log) == ["war.facilitator_end"]
    res = war.result(state)
    # Ana's King is in the unfinished pot and counts for nobody: 2 cards each,
    # then rank totals 5 (Ana), 16 (Ben: 4 + Queen) and 16 (Cara: 2 + Ace).
    assert res["scores"] == [2, 2, 2] and res["reason"] == "ended_by_facilitator"
    assert res["ranking"][:2] == [1, 2] and res["ranking"][2] == 0
    assert res["winners"] == [1, 2]
    assert texts(log)[-1] == "Ben and Cara share the win!"
    assert total_cards(state) == 7
    for viewer in (0, 1, 2, "facilitator"):
        assert war.actions(state, viewer) == []


def test_the_old_end_action_is_refused():
    state = rig("Q 3", "5 4")
    refused("illegal", state, 0, END)
    refused("forbidden", state, "facilitator", END)


@pytest.mark.parametrize("wins, last_up, ranking, winners", [
    ([1, 3], [0, 0], [1, 0], [1]),      # battle wins decide
    ([2, 2], [9, 4], [0, 1], [0]),      # then the final face-up card
    ([2, 2], [7, 7], [0, 1], [0, 1]),   # still tied: shared win
])
def test_timed_tie_break_order(wins, last_up, ranking, winners):
    state = rig("2 3", "3 2")
    state["wins"], state["last_up"] = wins, last_up
    state, _ = act(state, FINISH)
    res = war.result(state)
    assert res["ranking"] == ranking and res["winners"] == winners


def test_players_still_in_rank_above_knocked_out_ones_at_facilitator_end():
    state, _ = act(rig("K 2 2", "Q 3 3", "5"), 0, 1, 2, FINISH)
    assert war.result(state)["ranking"] == [0, 1, 2]
    assert war.result(state)["winners"] == [0]


# --------------------------------------------------------------------------
# No public log entry lets a reader infer a hidden card

def public_entries(entries: list[dict]) -> list[dict]:
    return [e for e in entries if "visible_to" not in e]


@pytest.mark.parametrize("decks, swapped, moves", [
    # The tied players run short and are knocked out; the pot carries over
    # with their face-down 2 and 3 still hidden.
    (("9 2", "9 3", "5 6 6", "4 7 7"), ("9 3", "9 2", "5 6 6", "4 7 7"), (0, 1, 2, 3)),
    # Two short players go out while the other two fight the war on.
    (("9 2", "9 3", "9 4 4 4 K", "9 5 5 5 Q"), ("9 3", "9 2", "9 4 4 4 K", "9 5 5 5 Q"), (0, 1, 2, 3)),
    # Everyone is out at once; the pot stays on the table, face down.
    (("9 2", "9 3", "5"), ("9 3", "9 2", "5"), (0, 1, 2)),
    (("9 K", "9 2", "5"), ("9 2", "9 K", "5"), (2, 1, 0)),
])
def test_knock_out_rankings_never_depend_on_hidden_cards(decks, swapped, moves):
    """Two deals that differ only in cards that go (and stay) face down give
    the very same public log: the elimination tie-break must not use them."""
    state_a, log_a = act(rig(*decks), *moves)
    state_b, log_b = act(rig(*swapped), *moves)
    assert any(e.get("id") in ("war.elimination_tie_break", "war.simultaneous_elimination") for e in log_a)
    # The swapped cards still lie face down in the pot: nobody has seen them.
    pot = war.view(state_a, "board")["public"]["committed"]
    assert [c for c in pot if c["down"] and c["seat"] in (0, 1)] == \
        [{"down": True, "seat": 0}, {"down": True, "seat": 1}]
    assert public_entries(log_a) == public_entries(log_b)
    assert war.result(state_a) == war.result(state_b)
    for viewer in ("board", 2):
        assert war.view(state_a, viewer)["public"] == war.view(state_b, viewer)["public"]


def test_elimination_tie_break_uses_face_up_cards_only():
    # Ana and Ben tie on 9s and both run short; Ana's face-down card is a King,
    # Ben's a 2. Both put in two cards with the same face-up 9: a shared place.
    state, log = act(rig("9 K", "9 2", "5 6 6", "4 7 7"), 0, 1, 2, 3)
    tie_break = next(e for e in log if e.get("id") == "war.elimination_tie_break")
    assert tie_break["ranking"] == [0, 1] and tie_break["tied"] == [[0, 1]]
    assert state["out"][0] == {"moment": 1, "battle": 1, "cards": 2, "shown": 9}
    # More face-up cards put in (a war's up-card too) do count.
    state, log = act(rig("9 2 2 2 5", "9 3 3 3 K 2", "9 4 4 4 7", "6 8"), 0, 1, 2, 3, 0, 1, 2)
    assert state["out"][0]["shown"] == 14 and state["out"][2]["shown"] == 16


# --------------------------------------------------------------------------
# Stalemate backstops

def loop_state() -> dict:
    """Ana 3 2 against Ben 2 3, always tapped Ana first: a two-battle loop."""
    return rig("3 2", "2 3")


def test_first_repeat_shuffles_each_players_own_deck():
    state, log = act(loop_state(), 0, 1, 0, 1)
    assert ruling_ids(log)[-2:] == ["war.repeat_detection", "war.repeat_shuffle"]
    detection = next(e for e in log if e.get("id") == "war.repeat_detection")
    assert (detection["battle"], detection["since"], detection["loop"]) == (3, 1, 2)
    assert "The game is going round in circles, so every player's deck is shuffled." in texts(log)
    assert state["cycle"]["repeats"] == 1 and state["battle"] == 3
    assert sorted(ranks(state, 0)) == [2, 3] and sorted(ranks(state, 1)) == [2, 3]
    assert state["rng"] != loop_state()["rng"]


# A two-player deal that, tapped Ana first, settles after 547 battles into a
# loop of 52 battles. Brent's single checkpoint noticed it only at battle
# 1,075, ten times round the loop.
LONG_LOOP = ("3D 6S QC AH QD KC 5D 9D 2D 5S 9C AC QS 2C 8C 7D 8S 3S 5C 5H 9S 6C AD QH 2S 6D",
             "7S KD TC 3C JD AS 4D 2H 7C TS 8H TD 7H 3H JH 4H 9H KH 4S KS JC 6H JS TH 4C 8D")


def in_seat_order(state: dict, until_battle: int, detect: bool = True) -> tuple[dict, dict, list[dict]]:
    """Tap in seat order up to a battle, fingerprinting every battle start
    (battle -> position). `detect=False` keeps the engine's repeat check away."""
    if not detect:
        state = dict(state, sudden={"reason": "test", "first_battle": 0, "left": 10 ** 6})
    positions, entries = {}, []
    while state["battle"] <= until_battle and war.result(state) is None:
        if state["stage"] == 0 and not state["taps"]:
            positions[state["battle"]] = E._position(state)
        state, new = act(state, E.waiting(state)[0])
        entries += new
    return state, positions, entries


def test_a_long_loop_is_caught_the_first_time_it_comes_round():
    # Where the loop really starts and how long it is, the slow way: the first
    # battle-start position that comes back.
    _, positions, _ = in_seat_order(rig(*LONG_LOOP), 700, detect=False)
    first = {}
    for battle, here in sorted(positions.items()):
        if here in first:
            start, loop = first[here], battle - first[here]
            break
        first[here] = battle
    assert (start, loop) == (548, 52)
    # The engine notices it on its first return: well within three times round.
    state, _, entries = in_seat_order(rig(*LONG_LOOP), start + 3 * loop)
    detection = [e for e in entries if e.get("id") == "war.repeat_detection"]
    assert detection, "the loop was not noticed within three times round"
    assert (detection[0]["battle"], detection[0]["since"], detection[0]["loop"]) == (start + loop, start, loop)
    assert "war.repeat_shuffle" in ruling_ids(entries)


def test_repeat_memory_is_bounded_and_forgets_after_a_knock_out():
    state = rig(" ".join(["K"] * 30), " ".join(["2"] * 30))   # never the same position twice
    state, _ = act(state, 0, 1)
    assert len(state["cycle"]["seen"]) == E._FP * 2 and state["cycle"]["first"] == 1
    # As if the window were full: the oldest position is forgotten.
    state["cycle"]["seen"] = "x" * (E._FP * (E.REPEAT_WINDOW - 2)) + state["cycle"]["seen"]
    state["cycle"]["first"] = state["battle"] - E.REPEAT_WINDOW + 1
    state, _ = act(state, 0, 1)
    assert len(state["cycle"]["seen"]) == E._FP * E.REPEAT_WINDOW
    assert state["cycle"]["first"] == state["battle"] - E.REPEAT_WINDOW + 1
    kept = E.REPEAT_WINDOW - 3                  # the made-up ones, but the oldest
    assert state["cycle"]["seen"][:E._FP * kept] == "x" * (E._FP * kept)
    assert "x" not in state["cycle"]["seen"][E._FP * kept:]   # then battles 1 to 3
    state = rig("K 2 2", "Q 3 3", "5")
    state, _ = act(state, 0, 1, 2)                 # Cara is out
    assert state["cycle"] == {"seen": E._position(state), "first": 2, "repeats": 0}


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
                                 "autoplay": 0, "wins": 0, "points": 0}

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
        seat = next(p for p in range(4) if bot(state, p))
        state, log = act(state, seat)
        assert not strings_in(log) & ids
        if war.result(state):
            break


def test_bot_reveals_only_when_asked():
    state = rig("Q 3", "5 4")
    assert bot(state, 0) == LISTED_REVEAL
    state, _ = act(state, 0)
    assert bot(state, 0) is None and bot(state, 1) == LISTED_REVEAL
    state, _ = act(state, (0, {"type": "autoplay", "speed": 2}))
    assert bot(state, 0) is None                 # it never touches auto-play


def test_bot_sees_only_its_view_and_actions():
    import inspect
    assert list(inspect.signature(war.bot).parameters) == ["view", "actions", "rng"]
    state = rig("Q 3", "5 4")
    seen, offered = war.view(state, 1), war.actions(state, 1)
    choice = war.bot(seen, offered, random.Random(3))
    assert choice in offered and strip_label(choice) == LISTED_REVEAL
    assert war.bot(seen, [a for a in offered if a["type"] != "reveal"], random.Random(3)) is None


# --------------------------------------------------------------------------
# Class-overview figures

def overview(state: dict) -> dict:
    players = [{"seat": p, "name": NAMES[p], "computer": False, "connected": True}
               for p in range(len(state["names"]))]
    return war.GAME.figures({"public": war.view(state, "board")["public"], "players": players,
                             "result": war.result(state)})


def test_figures_for_the_class_overview():
    state = war.new({"mode": "classic", "length": "full_elimination"}, NAMES[:3], 4)
    state, _ = act(state, 2)
    fig = overview(state)
    assert fig["progress"] == {"value": 18, "goal": 52, "label": "Ana holds 18 of 52 cards",
                               "detail": "Battle 1"}
    assert fig["turn"] == {"seats": [0, 1], "names": ["Ana", "Ben"], "text": "Waiting for Ana and Ben to reveal"}
    assert fig["scores"] == [{"seat": 0, "score": 18, "label": "18 cards", "out": False},
                             {"seat": 1, "score": 17, "label": "17 cards", "out": False},
                             {"seat": 2, "score": 16, "label": "16 cards", "out": False}]
    assert fig["alerts"] == []


def test_figures_goal_is_the_deck_size_and_sudden_death_alerts():
    state = rig("K K", "Q 2", "5")
    fig = overview(state)
    assert fig["progress"]["goal"] == 5 and fig["progress"]["label"] == "Ana holds 2 of 5 cards"
    state = loop_state()
    state["cycle"]["repeats"] = 1
    state, _ = act(state, 0, 1, 0, 1)
    assert overview(state)["alerts"] == [{"kind": "sudden_death", "level": "info",
                                          "text": "Sudden death: 20 battles left"}]
    state, _ = act(rig("K K", "Q 2", "5"), 0, 1, 2, 1, 0)
    fig = overview(state)
    assert fig["turn"] is None and fig["progress"]["value"] == 5
    assert [s["out"] for s in fig["scores"]] == [False, True, True]


# --------------------------------------------------------------------------
# The engine's fast state copy

def containers(x, out=None) -> dict:
    """id -> object for every dict and list inside x."""
    out = {} if out is None else out
    if isinstance(x, (dict, list)):
        out[id(x)] = x
        for v in (x.values() if isinstance(x, dict) else x):
            containers(v, out)
    return out


def test_state_copy_is_deep_but_for_what_is_only_ever_replaced():
    state, _ = act(rig("9 2 2 2 5", "9 3 3 3 K 2", "9 4 4 4 7", "6 8"), 0, 1, 2, 3, 0, 1, 2,
                   (1, {"type": "autoplay", "speed": 2}))
    state["sudden"] = {"reason": "limit", "first_battle": 3, "left": 4}
    ended, _ = war.finish(state)
    for s in (state, ended):
        assert set(E.copy_state(s)) == set(s)
        copied = E.copy_state(s)
        assert copied == s and json.dumps(copied, sort_keys=True) == json.dumps(s, sort_keys=True)
        shared = set(containers(s)) & set(containers(copied))
        allowed = set(containers(s["last"])) | set(containers(s["result"]))
        assert shared <= allowed, "the copy shares a mutable part with the original"


def test_a_snapshot_from_war_classic_1_plays_on_with_fresh_repeat_watching():
    state = war.new({"mode": "classic"}, ["Ana", "Ben"], 7)
    old = dict(state, version="war-classic-1",
               cycle={"lam": 4, "mark": "456669af5a55e213", "power": 8, "repeats": 1})
    upgraded = war.upgrade(old)
    assert upgraded["version"] == war.GAME.version and upgraded["cycle"]["repeats"] == 1
    assert upgraded["cycle"]["seen"] == "" and old["cycle"]["lam"] == 4  # the input is left alone
    assert war.upgrade(upgraded) is upgraded
    state, _log = war.apply(upgraded, 0, {"type": "reveal"})
    with pytest.raises(ValueError):
        war.upgrade(dict(state, version="war-classic-0"))
