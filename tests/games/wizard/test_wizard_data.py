"""Wizard duel data: the shipped leaders, villagers and spells, and the validator
that refuses broken files (app/engines/wizard/data_loader.py)."""
from __future__ import annotations

import copy
import json
from fractions import Fraction
from itertools import product

import pytest

from app.engines.wizard import data_loader

VICTORY_WILLPOWER = 23  # the rule sheet: clients totalling at least 23 willpower win


def write(tmp_path, name: str, data) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def raw_characters() -> dict:
    return json.loads(data_loader.CHARACTERS_PATH.read_text(encoding="utf-8"))


def raw_spells() -> dict:
    return json.loads(data_loader.SPELLS_PATH.read_text(encoding="utf-8"))


# 2d6 - 2d6, exactly: the attack succeeds when its 2d6 exceeds the defense's 2d6 by
# more than (defense bonus - attack strength).
_TWO_D6 = [a + b for a, b in product(range(1, 7), repeat=2)]
_DIFF = {}
for _x, _y in product(_TWO_D6, repeat=2):
    _DIFF[_x - _y] = _DIFF.get(_x - _y, 0) + 1


def success(strength: int, willpower: int, defense: int = 0) -> Fraction:
    need = willpower + defense - strength  # attack total must strictly exceed defense total
    return Fraction(sum(n for d, n in _DIFF.items() if d > need), 36 * 36)


# ------------------------------------------------------------ shipped characters

def test_characters_load_with_the_right_counts():
    version, leaders, villagers = data_loader.load_characters()
    assert version == "wiz-characters-1"
    assert [(c["id"], c["name"]) for c in leaders] == [("apa_nochis", "Apa Nochis"), ("sarapion", "Sarapion")]
    assert len(villagers) == 8
    everyone = leaders + villagers
    assert len({c["id"] for c in everyone}) == 10
    assert len({c["name"] for c in everyone}) == 10
    for c in everyone:
        assert set(c) == set(data_loader.CHARACTER_FIELDS)
        assert c["gender"] in ("male", "female")
    for c in leaders:
        assert 6 <= c["willpower"] <= 7
    for c in villagers:
        assert 3 <= c["willpower"] <= 8


def test_reconstruction_is_marked():
    for data in (raw_characters(), raw_spells()):
        assert "playtest reconstruction" in data["reconstruction"]
        assert "not the author's confirmed values" in data["reconstruction"]


def test_gender_restrictions_matter_among_villagers():
    _, _, villagers = data_loader.load_characters()
    genders = [v["gender"] for v in villagers]
    assert genders.count("female") >= 3
    assert genders.count("male") >= 3


def test_villagers_are_named_by_their_mothers_and_the_names_match_their_gender():
    _, _, villagers = data_loader.load_characters()
    for v in villagers:
        if " daughter of " in v["name"]:
            assert v["gender"] == "female", v["id"]
        else:
            assert " son of " in v["name"], v["id"]
            assert v["gender"] == "male", v["id"]


def test_willpower_total_is_in_range():
    _, leaders, villagers = data_loader.load_characters()
    total = sum(c["willpower"] for c in leaders + villagers)
    assert 50 <= total <= 56


def test_twenty_three_is_reachable_but_contested():
    _, leaders, villagers = data_loader.load_characters()
    strongest = sorted((v["willpower"] for v in villagers), reverse=True)
    weakest = strongest[::-1]
    for leader in leaders:
        start = leader["willpower"]
        assert start < VICTORY_WILLPOWER, "no wizard may start at 23"
        # the leader plus the best three villagers reach 23 ...
        assert start + sum(strongest[:3]) >= VICTORY_WILLPOWER
        # ... the best two never do, so every win by willpower takes at least three recruits
        assert start + sum(strongest[:2]) < VICTORY_WILLPOWER
        # ... and four of the weakest are not enough, so the weak villagers alone do not decide it
        assert start + sum(weakest[:4]) < VICTORY_WILLPOWER
    # the leaders are equal, so initiative (which hands out Apa Nochis) gives no willpower edge
    assert leaders[0]["willpower"] == leaders[1]["willpower"]


# ------------------------------------------------------------ shipped spells

