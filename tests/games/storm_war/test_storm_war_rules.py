"""Storm War, paragraph by paragraph: every rule of shared/rules/storm-war.txt,
every provisional ruling and reconstruction decision, the guided demo's numbers
and a test that plays each of the 143 cards, on rigged tables."""
from __future__ import annotations

import json

import pytest

from app.engines.contract import IllegalAction, strip_label
from app.engines.storm_war import GAME, content
from app.engines.storm_war import engine as E

from engines.situations import Moves, rulings

MOVES = Moves(E)
act, offered, refused = MOVES.act, MOVES.offered, MOVES.refused
NAMES = ["Ana", "Ben", "Cara", "Dev"]
EMPTY = {"bmp": [], "chaos": [], "mentor": [], "tools": []}


# --------------------------------------------------------------------------
# Rigging a table

def by_type(kind, *, effects=None, without_effects=False):
    """Card keys of a type (optionally: with an effect op, or with no effects)."""
    keys = [k for k, c in content.CARDS.items() if c["type"] == kind]
    if effects:
        keys = [k for k in keys if any(e["op"] == effects for e in content.CARDS[k].get("effects", []))]
    if without_effects:
        keys = [k for k in keys if not content.CARDS[k].get("effects")]
    return keys


def plain(kind, n=1, skip=()):
    """n plain cards of a type (no effects, no synergy tags that could change sums)."""
    keys = [k for k in by_type(kind, without_effects=True) if k not in skip and k not in content.DEMO_CARDS]
    return keys[:n]


def new(n=3, seed=7, **options):
    return E.new(options, NAMES[:n], seed)


def rig(s, *, hands=None, jobsites=None, env=None, turn=0, deck=None, discard=None):
    """Put the named cards where asked; every other card goes to the deck (in its
    current order) unless `deck` gives the top cards. Ids are the cards' own."""
    ids = {key: cid for cid, key in s["faces"].items()}
    hands, jobsites = hands or {}, jobsites or {}
    placed = set()

    def take(key):
        assert key not in placed, f"{key} placed twice"
        placed.add(key)
        return ids[key]

    n = len(s["names"])
    s["hands"] = [[take(k) for k in hands.get(p, [])] for p in range(n)]
    s["jobsites"] = []
    for p in range(n):
        j = jobsites.get(p, {})
        s["jobsites"].append({"bmp": [take(k) for k in j.get("bmp", [])],
                              "chaos": [take(k) for k in j.get("chaos", [])],
                              "mentor": [take(k) for k in j.get("mentor", [])], "tools": []})
        for key, on in j.get("tools", []):
            s["jobsites"][p]["tools"].append({"id": take(key), "on": "self" if on == "self" else ids[on]})
    s["captured"] = [[] for _ in range(n)]
    s["discard"] = [take(k) for k in discard or []]
    top = [take(k) for k in deck or []]
    rest = [c for c in s["deck"] if s["faces"][c] not in placed]
    s["deck"] = top + rest + [ids[k] for k in content.CARDS if k not in placed and ids[k] not in rest]
    s["degrader"] = None
    if env:
        s["env"] = env
        s["envs"] = [e for e in content.ENVIRONMENT_ORDER if e != env]
    s["turn"], s["phase"], s["challenge"], s["choices"] = turn, "manage", None, []
    s["managed"] = {"degrader": False, "upgrade_or_sue": False, "returned": []}
    s["announced"] = True
    return s


def cid(s, key):
    return next(c for c, k in s["faces"].items() if k == key)


def defense(key, risk):
    return content.CARDS[key].get("defense", {}).get(risk, 0)


def all_pass(s, log=None, start=None):
    """Every trainee passes, starting with the one the game waits for."""
    log = log if log is not None else []
    for _ in range(10):
        if s["phase"] != "respond" or s["choices"]:
            break
        seat = E.view(s, "board")["prompt"]["waiting_for"][0]
        s, more = act(s, seat, type="pass")
        log += more
    return s, log


FOREST = next(k for k, e in content.ENVIRONMENTS.items() if e["name"] == "Forest")   # 4 / 6 / 5
CITY = content.DEMO_ENVIRONMENT


# --------------------------------------------------------------------------
# Setting up

def test_setup_deals_seven_and_the_first_turn_is_random_with_its_automatic_draw():
    firsts = set()
    for seed in range(12):
        s = E.new({}, NAMES[:3], seed)
        firsts.add(s["turn"])
        assert sorted(len(h) for h in s["hands"]) == [7, 7, 8]        # the first trainee has drawn
        assert len(s["hands"][s["turn"]]) == 8
        everything = s["deck"] + [c for h in s["hands"] for c in h]
        assert sorted(s["faces"][c] for c in everything) == sorted(content.CARDS)
        assert len(content.CARDS) == 143 and len(content.ENVIRONMENTS) == 21
        assert not {r["name"] for r in content.REFERENCES} & {s["faces"][c] for c in everything}
    assert firsts == {0, 1, 2}


