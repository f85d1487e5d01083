"""Storm War's computer player (computer.py): each heuristic on a rigged table, and
seeded all-computer games at the standard level that play every card and apply
every ruling a game can reach without the teacher."""
from __future__ import annotations

import random
from collections import Counter
from functools import lru_cache

import pytest

from app.engines.contract import strip_label
from app.engines.storm_war import GAME, content
from app.engines.storm_war import engine as E

from games.storm_war.test_storm_war_rules import CITY, FOREST, act, cid, demo_site, new, rig

NAMES = ["Ana", "Ben", "Cara", "Dev"]


def choice(s, seat, level="standard"):
    s["options"]["computer_level"] = level
    picked = E.bot(E.view(s, seat), E.actions(s, seat), random.Random(1))
    return strip_label(picked)


def named(s, action):
    """The played card's key, to compare with what a test expects."""
    return s["faces"][action["card"]]


# --------------------------------------------------------------------------
# Management

def test_a_thin_challenge_is_shielded_first_a_comfortable_one_is_not():
    s = rig(new(), hands={0: ["hero_block"]}, jobsites={0: demo_site()}, env=CITY)   # Toxic 12 against 12
    assert choice(s, 0) == {"type": "shield", "card": cid(s, "hero_block")}
    assert choice(s, 0, "easy")["type"] == "challenge"           # easy never spends a card on a shield
    forest = rig(new(), hands={0: ["hero_block"]}, jobsites={0: demo_site()}, env=FOREST)  # 12 against 4
    assert choice(forest, 0) == {"type": "challenge", "risk": "toxic"}


def test_standard_counts_the_helping_cards_in_its_hand_easy_does_not():
    rural = next(k for k, e in content.ENVIRONMENTS.items() if e["name"] == "Rural Homesteads")   # 6 / 9 / 9
    s = rig(new(), hands={0: ["iron_bench_upgrade"]}, jobsites={0: {"bmp": list(content.DEMO_CARDS[:2])}},
            env=rural)                                                                       # 5 / 5 / 6
    margins = {r: E._defense(s, 0, r) - E._effective_risk(s, 0, r) for r in ("toxic", "erosion", "nutrient")}
    assert max(margins.values()) < 0 and margins["nutrient"] + 3 == 0                # Iron Bench Upgrade: +3
    assert choice(s, 0) == {"type": "challenge", "risk": "nutrient"}
    assert choice(s, 0, "easy")["type"] == "skip"


# --------------------------------------------------------------------------
# Respond: the challenger

def challenge(hands, *, site=None, env=CITY, risk="toxic", n=3):
    s = rig(new(n), hands=hands, jobsites={0: site or demo_site()}, env=env)
    s, _ = act(s, 0, type="challenge", risk=risk)
    return s


def test_the_challenger_cancels_the_deciding_spoiler_with_hero_block():
    s = challenge({0: ["hero_block", "gutter_cleaning"], 1: ["separator_washout"]})
    s, _ = act(s, 1, type="play", card=cid(s, "separator_washout"))      # 12 - 3 against 12
    assert named(s, choice(s, 0)) == "hero_block"


def test_the_challenger_plays_the_smallest_card_that_wins_and_keeps_the_rest():
    s = challenge({0: ["coho_safe_soil_mix", "gutter_cleaning"], 1: ["separator_washout"]})
    s, _ = act(s, 1, type="play", card=cid(s, "separator_washout"))  # short by 3: Gutter Cleaning (+2) is not enough
    assert named(s, choice(s, 0)) == "coho_safe_soil_mix"
    s = challenge({0: ["coho_safe_soil_mix", "gutter_cleaning"], 1: ["clogged_media"]})
    s, _ = act(s, 1, type="play", card=cid(s, "clogged_media"), risk="toxic")   # short by 2
    assert named(s, choice(s, 0)) == "gutter_cleaning"


def test_perfect_treatment_borrows_the_best_bmp_on_any_jobsite():
    dam, _, sgt, shield = content.DEMO_CARDS
    site = {"bmp": [dam], "mentor": [sgt], "tools": [(shield, "self")]}          # Toxic 8 against City's 12
    s = rig(new(), hands={0: ["perfect_treatment"]}, env=CITY,
            jobsites={0: site, 2: {"bmp": ["salmon_safe_bioretention"]}})        # its Toxic 4 against Check Dam's 1
    s, _ = act(s, 0, type="challenge", risk="toxic")
    picked = choice(s, 0)
    assert named(s, picked) == "perfect_treatment" and picked["jobsite"] == 2


# --------------------------------------------------------------------------
# Respond: the rivals

def test_a_rival_cancels_the_card_that_wins_the_challenge_with_hero_block():
    highway = next(k for k, e in content.ENVIRONMENTS.items() if e["name"] == "Highway")
    s = challenge({0: ["coho_safe_soil_mix"], 1: ["hero_block"]}, env=highway)   # Toxic 12 against 15
    s, _ = act(s, 0, type="play", card=cid(s, "coho_safe_soil_mix"))           # 16 against 15
    assert named(s, choice(s, 1)) == "hero_block"
    assert choice(s, 1, "easy") == {"type": "pass"}


