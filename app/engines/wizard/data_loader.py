"""Wizard duel content: the two leaders, the eight villagers and the forty spells.

Pure Python (no Flask, no database). Two JSON files ship in ``data/``:

* ``characters.json``  {"version": ..., "reconstruction": ..., "leaders": [2], "villagers": [8]}
* ``spells.json``      {"version": ..., "reconstruction": ..., "spells": [40]}

Both are a playtest reconstruction (the ``reconstruction`` sentence says so), not
the game author's confirmed values.

A character (leader or villager) has exactly these keys::

    {"id": "thekla_daughter_of_tsahai", "name": "Thekla daughter of Tsahai",
     "willpower": 3-8 (leaders 6-7), "gender": "male" | "female",
     "occupation": "midwife", "note": "one sentence of flavour"}

A spell has exactly these keys::

    {"number": 1-40, "id": "to_separate_two_friends", "title": "To separate two friends",
     "kind": "attack" (numbers 1-20) | "defense" (numbers 21-40),
     "strength": 1-5 for attacks, 1-4 for defenses,
     "gender": null | "male" | "female", "category": one of CATEGORIES,
     "note": "what kind of surviving text the spell is modelled on"}

The rule sheet limits a spell to one gender only when its title explicitly names
it, so ``gender`` must agree with the title's words (``title_gender``): a title
with a male word (man, husband, son, he, his ...) has gender "male", one with a
female word (woman, wife, daughter, she, her ...) has "female", any other title
has null, and a title naming both is refused as ambiguous.

``load_characters`` and ``load_spells`` raise ValueError naming the bad entry, so
a broken file fails loudly instead of reaching a game.
"""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

from ..datafile import text_problem

DATA = Path(__file__).with_name("data")
CHARACTERS_PATH = DATA / "characters.json"
SPELLS_PATH = DATA / "spells.json"

CHARACTERS_TOP = ("version", "reconstruction", "leaders", "villagers")
SPELLS_TOP = ("version", "reconstruction", "spells")
CHARACTER_FIELDS = ("id", "name", "willpower", "gender", "occupation", "note")
SPELL_FIELDS = ("number", "id", "title", "kind", "strength", "gender", "category", "note")

LEADERS = {"apa_nochis": "Apa Nochis", "sarapion": "Sarapion"}
LEADER_ORDER = ("apa_nochis", "sarapion")
VILLAGER_COUNT = 8
GENDERS = ("male", "female")
WILLPOWER_RANGE = (3, 8)
LEADER_WILLPOWER_RANGE = (6, 7)

SPELL_COUNT = 40
ATTACK_NUMBERS = range(1, 21)
DEFENSE_NUMBERS = range(21, 41)
KINDS = ("attack", "defense")
STRENGTH_RANGE = {"attack": (1, 5), "defense": (1, 4)}
CATEGORIES = ("love", "favour", "binding", "curse", "sleep", "separation",
              "healing", "protection", "exorcism", "divination")

# Words that make a title name a gender (whole words, any case).
MALE_WORDS = frozenset({"man", "men", "male", "males", "husband", "husbands", "father", "fathers",
                        "son", "sons", "boy", "boys", "he", "him", "his", "himself"})
FEMALE_WORDS = frozenset({"woman", "women", "female", "females", "wife", "wives", "mother", "mothers",
                          "daughter", "daughters", "girl", "girls", "she", "her", "hers", "herself"})

TEXT_MAX = {"version": 40, "reconstruction": 400, "id": 60, "name": 60, "occupation": 40,
            "note": 300, "title": 80}

_SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
_WORD = re.compile(r"[a-z]+")


# ---------------------------------------------------------------- shared checks

def _int_in(value, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _field_problem(entry: dict, fields: tuple[str, ...]) -> str | None:
    if set(entry) == set(fields):
        return None
    missing = [f for f in fields if f not in entry]
    extra = sorted(str(k) for k in entry if k not in fields)
    parts = []
    if missing:
        parts.append("missing " + ", ".join(missing))
    if extra:
        parts.append("unexpected " + ", ".join(extra))
    return "; ".join(parts)


def _a(kind: str) -> str:
    return ("an " if kind[0] in "aeiou" else "a ") + kind


def _read(path) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the file ({exc})") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{path}: the file is not a JSON object")
    return data