def test_first_move_flags_the_deck_rulings():
    s = new()
    _, log = act(s, s["turn"], type="skip")
    assert {"storm_war.one_copy_each", "storm_war.reference_cards", "storm_war.combined_deck"} <= set(rulings(log))


def test_a_goal_of_three_or_five():
    assert new(goal=5)["goal"] == 5
    with pytest.raises(IllegalAction):
        E.new({"goal": 4}, NAMES[:2], 1)
    with pytest.raises(IllegalAction):
        E.new({}, NAMES[:1], 1)


# --------------------------------------------------------------------------
# Management

def test_apply_bmps_up_to_five_then_the_section_is_full():
    bmps = plain("bmp", 6)
    s = rig(new(), hands={0: bmps}, env=FOREST)
    for key in bmps[:5]:
        s, _ = act(s, 0, type="apply", card=cid(s, key))
    assert len(s["jobsites"][0]["bmp"]) == 5
    refused(s, 0, "illegal", type="apply", card=cid(s, bmps[5]))
    assert E.view(s, "board")["public"]["players"][0]["jobsite"]["defense"]["erosion"] == \
        sum(defense(k, "erosion") for k in bmps[:5])


def test_two_permanent_chaos_one_mentor_and_two_tools():
    chaos = [k for k in by_type("permanent_chaos") if not any(e["op"] in ("capacity", "team_up")
                                                              for e in content.CARDS[k].get("effects", []))][:3]
    mentors = plain("mentor", 2)
    tools = plain("tool", 3)
    s = rig(new(), hands={0: chaos + mentors + tools}, env=FOREST)
    for key in chaos[:2]:
        s, _ = act(s, 0, type="apply", card=cid(s, key))
    refused(s, 0, "illegal", type="apply", card=cid(s, chaos[2]))
    s, _ = act(s, 0, type="apply", card=cid(s, mentors[0]))
    refused(s, 0, "illegal", type="apply", card=cid(s, mentors[1]))
    s, _ = act(s, 0, type="equip", card=cid(s, tools[0]), on="self")
    refused(s, 0, "illegal", type="equip", card=cid(s, tools[1]), on="self")   # one on yourself
    s, _ = act(s, 0, type="equip", card=cid(s, tools[1]), on=cid(s, mentors[0]))
    assert not [a for a in offered(s, 0) if a["type"] == "equip"]              # two in all


def test_preventative_actions_and_defenders_share_slots():
    s = rig(new(), hands={0: plain("preventative", 1) + plain("defender", 1)}, env=FOREST)
    s, log = act(s, 0, type="apply", card=s["hands"][0][0])
    assert "storm_war.shared_slots" in rulings(log) and len(s["jobsites"][0]["bmp"]) == 1
    s, log = act(s, 0, type="apply", card=s["hands"][0][0])
    assert len(s["jobsites"][0]["mentor"]) == 1


def test_capacity_bonuses_do_not_stack_the_highest_applies():
    six, seven = by_type("permanent_chaos", effects="capacity")[:2]
    assert {content.CARDS[six]["effects"][0]["limit"], content.CARDS[seven]["effects"][0]["limit"]} == {6, 7}
    s = rig(new(), jobsites={0: {"chaos": [six, seven]}}, env=FOREST)
    assert E._limits(s, 0)["bmp"] == 7


def test_team_up_allows_a_second_mentor_but_still_two_tools():
    mentors, tools = plain("mentor", 2), plain("tool", 3)
    s = rig(new(), hands={0: [mentors[1]] + tools}, jobsites={0: {"chaos": ["team_up"], "mentor": [mentors[0]]}},
            env=FOREST)
    s, log = act(s, 0, type="apply", card=cid(s, mentors[1]))
    assert "storm_war.team_up" in rulings(log) and len(s["jobsites"][0]["mentor"]) == 2
    s, _ = act(s, 0, type="equip", card=cid(s, tools[0]), on=cid(s, mentors[0]))
    s, _ = act(s, 0, type="equip", card=cid(s, tools[1]), on="self")
    assert not [a for a in offered(s, 0) if a["type"] == "equip"]


def test_one_degrader_on_the_environment_and_its_placer_ignores_it():
    degrader = by_type("degrader")[0]
    risk = content.CARDS[degrader]["risk"]
    s = rig(new(), hands={0: [degrader, by_type("degrader")[1]]}, env=FOREST)
    s, log = act(s, 0, type="degrader", card=cid(s, degrader))
    assert "storm_war.degrader_on_environment" in rulings(log)
    assert not [a for a in offered(s, 0) if a["type"] == "degrader"]          # one per Environment
    printed = content.ENVIRONMENTS[FOREST]["risks"]
    for r in ("toxic", "erosion", "nutrient"):
        assert E._effective_risk(s, 0, r) == printed[r]                       # the placer ignores it
        assert E._effective_risk(s, 1, r) == printed[r] + risk.get(r, 0)