def test_a_shielded_challenger_gets_the_weakest_spoiler_first_as_bait():
    s = rig(new(), hands={0: ["hero_block"], 1: ["separator_washout", "clogged_media"]},
            jobsites={0: demo_site()}, env=FOREST)
    s, _ = act(s, 0, type="shield", card=cid(s, "hero_block"))
    s, _ = act(s, 0, type="challenge", risk="toxic")                           # 12 against 4
    assert named(s, choice(s, 1)) == "clogged_media"
    s["shield"][0] = False
    assert named(s, choice(s, 1)) == "separator_washout"                      # unshielded: the strongest first


def test_a_winning_leader_is_slowed_down_when_nobody_can_spoil():
    s = challenge({1: ["stop_work_order"]}, env=FOREST)                        # 12 against 4: nothing spoils that
    s["claimed"][0] = [CITY]
    assert named(s, choice(s, 1)) == "stop_work_order"
    s = challenge({1: ["late_notice_of_intent"]}, env=FOREST)
    s["claimed"][2] = [CITY]                                                   # Cara leads, not the challenger
    assert choice(s, 1) == {"type": "play", "card": cid(s, "late_notice_of_intent"), "target": 2}
    s["miss_draw"][2] = True              # a missed draw does not stack: it goes to the one about to claim
    assert choice(s, 1) == {"type": "play", "card": cid(s, "late_notice_of_intent"), "target": 0}
    s["miss_draw"][0] = True
    assert choice(s, 1) == {"type": "pass"}


def test_a_spoiler_is_covered_with_a_card_that_is_useless_here():
    s = challenge({1: ["separator_washout", "wider_buffer"]})
    s, _ = act(s, 1, type="play", card=cid(s, "separator_washout"))
    assert named(s, choice(s, 1)) == "wider_buffer"          # a Hero Block now would cancel the decoy


def test_a_failing_challenge_gets_the_cheapest_donation_for_two_free_cards():
    bmps = [k for k, c in content.CARDS.items() if c["type"] == "bmp" and not c["effects"]
            and k not in content.DEMO_CARDS]
    weak, strong = min(bmps, key=lambda k: content.CARDS[k]["defense"]["toxic"]), \
        max(bmps, key=lambda k: content.CARDS[k]["defense"]["toxic"])
    s = rig(new(), jobsites={0: {"bmp": [content.DEMO_CARDS[0]]}, 1: {"bmp": [strong, weak]}}, env=CITY)
    s, _ = act(s, 0, type="challenge", risk="toxic")                           # 1 against 12
    assert choice(s, 1) == {"type": "donate", "card": cid(s, weak)}
    s, _ = act(s, 0, type="pass")
    assert choice(s, 1, "easy") == {"type": "pass"}


# --------------------------------------------------------------------------
# Seeded all-computer games

# Rulings no computer game can apply, and why.
OUT_OF_REACH = {
    # Only the teacher's End stops a game before someone reaches the goal.
    "storm_war.tied_environments",
    # Only the platform's lesson clock running out applies it (app/service/tables/lesson.py).
    "storm_war.lesson_clock",
    # Retired: someone reaches the goal before the Environments run out.
    "storm_war.environments_run_out",
    # Needs every card out of the draw deck and the discard pile at once; hands and
    # Jobsites never hold that many (the piles' low-water mark is asserted below).
    "storm_war.draw_what_there_is",
}


@lru_cache(maxsize=None)
def computer_games(count: int) -> tuple[Counter, Counter, int, int]:
    """`count` seeded games of 2, 3 and 4 computers at the standard level, goals 3 and 5:
    (rulings applied, cards played, games finished, fewest cards left in the two piles)."""
    applied, played, finished, low = Counter(), Counter(), 0, len(content.CARDS)
    for seed in range(count):
        n, goal = 2 + seed % 3, (3, 5)[(seed // 3) % 2]
        s = E.new({"goal": goal, "computer_level": "standard"}, NAMES[:n], seed)
        rng = random.Random(seed)
        for _ in range(3000):
            if E.result(s) is not None:
                break
            seat = E.view(s, "board")["prompt"]["waiting_for"][0]
            s, out = E.apply(s, seat, E.bot(E.view(s, seat), E.actions(s, seat), rng))
            low = min(low, len(s["deck"]) + len(s["discard"]))
            for e in out:
                if e["t"] == "ruling":
                    applied[e["id"]] += 1
                elif e["t"] in ("apply", "equip", "degrader", "play", "shield"):
                    played[e["card"]] += 1
        finished += E.result(s) is not None
    return applied, played, finished, low


def check_games(count: int, rulings: set[str]) -> None:
    applied, played, finished, low = computer_games(count)
    assert finished == count
    assert sorted(k for k in content.CARDS if not played[k]) == []
    assert sorted(r for r in rulings if not applied[r]) == []
    assert low > len(content.CARDS) // 3, "the piles ran low: draw_what_there_is may be in reach after all"


def test_forty_computer_games_play_every_card_and_most_rulings():
    rare = {"storm_war.excess_after_capacity", "storm_war.one_draw_block", "storm_war.skips_accumulate"}
    check_games(40, {r["id"] for r in GAME.rulings} - OUT_OF_REACH - rare)


@pytest.mark.slow
def test_sixty_computer_games_play_every_card_and_every_ruling_in_reach():
    # The rarest ruling in reach (skips_accumulate) first comes up in game 42 of these seeds;
    # the 200 games this played before found nothing more, at three times the cost.
    check_games(60, {r["id"] for r in GAME.rulings} - OUT_OF_REACH)