def test_spells_load_with_the_right_counts():
    version, spells = data_loader.load_spells()
    assert version == "wiz-spells-1"
    assert [s["number"] for s in spells] == list(range(1, 41))
    assert all(s["kind"] == "attack" for s in spells[:20])
    assert all(s["kind"] == "defense" for s in spells[20:])
    assert len({s["id"] for s in spells}) == 40
    assert len({s["title"].casefold() for s in spells}) == 40
    for s in spells:
        assert set(s) == set(data_loader.SPELL_FIELDS)
        assert s["category"] in data_loader.CATEGORIES
        low, high = (1, 5) if s["kind"] == "attack" else (1, 4)
        assert low <= s["strength"] <= high, s["id"]
        assert s["title"].split()[0] in ("To", "For", "Against"), s["title"]


def test_heal_and_protect_a_woman_is_a_female_defense():
    _, spells = data_loader.load_spells()
    [spell] = [s for s in spells if s["title"] == "To Heal and Protect a Woman"]
    assert spell["kind"] == "defense"
    assert spell["gender"] == "female"


def test_gendered_spells_are_consistent_with_their_titles():
    _, spells = data_loader.load_spells()
    for s in spells:
        assert data_loader.title_gender(s["title"]) == s["gender"], s["title"]
    attacks = [s["gender"] for s in spells if s["kind"] == "attack" and s["gender"]]
    defenses = [s["gender"] for s in spells if s["kind"] == "defense" and s["gender"]]
    assert len(attacks) >= 4 and {"male", "female"} <= set(attacks)
    assert len(defenses) >= 3 and {"male", "female"} <= set(defenses)


def test_spell_categories_fit_their_kind():
    _, spells = data_loader.load_spells()
    offensive = {"love", "favour", "binding", "curse", "sleep", "separation"}
    for s in spells[:20]:
        assert s["category"] in offensive, s["id"]
    for s in spells[20:]:
        assert s["category"] in {"healing", "protection", "exorcism", "divination", "love"}, s["id"]


def test_plain_text_only():
    for data in (raw_characters(), raw_spells()):
        text = json.dumps(data, ensure_ascii=False)
        assert "<" not in text and ">" not in text
        assert all(ord(ch) < 0x2000 or ch in "\u2019" for ch in text)


# ------------------------------------------------------------ balance (exact dice odds)

def test_dice_odds_helper_matches_the_rule_sheet():
    assert success(3, 3) == Fraction(1, 2) * (1 - Fraction(146, 1296))  # ties change nothing
    assert success(5, 3) > success(3, 3) > success(1, 3)


def test_attacks_on_weak_villagers_succeed_about_half_the_time_or_more():
    _, spells = data_loader.load_spells()
    _, leaders, villagers = data_loader.load_characters()
    attacks = [s["strength"] for s in spells if s["kind"] == "attack"]
    weakest = min(v["willpower"] for v in villagers)
    mean = sum(success(a, weakest) for a in attacks) / len(attacks)
    assert mean >= Fraction(47, 100), float(mean)
    # most single attacks on the weakest neutral villager are at least a coin flip, or close to it
    assert sum(success(a, weakest) >= Fraction(44, 100) for a in attacks) >= 15


def test_attacks_on_leaders_rarely_succeed():
    _, spells = data_loader.load_spells()
    _, leaders, _ = data_loader.load_characters()
    attacks = [s["strength"] for s in spells if s["kind"] == "attack"]
    defenses = [s["strength"] for s in spells if s["kind"] == "defense" and s["gender"] != "female"]
    for leader in leaders:
        undefended = sum(success(a, leader["willpower"]) for a in attacks) / len(attacks)
        defended = sum(success(a, leader["willpower"], d) for a in attacks for d in defenses) / (
            len(attacks) * len(defenses))
        assert undefended <= Fraction(1, 4), float(undefended)
        assert defended <= Fraction(1, 8), float(defended)


def test_gendered_spells_are_stronger_to_make_up_for_their_restriction():
    _, spells = data_loader.load_spells()
    for kind in ("attack", "defense"):
        gendered = [s["strength"] for s in spells if s["kind"] == kind and s["gender"]]
        open_ = [s["strength"] for s in spells if s["kind"] == kind and not s["gender"]]
        assert sum(gendered) / len(gendered) > sum(open_) / len(open_)


# ------------------------------------------------------------ the word rule

@pytest.mark.parametrize("title, expected", [
    ("To Heal and Protect a Woman", "female"),
    ("For a man who has magic on him", "male"),
    ("To bring a mother-in-law's curse on a daughter-in-law", "female"),
    ("To make a person sleep", None),           # "person" contains "son" but is not the word
    ("To separate two friends", None),
    ("For the manager of a workshop", None),    # "manager" is not "man"
    ("For a man whose wife has left him", "both"),
    ("To make her love you", "female"),
    ("For the sons of the village", "male"),
])
def test_title_gender(title, expected):
    assert data_loader.title_gender(title) == expected