def _check_top(data: dict, fields: tuple[str, ...], path) -> None:
    problem = _field_problem(data, fields)
    if problem:
        raise ValueError(f"{path}: top level: {problem}")
    for key in ("version", "reconstruction"):
        problem = text_problem(data[key], key, TEXT_MAX[key])
        if problem:
            raise ValueError(f"{path}: {problem}")
    if "reconstruction" not in data["reconstruction"].casefold():
        raise ValueError(f"{path}: the reconstruction sentence must say that the data is a reconstruction")


def title_gender(title: str) -> str | None:
    """The gender a spell title explicitly names: "male", "female", None, or "both"."""
    words = set(_WORD.findall(title.casefold()))
    male, female = bool(words & MALE_WORDS), bool(words & FEMALE_WORDS)
    if male and female:
        return "both"
    return "male" if male else "female" if female else None


# ---------------------------------------------------------------- characters

def character_problems(entry, *, leader: bool) -> list[str]:
    """Every reason `entry` is not a valid leader or villager ([] when it is valid)."""
    if not isinstance(entry, dict):
        return ["the entry is not an object"]
    problem = _field_problem(entry, CHARACTER_FIELDS)
    if problem:
        return [problem]
    problems = []
    if not isinstance(entry["id"], str) or not _SNAKE.match(entry["id"]):
        problems.append("id is not snake_case")
    for key in ("name", "occupation", "note"):
        problem = text_problem(entry[key], key, TEXT_MAX[key])
        if problem:
            problems.append(problem)
    low, high = LEADER_WILLPOWER_RANGE if leader else WILLPOWER_RANGE
    if not _int_in(entry["willpower"], low, high):
        problems.append(f"willpower must be a whole number from {low} to {high}")
    if entry["gender"] not in GENDERS:
        problems.append("gender must be \"male\" or \"female\"")
    return problems


def load_characters(path=None) -> tuple[str, list[dict], list[dict]]:
    """(version, leaders, villagers) from characters.json, validated.

    Leaders come in LEADER_ORDER (Apa Nochis, then Sarapion); villagers in file order.
    """
    path = CHARACTERS_PATH if path is None else Path(path)
    data = _read(path)
    _check_top(data, CHARACTERS_TOP, path)
    leaders, villagers = data["leaders"], data["villagers"]
    if not isinstance(leaders, list) or len(leaders) != len(LEADERS):
        raise ValueError(f"{path}: there must be exactly {len(LEADERS)} leaders")
    if not isinstance(villagers, list) or len(villagers) != VILLAGER_COUNT:
        raise ValueError(f"{path}: there must be exactly {VILLAGER_COUNT} villagers")

    seen_ids: set[str] = set()
    seen_names: set[str] = set()
    for group, entries in (("leader", leaders), ("villager", villagers)):
        for index, entry in enumerate(entries):
            label = entry.get("id") if isinstance(entry, dict) and isinstance(entry.get("id"), str) else f"#{index + 1}"
            problems = character_problems(entry, leader=group == "leader")
            if problems:
                raise ValueError(f"{path}: {group} {label}: " + "; ".join(problems))
            if entry["id"] in seen_ids:
                raise ValueError(f"{path}: {group} {label}: the id is used twice")
            name = " ".join(entry["name"].casefold().split())
            if name in seen_names:
                raise ValueError(f"{path}: {group} {label}: the name {entry['name']!r} is used twice")
            seen_ids.add(entry["id"])
            seen_names.add(name)
            if group == "leader" and LEADERS.get(entry["id"]) != entry["name"]:
                raise ValueError(
                    f"{path}: leader {label}: the leaders must be "
                    + " and ".join(f"{name!r} (id {key})" for key, name in LEADERS.items()))
            if group == "villager" and entry["id"] in LEADERS:
                raise ValueError(f"{path}: villager {label}: a leader cannot be a villager")

    by_id = {entry["id"]: copy.deepcopy(entry) for entry in leaders}
    if set(by_id) != set(LEADERS):
        raise ValueError(f"{path}: the leaders must be Apa Nochis and Sarapion")
    return data["version"], [by_id[key] for key in LEADER_ORDER], copy.deepcopy(villagers)