def test_upgrade_a_full_section_once_and_the_returned_card_waits_a_turn():
    bmps = plain("bmp", 7)
    s = rig(new(), hands={0: bmps[5:]}, jobsites={0: {"bmp": bmps[:5]}}, env=FOREST,
            discard=[], deck=[])
    s, _ = act(s, 0, type="upgrade", out=cid(s, bmps[0]), card=cid(s, bmps[5]))
    back = next(c for c in s["hands"][0] if s["faces"][c] == bmps[0])
    assert back != cid(s, bmps[5]) and bmps[5] in [s["faces"][c] for c in s["jobsites"][0]["bmp"]]
    assert not [a for a in offered(s, 0) if a["type"] in ("upgrade", "sue")]  # one upgrade or sue
    assert not [a for a in offered(s, 0) if a["type"] == "apply"]            # full, and the returned card waits
    s2 = rig(new(), hands={0: [bmps[5]]}, jobsites={0: {"bmp": bmps[:4]}}, env=FOREST)
    assert not [a for a in offered(s2, 0) if a["type"] == "upgrade"]         # not full: no upgrade


def test_a_removed_mentor_returns_its_tool_to_the_hand():
    mentors, tool = plain("mentor", 2), plain("tool", 1)[0]
    s = rig(new(), hands={0: [mentors[1]]}, jobsites={0: {"mentor": [mentors[0]], "tools": [(tool, mentors[0])]}},
            env=FOREST)
    s, log = act(s, 0, type="upgrade", out=cid(s, mentors[0]), card=cid(s, mentors[1]))
    assert tool in [s["faces"][c] for c in s["hands"][0]] and not s["jobsites"][0]["tools"]
    assert "storm_war.mentor_tool_returns" in rulings(log)


def test_sue_a_captured_degrader_discard_it_and_draw_two():
    degrader = by_type("degrader")[0]
    s = rig(new(), env=FOREST)
    s["captured"][0] = [cid(s, degrader)]
    s["deck"].remove(cid(s, degrader))
    s, _ = act(s, 0, type="sue", card=cid(s, degrader))
    assert len(s["hands"][0]) == 2 and s["discard"] == [cid(s, degrader)] and s["captured"][0] == []


# --------------------------------------------------------------------------
# Challenge and Respond

def demo_site():
    """Check Dam, Biochar, Sgt. Stormwater and Sgt's Shield: 12 Toxic, 10 Erosion, 12 Nutrient."""
    dam, biochar, sgt, shield = content.DEMO_CARDS
    return {"bmp": [dam, biochar], "mentor": [sgt], "tools": [(shield, "self")]}


def test_skip_draws_one_and_ends_the_turn():
    s = rig(new(), env=FOREST)
    s, _ = act(s, 0, type="skip")
    assert len(s["hands"][0]) == 1 and s["turn"] == 1 and len(s["hands"][1]) == 1   # Ben's automatic draw


def test_success_claims_rewards_by_printed_rank_discards_and_reveals():
    s = rig(new(), jobsites={0: demo_site()}, env=CITY)
    degrader = by_type("degrader")[0]
    s["degrader"] = {"id": cid(s, degrader), "by": 0}
    s["deck"].remove(cid(s, degrader))
    s, log = act(s, 0, type="challenge", risk="nutrient")
    assert s["phase"] == "respond" and E.view(s, "board")["prompt"]["waiting_for"] == [0, 1, 2]
    s, log = all_pass(s, log)
    assert s["claimed"][0] == [CITY] and s["captured"][0] == [cid(s, degrader)]
    assert len(s["hands"][0]) == 2 and s["last"]["success"]                   # Nutrient 10 is City's lowest
    assert s["jobsites"][0] == EMPTY and len(s["discard"]) == 4             # Tools go too
    assert "storm_war.cleanup_discards_tools" in rulings(log)
    assert s["env"] != CITY and s["turn"] == 1


@pytest.mark.parametrize("risk,reward", [("nutrient", 2), ("toxic", 3), ("erosion", 4)])
def test_rewards_are_two_three_or_four_for_the_lowest_middle_highest(risk, reward):
    assert E._reward(content.ENVIRONMENTS[CITY], risk) == (reward, {2: "lowest", 3: "middle", 4: "highest"}[reward])


def test_a_tied_risk_rewards_three():
    tied = next(e for e in content.ENVIRONMENTS.values() if len(set(e["risks"].values())) == 2)
    risk = next(r for r, v in tied["risks"].items() if list(tied["risks"].values()).count(v) == 2)
    assert E._reward(tied, risk) == (3, "tied")