# ------------------------------------------------------------ bad character files

def _leader(data, key):
    return next(c for c in data["leaders"] if c["id"] == key)


CHARACTER_BREAKS = {
    "extra top field": (lambda d: d.update(extra=1), "top level"),
    "missing reconstruction": (lambda d: d.pop("reconstruction"), "reconstruction"),
    "three leaders": (lambda d: d["leaders"].append(dict(d["villagers"][0], id="apa_x", name="Apa X")), "2 leaders"),
    "seven villagers": (lambda d: d["villagers"].pop(), "8 villagers"),
    "missing field": (lambda d: d["villagers"][2].pop("occupation"), "missing occupation"),
    "extra field": (lambda d: d["villagers"][2].update(age=30), "unexpected age"),
    "duplicate id": (lambda d: d["villagers"][3].update(id=d["villagers"][2]["id"]), "id is used twice"),
    "duplicate name": (lambda d: d["villagers"][3].update(name=d["villagers"][2]["name"]), "used twice"),
    "willpower too high": (lambda d: d["villagers"][0].update(willpower=9), "willpower"),
    "willpower too low": (lambda d: d["villagers"][0].update(willpower=2), "willpower"),
    "willpower as text": (lambda d: d["villagers"][0].update(willpower="5"), "willpower"),
    "willpower as bool": (lambda d: d["villagers"][0].update(willpower=True), "willpower"),
    "leader willpower 8": (lambda d: _leader(d, "sarapion").update(willpower=8), "willpower"),
    "bad gender": (lambda d: d["villagers"][1].update(gender="f"), "gender"),
    "renamed leader": (lambda d: _leader(d, "sarapion").update(name="Serapion"), "Sarapion"),
    "wrong leader id": (lambda d: _leader(d, "apa_nochis").update(id="nochis"), "leader"),
    "HTML in a note": (lambda d: d["villagers"][4].update(note="A <b>bold</b> weaver."), "HTML"),
    "entity in a name": (lambda d: d["villagers"][4].update(name="Psan &amp; son"), "HTML"),
    "emoji in a note": (lambda d: d["villagers"][4].update(note="A weaver \U0001F9F6."), "emoji"),
    "empty occupation": (lambda d: d["villagers"][4].update(occupation="  "), "occupation is empty"),
    "id not snake_case": (lambda d: d["villagers"][4].update(id="Psan Potter"), "snake_case"),
    "villager not an object": (lambda d: d["villagers"].__setitem__(5, "Psan"), "not an object"),
}


@pytest.mark.parametrize("name", sorted(CHARACTER_BREAKS))
def test_bad_character_files_are_refused(tmp_path, name):
    breaker, message = CHARACTER_BREAKS[name]
    data = raw_characters()
    breaker(data)
    with pytest.raises(ValueError, match=message):
        data_loader.load_characters(write(tmp_path, "characters.json", data))


def test_character_errors_name_the_entry(tmp_path):
    data = raw_characters()
    data["villagers"][4]["willpower"] = 11
    with pytest.raises(ValueError, match=data["villagers"][4]["id"]):
        data_loader.load_characters(write(tmp_path, "characters.json", data))


def test_unreadable_files_are_refused(tmp_path):
    path = tmp_path / "characters.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="cannot read"):
        data_loader.load_characters(str(path))
    with pytest.raises(ValueError, match="not a JSON object"):
        data_loader.load_spells(write(tmp_path, "spells.json", [1, 2]))


def test_the_shipped_files_reload_through_a_path(tmp_path):
    assert data_loader.load_characters(write(tmp_path, "c.json", raw_characters())) == data_loader.load_characters()
    assert data_loader.load_spells(write(tmp_path, "s.json", raw_spells())) == data_loader.load_spells()


def test_loaders_hand_out_copies():
    _, leaders, villagers = data_loader.load_characters()
    leaders[0]["willpower"] = 99
    villagers[0]["name"] = "changed"
    _, spells = data_loader.load_spells()
    spells[0]["strength"] = 99
    _, leaders2, villagers2 = data_loader.load_characters()
    assert leaders2[0]["willpower"] != 99 and villagers2[0]["name"] != "changed"
    assert data_loader.load_spells()[1][0]["strength"] != 99


# ------------------------------------------------------------ bad spell files

def _spell(data, number):
    return next(s for s in data["spells"] if s["number"] == number)


