"""The computer wizard's levels mean something: the adept weighs every choice (the
chance of beating the dice against what the attack or the counterspell is worth), the
novice slips on purpose (engine.SLIPS), and over seeded duels each level beats a
random legal player and the adept beats the novice (bench/computer_strength.py
prints the full table, 500 duels a pairing)."""
from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest

from app.engines import wizard
from app.engines.contract import strip_label
from app.engines.wizard import content
from app.engines.wizard import engine as E

from .test_wizard_rules import APA, SARAPION, act, casting, started

BENCH = Path(__file__).resolve().parents[3] / "bench" / "computer_strength.py"
VS_COMPUTER = {"opponent": "computer"}


@pytest.fixture(scope="module")
def strength():
    spec = importlib.util.spec_from_file_location("computer_strength", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def choice(s: dict, seat: int, level: str, seed: int = 0) -> dict:
    s = dict(s, options=dict(s["options"], computer_level=level))
    picked = E.bot(E.view(s, seat), E.actions(s, seat), random.Random(seed))
    return strip_label(picked)


def spell(strength: int, kind: str = "attack", gender=None) -> int:
    return next(n for n, sp in sorted(content.SPELLS.items())
                if sp["kind"] == kind and sp["strength"] == strength and sp["gender"] == gender)


def test_the_dice_odds_are_exact():
    assert E._beats(0) == pytest.approx((1 - 146 / 1296) / 2)      # 2d6 - 2d6 is 0 in 146 of 1,296
    assert E._beats(-100) == 1 and E._beats(20) == 0
    assert E._beats(-1) + E._beats(0) == pytest.approx(1)           # symmetric around zero


def test_the_adept_guards_its_leader():
    s = started()                                             # Ana holds Apa Nochis, Ben Sarapion
    guard = spell(3, "defense")                               # a counterspell that fits anyone
    s = casting(s, seat=1, revealed=[spell(5)], rival=[guard])
    s, _ = act(s, 1, type="cast", spell=spell(5), target=APA, words="")
    assert choice(s, 0, "adept") == {"type": "defend", "spell": guard}


def test_the_adept_answers_with_the_counterspell_only_a_woman_can_take():
    s = started()
    client = next(k for k in content.CHARACTER_ORDER[2:] if content.CHARACTERS[k]["gender"] == "female"
                  and content.CHARACTERS[k]["willpower"] == 4)
    s["owner"][client] = 0
    narrow, broad = spell(4, "defense", "female"), spell(3, "defense")
    s = casting(s, seat=1, revealed=[spell(3)], rival=[narrow, broad])
    s, _ = act(s, 1, type="cast", spell=spell(3), target=client, words="")
    # The broad one could shield Ana's leader later: the narrow one goes now.
    assert choice(s, 0, "adept") == {"type": "defend", "spell": narrow}


def test_the_novice_slips_and_the_adept_never_does():
    s = casting(started(), seat=0, revealed=[spell(5), spell(2)])
    adept = {str(choice(s, 0, "adept", seed)) for seed in range(40)}
    novice = {str(choice(s, 0, "novice", seed)) for seed in range(40)}
    assert len(adept) == 1 and len(novice) > 3
    assert adept <= novice


def test_the_adept_goes_for_the_win_over_the_rivals_leader():
    s = started()
    s["owner"][SARAPION] = None                               # Ben's leader stands in the village
    s = casting(s, seat=0, revealed=[spell(5), spell(3)])
    assert choice(s, 0, "adept")["target"] == SARAPION


@pytest.mark.slow
@pytest.mark.parametrize("stronger, weaker, games", [("novice", "random", 100), ("adept", "novice", 100)])
def test_each_level_beats_the_one_below(strength, stronger, weaker, games):
    rate, unfinished = strength.win_rate(wizard, VS_COMPUTER, stronger, weaker, games)
    # Seeded duels: the same figure every run.
    assert rate > 0.55 and unfinished == 0, (rate, unfinished)