def test_failure_keeps_the_jobsite_and_returns_donations():
    donor_bmp = plain("bmp", 1, skip=content.DEMO_CARDS)[0]
    s = rig(new(), jobsites={0: demo_site(), 1: {"bmp": [donor_bmp]}}, env=CITY)
    s, _ = act(s, 0, type="challenge", risk="erosion")                      # 10 against 14
    s, log = act(s, 1, type="donate", card=cid(s, donor_bmp))
    assert len(s["hands"][1]) == 2 and s["jobsites"][1]["bmp"] == []
    s, log = all_pass(s, log)
    assert not s["last"]["success"] and s["claimed"][0] == []
    assert len(s["jobsites"][0]["bmp"]) == 2 and s["jobsites"][1]["bmp"] == [cid(s, donor_bmp)]


def test_a_successful_donation_is_discarded():
    bmp = max(plain("bmp", 30, skip=content.DEMO_CARDS), key=lambda k: defense(k, "erosion"))
    s = rig(new(), jobsites={0: demo_site(), 1: {"bmp": [bmp]}}, env=CITY)
    s, _ = act(s, 0, type="challenge", risk="erosion")
    s["challenge"]["risk_bonus"] = -(4 - min(4, defense(bmp, "erosion")))    # so that the donation tips it
    s, _ = act(s, 1, type="donate", card=cid(s, bmp))
    s, _ = all_pass(s)
    assert s["last"]["success"] and cid(s, bmp) in s["discard"]


def test_a_new_play_or_donation_resets_all_passes():
    bmp = plain("bmp", 1, skip=content.DEMO_CARDS)[0]
    s = rig(new(), hands={2: ["gutter_cleaning"]}, jobsites={0: demo_site(), 1: {"bmp": [bmp]}}, env=CITY)
    s, _ = act(s, 0, type="challenge", risk="toxic")
    s, _ = act(s, 0, type="pass")
    s, log = act(s, 1, type="donate", card=cid(s, bmp))
    assert s["challenge"]["passes"] == [] and "storm_war.passes_reset" in rulings(log)
    s, _ = act(s, 0, type="pass")
    s, _ = act(s, 1, type="pass")
    s, log = act(s, 2, type="play", card=cid(s, "gutter_cleaning"))
    assert s["challenge"]["passes"] == []
    refused(s, 1, "illegal", type="donate", card=cid(s, bmp))                 # one donation each


def test_donations_may_exceed_capacity():
    bmps = plain("bmp", 6, skip=content.DEMO_CARDS)
    s = rig(new(), jobsites={0: {"bmp": bmps[:5]}, 1: {"bmp": [bmps[5]]}}, env=CITY)
    s, _ = act(s, 0, type="challenge", risk="toxic")
    s, log = act(s, 1, type="donate", card=cid(s, bmps[5]))
    assert "storm_war.donations_over_capacity" in rulings(log)


def test_only_the_trainees_the_game_waits_for_may_act():
    s = rig(new(), jobsites={0: demo_site()}, env=CITY)
    refused(s, 1, "not_your_turn", type="skip")
    refused(s, "board", "forbidden", type="skip")
    refused(s, "facilitator", "forbidden", type="skip")
    refused(s, 0, "illegal", type="pass")                                   # no challenge open
    refused(s, 0, "illegal", type="challenge", risk="acid")
    s, _ = act(s, 0, type="challenge", risk="toxic")
    refused(s, 0, "illegal", type="skip")                                   # a top-level action while it is open
    s, _ = act(s, 0, type="pass")
    refused(s, 0, "not_your_turn", type="pass")


# --------------------------------------------------------------------------
# One-time Chaos and the rulings about it

def respond_table(hands, *, site=None, env=CITY, risk="toxic", n=3):
    s = rig(new(n), hands=hands, jobsites={0: site or demo_site()}, env=env)
    s, _ = act(s, 0, type="challenge", risk=risk)
    return s


def test_numeric_modifiers_count_for_the_challenge_only():
    s = respond_table({1: ["separator_washout"]})
    s, log = act(s, 1, type="play", card=cid(s, "separator_washout"))
    s, log = all_pass(s, log)
    assert not s["last"]["success"] and s["last"]["defense"] == 9          # 12 - 3 against 12
    assert "storm_war.one_time_modifiers" in rulings(log)


def test_hero_block_cancels_the_last_chaos_card():
    s = respond_table({1: ["separator_washout"], 0: ["hero_block"]})
    s, _ = act(s, 1, type="play", card=cid(s, "separator_washout"))
    s, log = act(s, 0, type="play", card=cid(s, "hero_block"))
    assert "storm_war.hero_block_cancels_last" in rulings(log)
    s, _ = all_pass(s)
    assert s["last"]["success"] and s["last"]["defense"] == 12


def test_hero_block_in_management_shields_the_turn():
    s = rig(new(), hands={0: ["hero_block"], 1: ["separator_washout"]}, jobsites={0: demo_site()}, env=CITY)
    s, log = act(s, 0, type="shield", card=cid(s, "hero_block"))
    assert "storm_war.hero_block_management" in rulings(log)
    s, _ = act(s, 0, type="challenge", risk="toxic")
    s, log = act(s, 1, type="play", card=cid(s, "separator_washout"))
    assert any(e["t"] == "shielded" for e in log)
    s, _ = all_pass(s)
    assert s["last"]["success"] and not s["shield"][0]