# ---------------------------------------------------------------- spells

def spell_problems(entry) -> list[str]:
    """Every reason `entry` is not a valid spell ([] when it is valid)."""
    if not isinstance(entry, dict):
        return ["the entry is not an object"]
    problem = _field_problem(entry, SPELL_FIELDS)
    if problem:
        return [problem]
    problems = []
    number = entry["number"]
    if not _int_in(number, 1, SPELL_COUNT):
        problems.append(f"number must be a whole number from 1 to {SPELL_COUNT}")
    if not isinstance(entry["id"], str) or not _SNAKE.match(entry["id"]):
        problems.append("id is not snake_case")
    for key in ("title", "note"):
        problem = text_problem(entry[key], key, TEXT_MAX[key])
        if problem:
            problems.append(problem)
    kind = entry["kind"]
    if kind not in KINDS:
        problems.append("kind must be \"attack\" or \"defense\"")
    elif _int_in(number, 1, SPELL_COUNT):
        expected = "attack" if number in ATTACK_NUMBERS else "defense"
        if kind != expected:
            problems.append(f"spell {number} must be {_a(expected)} (attacks are 1-20, defenses 21-40)")
    if kind in STRENGTH_RANGE:
        low, high = STRENGTH_RANGE[kind]
        if not _int_in(entry["strength"], low, high):
            problems.append(f"strength of {_a(kind)} must be a whole number from {low} to {high}")
    if entry["category"] not in CATEGORIES:
        problems.append("category must be one of " + ", ".join(CATEGORIES))
    gender = entry["gender"]
    if gender is not None and gender not in GENDERS:
        problems.append("gender must be null, \"male\" or \"female\"")
    elif isinstance(entry["title"], str):
        named = title_gender(entry["title"])
        if named == "both":
            problems.append("the title names both a man and a woman, so its gender restriction is ambiguous")
        elif named != gender:
            if named is None:
                problems.append(f"gender is {gender!r} but the title names no man or woman")
            else:
                problems.append(f"the title names a {named} person but gender is {gender!r}")
    return problems


def load_spells(path=None) -> tuple[str, list[dict]]:
    """(version, spells) from spells.json, validated; spells are returned in number order."""
    path = SPELLS_PATH if path is None else Path(path)
    data = _read(path)
    _check_top(data, SPELLS_TOP, path)
    spells = data["spells"]
    if not isinstance(spells, list) or len(spells) != SPELL_COUNT:
        raise ValueError(f"{path}: there must be exactly {SPELL_COUNT} spells")
    seen_numbers: set[int] = set()
    seen_ids: set[str] = set()
    seen_titles: set[str] = set()
    for index, entry in enumerate(spells):
        label = f"spell #{index + 1}"
        if isinstance(entry, dict):
            if isinstance(entry.get("number"), int):
                label = f"spell {entry['number']}"
            if isinstance(entry.get("id"), str):
                label += f" ({entry['id']})"
        problems = spell_problems(entry)
        if problems:
            raise ValueError(f"{path}: {label}: " + "; ".join(problems))
        if entry["number"] in seen_numbers:
            raise ValueError(f"{path}: {label}: the number is used twice")
        if entry["id"] in seen_ids:
            raise ValueError(f"{path}: {label}: the id is used twice")
        title = " ".join(entry["title"].casefold().split())
        if title in seen_titles:
            raise ValueError(f"{path}: {label}: the title {entry['title']!r} is used twice")
        seen_numbers.add(entry["number"])
        seen_ids.add(entry["id"])
        seen_titles.add(title)
    # 40 distinct numbers, each within 1..40, are exactly 1..40.
    return data["version"], sorted(copy.deepcopy(spells), key=lambda spell: spell["number"])