SPELL_BREAKS = {
    "extra top field": (lambda d: d.update(leaders=[]), "top level"),
    "reconstruction not marked": (lambda d: d.update(reconstruction="Spells for the duel."), "reconstruction"),
    "39 spells": (lambda d: d["spells"].pop(), "exactly 40"),
    "41 spells": (lambda d: d["spells"].append(dict(_spell(d, 40), number=41, id="x", title="To x")), "exactly 40"),
    "missing field": (lambda d: _spell(d, 3).pop("note"), "missing note"),
    "extra field": (lambda d: _spell(d, 3).update(cost=1), "unexpected cost"),
    "duplicate number": (lambda d: _spell(d, 4).update(number=3), "number is used twice"),
    "number 0": (lambda d: _spell(d, 1).update(number=0), "number"),
    "number 41": (lambda d: _spell(d, 40).update(number=41), "number"),
    "number as text": (lambda d: _spell(d, 7).update(number="7"), "number"),
    "duplicate id": (lambda d: _spell(d, 4).update(id=_spell(d, 3)["id"]), "id is used twice"),
    "duplicate title": (lambda d: _spell(d, 12).update(title=_spell(d, 11)["title"].upper()), "used twice"),
    "attack in the defense range": (lambda d: _spell(d, 25).update(kind="attack"), "must be a defense"),
    "defense in the attack range": (lambda d: _spell(d, 2).update(kind="defense"), "must be an attack"),
    "unknown kind": (lambda d: _spell(d, 2).update(kind="curse"), "kind"),
    "attack strength 6": (lambda d: _spell(d, 2).update(strength=6), "strength of an attack"),
    "attack strength 0": (lambda d: _spell(d, 2).update(strength=0), "strength of an attack"),
    "defense strength 5": (lambda d: _spell(d, 30).update(strength=5), "strength of a defense"),
    "strength as float": (lambda d: _spell(d, 30).update(strength=2.0), "strength"),
    "unknown category": (lambda d: _spell(d, 30).update(category="weather"), "category"),
    "gender on an ungendered title": (lambda d: _spell(d, 10).update(gender="male"), "names no man or woman"),
    "woman title without gender": (lambda d: _spell(d, 21).update(gender=None), "names a female person"),
    "woman title marked male": (lambda d: _spell(d, 21).update(gender="male"), "names a female person"),
    "man title without gender": (lambda d: _spell(d, 24).update(gender=None), "names a male person"),
    "new gendered word in a title": (lambda d: _spell(d, 10).update(title="To separate a husband from friends"),
                                     "names a male person"),
    "title naming both": (lambda d: _spell(d, 4).update(title="For a man whose wife has left him"), "both"),
    "bad gender value": (lambda d: _spell(d, 21).update(gender="woman"), "gender must be"),
    "HTML in a title": (lambda d: _spell(d, 9).update(title="To hold back a <i>boat</i>"), "HTML"),
    "emoji in a note": (lambda d: _spell(d, 33).update(note="Scorpions \U0001F982 sting."), "emoji"),
    "dingbat in a title": (lambda d: _spell(d, 33).update(title="Against a scorpion\u2728"), "emoji"),
    "id not snake_case": (lambda d: _spell(d, 33).update(id="againstScorpion"), "snake_case"),
    "empty title": (lambda d: _spell(d, 33).update(title=""), "title is empty"),
    "spell not an object": (lambda d: d["spells"].__setitem__(0, ["To x"]), "not an object"),
}


@pytest.mark.parametrize("name", sorted(SPELL_BREAKS))
def test_bad_spell_files_are_refused(tmp_path, name):
    breaker, message = SPELL_BREAKS[name]
    data = raw_spells()
    breaker(data)
    with pytest.raises(ValueError, match=message):
        data_loader.load_spells(write(tmp_path, "spells.json", data))


def test_spell_errors_name_the_entry(tmp_path):
    data = raw_spells()
    spell = copy.deepcopy(_spell(data, 17))
    _spell(data, 17)["strength"] = 9
    with pytest.raises(ValueError, match=rf"spell 17 \({spell['id']}\)"):
        data_loader.load_spells(write(tmp_path, "spells.json", data))


def test_spells_may_come_in_any_order_and_load_in_number_order(tmp_path):
    data = raw_spells()
    data["spells"].reverse()
    _, spells = data_loader.load_spells(write(tmp_path, "spells.json", data))
    assert [s["number"] for s in spells] == list(range(1, 41))