def test_an_unused_hero_block_shield_expires_at_the_next_turn():
    """The sheet: Hero Block played in Management "expires at the next turn": when the
    next trainee's turn begins it is gone, used or not."""
    s = rig(new(), hands={0: ["hero_block"], 1: ["separator_washout"]}, env=FOREST)
    s, _ = act(s, 0, type="shield", card=cid(s, "hero_block"))
    assert E.view(s, "board")["public"]["players"][0]["shield"]
    s, _ = act(s, 0, type="skip")
    assert s["turn"] == 1 and not s["shield"][0]
    assert not E.view(s, "board")["public"]["players"][0]["shield"]


def test_your_jobsite_boosts_help_only_the_player():
    s = respond_table({1: ["wider_buffer"]}, risk="erosion")
    s, log = act(s, 1, type="play", card=cid(s, "wider_buffer"))
    assert "storm_war.your_jobsite_is_the_player" in rulings(log)
    s, _ = all_pass(s)
    assert s["last"]["defense"] == 10                                      # nothing for the challenger
    s = respond_table({0: ["wider_buffer"]}, risk="erosion")
    s, _ = act(s, 0, type="play", card=cid(s, "wider_buffer"))
    s, _ = all_pass(s)
    assert s["last"]["defense"] == 12


def test_cards_that_let_you_choose_keep_the_choice():
    s = respond_table({1: ["clogged_media"]})
    choices = [a for a in offered(s, 1) if a["type"] == "play"]
    assert {a["risk"] for a in choices} == {"toxic", "erosion", "nutrient"}
    s, log = act(s, 1, type="play", card=cid(s, "clogged_media"), risk="erosion")
    assert "storm_war.choices_kept" in rulings(log)
    s, _ = all_pass(s)
    assert s["last"]["defense"] == 12                                      # erosion was not challenged


def test_perfect_treatment_may_use_any_jobsite():
    best = max(plain("bmp", 30, skip=content.DEMO_CARDS), key=lambda k: defense(k, "toxic"))
    s = rig(new(), hands={0: ["perfect_treatment"]}, jobsites={0: demo_site(), 2: {"bmp": [best]}}, env=CITY)
    s, _ = act(s, 0, type="challenge", risk="toxic")
    s, log = act(s, 0, type="play", card=cid(s, "perfect_treatment"), jobsite=2)
    s, log = all_pass(s, log)
    assert s["last"]["defense"] == 12 + defense(best, "toxic") and "storm_war.perfect_any_jobsite" in rulings(log)


def test_missed_draws_do_not_stack_but_skips_add_up():
    s = respond_table({1: ["notice_of_violation", "late_notice_of_intent"], 2: ["stop_work_order", "debris_flow"]})
    s, _ = act(s, 1, type="play", card=cid(s, "notice_of_violation"))
    s, _ = act(s, 1, type="play", card=cid(s, "late_notice_of_intent"), target=0)
    s, _ = act(s, 2, type="play", card=cid(s, "stop_work_order"))
    s, _ = act(s, 2, type="play", card=cid(s, "debris_flow"), target=0)
    s, log = all_pass(s)
    assert "storm_war.one_draw_block" in rulings(log) and s["miss_draw"][0] is True
    assert "storm_war.skips_accumulate" in rulings(log) and s["skips"][0] == 2


def test_skipped_turns_and_a_missed_draw_play_out():
    s = rig(new(), env=FOREST)
    s["skips"][1] = 1
    s["miss_draw"][2] = True
    s, log = act(s, 0, type="skip")
    assert s["turn"] == 2 and any(e["t"] == "skipped" for e in log) and any(e["t"] == "missed_draw" for e in log)
    assert len(s["hands"][2]) == 0 and s["miss_draw"][2] is False


def test_over_budget_discards_the_tool_before_the_mentor():
    mentor, tool = plain("mentor", 1)[0], plain("tool", 1)[0]
    s = respond_table({1: ["over_budget"]}, site={"bmp": plain("bmp", 2, skip=content.DEMO_CARDS),
                                                  "mentor": [mentor], "tools": [(tool, mentor)]})
    options = [a for a in offered(s, 1) if a["type"] == "play"]
    assert options == [{"type": "play", "card": cid(s, "over_budget"), "tool": cid(s, tool), "mentor": cid(s, mentor)}]
    s, _ = act(s, 1, **options[0])
    s, log = all_pass(s)
    assert "storm_war.overbudget_tools_first" in rulings(log)
    assert {cid(s, tool), cid(s, mentor)} <= set(s["discard"]) and tool not in [s["faces"][c] for c in s["hands"][0]]


def test_a_discard_request_larger_than_the_cards_discards_what_there_is():
    dam, biochar, sgt, shield = content.DEMO_CARDS
    s = respond_table({1: ["maintenance_backlog"]}, site={"mentor": [sgt], "tools": [(shield, "self")]})
    s, _ = act(s, 1, type="play", card=cid(s, "maintenance_backlog"))
    s, log = all_pass(s)
    assert "storm_war.discard_what_there_is" in rulings(log)   # Ben and Cara have no BMPs
    assert s["last"] is not None                                # nothing to choose: the challenge resolved


def test_required_choices_block_until_made():
    bmp = plain("bmp", 1, skip=content.DEMO_CARDS)[0]
    s = rig(new(), hands={1: ["maintenance_backlog"]}, jobsites={0: demo_site(), 2: {"bmp": [bmp]}}, env=CITY)
    s, _ = act(s, 0, type="challenge", risk="toxic")
    s, _ = act(s, 1, type="play", card=cid(s, "maintenance_backlog"))
    s, _ = all_pass(s)
    # Every other trainee discards a BMP of their choice: Ana (2 BMPs) first, then Cara.
    assert E.view(s, "board")["prompt"]["waiting_for"] == [0] and s["last"] is None
    refused(s, 2, "not_your_turn", type="choose", card=cid(s, bmp))
    refused(s, 0, "illegal", type="pass")
    dam = content.DEMO_CARDS[0]
    s, _ = act(s, 0, type="choose", card=cid(s, dam))
    assert offered(s, 2) == [{"type": "choose", "card": cid(s, bmp)}]
    s, _ = act(s, 2, type="choose", card=cid(s, bmp))
    assert s["last"] is not None and {cid(s, bmp), cid(s, dam)} <= set(s["discard"])


def test_excess_cards_after_a_capacity_bonus_leaves_are_the_owners_choice():
    cap = next(k for k in by_type("permanent_chaos", effects="capacity")
               if content.CARDS[k]["effects"][0] == {"op": "capacity", "section": "bmp", "limit": 6})
    bmps = plain("bmp", 6, skip=content.DEMO_CARDS)
    salmon = max(content.ENVIRONMENTS, key=lambda e: content.ENVIRONMENTS[e]["risks"]["toxic"])
    s = rig(new(), hands={1: ["legal_loophole"]}, jobsites={0: {"bmp": bmps, "chaos": [cap]}}, env=salmon)
    assert E._defense(s, 0, "toxic") < content.ENVIRONMENTS[salmon]["risks"]["toxic"]   # the challenge will fail
    s, _ = act(s, 0, type="challenge", risk="toxic")
    s, _ = act(s, 1, type="play", card=cid(s, "legal_loophole"), target=0, pick=cid(s, cap))
    s, log = all_pass(s)
    assert "storm_war.excess_after_capacity" in rulings(log) and E.view(s, "board")["prompt"]["waiting_for"] == [0]
    s, _ = act(s, 0, type="choose", card=cid(s, bmps[0]))
    assert len(s["jobsites"][0]["bmp"]) == 5 and s["last"] is not None


def test_synergies_see_every_jobsite():
    tag = content.CARDS["rain_garden"]["effects"][0]["tag"]
    holder = next(k for k, c in content.CARDS.items() if tag in c.get("tags", []) and c["type"] == "bmp"
                  and k != "rain_garden")
    s = rig(new(), jobsites={0: {"bmp": ["rain_garden"]}, 1: {"bmp": [holder]}}, env=FOREST)
    # The boards show it before the challenge, in that risk only (views add up every risk at once)
    shown = E.view(s, "board")["public"]["players"][0]["jobsite"]["defense"]
    assert shown == {risk: defense("rain_garden", risk) + (risk == "toxic") for risk in content.RISKS}
    s, _ = act(s, 0, type="challenge", risk="toxic")
    s, log = all_pass(s)
    assert s["last"]["defense"] == defense("rain_garden", "toxic") + 1
    assert "storm_war.synergy_everywhere" in rulings(log)


def test_an_empty_deck_is_remade_and_an_empty_everything_draws_what_there_is():
    s = rig(new(), env=FOREST)
    s["discard"], s["deck"] = s["deck"][:3], []
    s, log = act(s, 0, type="skip")
    assert "storm_war.reshuffle_discards" in rulings(log) and len(s["hands"][0]) == 1
    s2 = rig(new(), env=FOREST)
    s2["hands"][2] += s2["deck"]
    s2["deck"] = []
    s2, log = act(s2, 0, type="skip")
    assert "storm_war.draw_what_there_is" in rulings(log) and len(s2["hands"][0]) == 0


def test_reaching_the_goal_ends_the_game_at_once():
    """The winning cleanup ends the game there: no reward, no cleanup, no reveal, and
    the claimed Environment is no longer shown as the one to challenge."""
    s = rig(new(goal=3), jobsites={0: demo_site()}, env=CITY)
    s["claimed"][0] = [FOREST, content.ENVIRONMENT_ORDER[1]]
    hand, site, left = len(s["hands"][0]), list(s["jobsites"][0]["bmp"]), len(s["envs"])
    s, _ = act(s, 0, type="challenge", risk="toxic")
    s, log = all_pass(s)
    assert E.result(s)["winners"] == [0] and all(E.actions(s, p) == [] for p in range(3))
    refused(s, 1, "game_over", type="skip")
    assert s["claimed"][0][-1] == CITY and len(s["hands"][0]) == hand and s["jobsites"][0]["bmp"] == site
    assert len(s["envs"]) == left and not any(e["t"] in ("draw", "reveal") for e in log)
    assert "storm_war.cleanup_discards_tools" not in rulings(log)
    board = E.view(s, "board")["public"]
    assert board["environment"] is None and board["effective_risks"] is None
    assert board["last"]["success"] and board["last"]["environment"] == "City"
    assert "City" in board["players"][0]["claimed"]


def test_a_game_saved_by_storm_war_1_plays_on():
    s = new()
    old = dict(s, version="storm-war-1")
    assert E.upgrade(old)["version"] == E.VERSION and E.upgrade(old)["env"] == s["env"]
    won = dict(old, status="over", claimed=[[FOREST, CITY, s["env"]], [], []])
    assert E.upgrade(won)["env"] is None              # storm-war-1 kept showing the claimed one
    assert E.upgrade(s) is s
    with pytest.raises(ValueError):
        E.upgrade(dict(s, version="storm-war-0"))


def test_the_environments_cannot_run_out():
    """Retired ruling: with every trainee one short of the largest goal, the next
    cleanup wins, and Environments are still left to reveal."""
    most = E.MAX_SEATS * (max(next(o for o in E.OPTIONS if o.key == "goal").choices) - 1)
    assert most + 1 < len(content.ENVIRONMENTS)       # 17 of the 21 at most
    s = rig(new(4, goal=5), jobsites={0: demo_site()}, env=CITY)
    others = [e for e in content.ENVIRONMENT_ORDER if e != CITY]
    s["claimed"] = [others[4 * p:4 * p + 4] for p in range(4)]
    s["envs"] = [e for e in others if e not in sum(s["claimed"], [])]
    assert len(s["envs"]) == len(content.ENVIRONMENTS) - 1 - most
    s, _ = act(s, 0, type="challenge", risk="toxic")
    s, _ = all_pass(s)
    assert E.result(s)["winners"] == [0] and len(s["claimed"][0]) == 5


def test_the_teacher_may_end_the_game_and_ties_share():
    s = new()
    s["claimed"] = [[FOREST], [CITY], []]
    s, log = E.finish(s)
    assert E.result(s)["winners"] == [0, 1] and "storm_war.tied_environments" in rulings(log)


RETIRED = {"storm_war.environments_run_out"}   # says why it cannot arise (test_the_environments_cannot_run_out)


def test_the_rulings_are_all_emitted_by_the_engine():
    source = open(E.__file__).read()
    for r in GAME.rulings:
        assert (f'"{r["id"]}"' in source) != (r["id"] in RETIRED), r["id"]


# --------------------------------------------------------------------------
# The guided demo

def test_the_guided_demo_numbers_and_steps():
    s = E.new({"demo": True}, ["You", "Practice rival"], 3)
    assert s["env"] == CITY and s["turn"] == 0 and s["goal"] == 1
    assert content.ENVIRONMENTS[CITY]["risks"]["toxic"] == 12 and content.ENVIRONMENTS[CITY]["risks"]["nutrient"] == 10
    assert all(content.card(k)["type"] in E.PERMANENT for k in (s["faces"][c] for c in s["hands"][1]))
    steps = []
    for _ in range(4):
        (only,) = offered(s, 0)
        steps.append(s["faces"][only["card"]])
        s, _ = act(s, 0, **only)
    assert steps == list(content.DEMO_CARDS)
    assert {r: E._defense(s, 0, r) for r in ("toxic", "erosion", "nutrient")} == \
        {"toxic": 12, "erosion": 10, "nutrient": 12}
    assert {a["risk"] for a in offered(s, 0)} == {"toxic", "nutrient"}
    refused(s, 0, "illegal", type="challenge", risk="erosion")
    s, _ = act(s, 0, type="challenge", risk="toxic")
    s, _ = act(s, 0, type="pass")
    rival = E.bot(E.view(s, 1), E.actions(s, 1), __import__("random").Random(1))
    assert strip_label(rival) == {"type": "pass"}                            # the rival responds automatically
    s, _ = act(s, 1, type="pass")
    assert E.result(s)["winners"] == [0]


# --------------------------------------------------------------------------
# Every card, played

def _play_card(key):
    c = content.CARDS[key]
    kind = c["type"]
    if kind in ("bmp", "preventative", "permanent_chaos", "mentor", "defender"):
        s = rig(new(), hands={0: [key]}, env=FOREST)
        before = {r: E._defense(s, 0, r) for r in ("toxic", "erosion", "nutrient")}
        s, _ = act(s, 0, type="apply", card=cid(s, key))
        after = {r: E._defense(s, 0, r) for r in ("toxic", "erosion", "nutrient")}
        for r in before:
            assert after[r] - before[r] >= c["defense"][r], (key, r)
        for e in c.get("effects", []):
            if e["op"] == "capacity":
                assert E._limits(s, 0)[e["section"]] == e["limit"]
            if e["op"] == "team_up":
                assert E._limits(s, 0)["mentor"] == 2
        return
    if kind == "tool":
        s = rig(new(), hands={0: [key]}, env=FOREST)
        s, _ = act(s, 0, type="equip", card=cid(s, key), on="self")
        assert E._defense(s, 0, "toxic") == c["defense"]["toxic"]
        return
    if kind == "degrader":
        s = rig(new(), hands={0: [key]}, env=FOREST)
        s, _ = act(s, 0, type="degrader", card=cid(s, key))
        total = sum(E._effective_risk(s, 1, r) - content.ENVIRONMENTS[FOREST]["risks"][r]
                    for r in ("toxic", "erosion", "nutrient"))
        assert total == sum(c["risk"].values()) > 0
        return
    # One-time Chaos: Ben plays it against Ana's challenge (or for it), then everyone passes.
    mentor, tool = plain("mentor", 1)[0], plain("tool", 1)[0]
    bmps = plain("bmp", 4, skip=content.DEMO_CARDS)
    site = {"bmp": bmps[:2], "chaos": plain("permanent_chaos", 1), "mentor": [mentor], "tools": [(tool, mentor)]}
    s = rig(new(), hands={1: [key], 0: [bmps[2]]}, jobsites={0: site, 2: {"bmp": [bmps[3]]}}, env=FOREST)
    if any(e["op"] == "block" for e in c["effects"]):
        s["hands"][2].append(cid(s, "separator_washout"))
        s["deck"].remove(cid(s, "separator_washout"))
    s, _ = act(s, 0, type="challenge", risk="toxic")
    if any(e["op"] == "block" for e in c["effects"]):
        s, _ = act(s, 2, type="play", card=cid(s, "separator_washout"))
    plays = [a for a in offered(s, 1) if a["type"] == "play"]
    assert plays, f"{key} cannot be played in a challenge"
    before = json.loads(json.dumps(s))
    s, log = act(s, 1, **plays[0])
    s, log2 = all_pass(s, log)
    while s["choices"]:
        seat = s["choices"][0]["seat"]
        s, more = act(s, seat, **offered(s, seat)[0])
        log2 += more
        s, more = all_pass(s)
        log2 += more
    assert s != before and any(e["t"] in ("play",) for e in log), key
    return s


@pytest.mark.parametrize("key", sorted(content.CARDS))
def test_every_card_can_be_played_and_does_what_it_says(key):
    _play_card(key)


def test_computer_levels_play_differently():
    """Standard spoils a challenge it can; easy never does, and waits for a lead of 2."""
    import random

    s = rig(new(), hands={1: ["separator_washout"]}, jobsites={0: demo_site()}, env=CITY)
    s, _ = act(s, 0, type="challenge", risk="toxic")
    s, _ = act(s, 0, type="pass")
    choices = {}
    for level in ("easy", "standard"):
        s["options"]["computer_level"] = level
        choice = E.bot(E.view(s, 1), E.actions(s, 1), random.Random(1))
        choices[level] = strip_label(choice)["type"]
    assert choices == {"easy": "pass", "standard": "play"}
    # A rival's Degrader leaves Ana a best lead of 0 or 1 (City: Toxic 12 vs 12, Nutrient 12 vs 10 + 1 or 2).
    degrader = next(k for k in by_type("degrader") if content.CARDS[k]["risk"].get("nutrient") in (1, 2))
    t = rig(new(), jobsites={0: demo_site()}, env=CITY)
    t["degrader"] = {"id": cid(t, degrader), "by": 1}
    t["deck"].remove(cid(t, degrader))
    for level, expected in (("easy", "skip"), ("standard", "challenge")):
        t["options"]["computer_level"] = level
        assert strip_label(E.bot(E.view(t, 0), E.actions(t, 0), random.Random(1)))["type"] == expected


def test_a_discard_whose_cards_went_meanwhile_lapses_instead_of_blocking_the_table():
    """Found by tests/test_no_leak.py: a Maintenance Backlog asked Dev to discard a BMP,
    then a Washed-Out Silt Fence later in the same stack took Dev's only BMP. The choice
    stayed queued with nothing to choose: nobody could move again."""
    s = E.new({}, NAMES[:2], 3)
    assert s["jobsites"][1]["bmp"] == []
    s["choices"] = [{"seat": 1, "kind": "bmp", "why": "Maintenance Backlog"}]
    out = []
    E._settle(s, out)
    assert s["choices"] == [] and "storm_war.discard_what_there_is" in rulings(out)
    assert any(E.actions(s, seat) for seat in range(2)), "the game must go on"
