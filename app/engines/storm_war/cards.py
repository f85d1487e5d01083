"""Storm War: the card list and the Environments, with their validators.

Pure Python (no Flask, no database). Two JSON files ship in ``data/``:

* ``cards.json``         {"version", "reconstruction", "cards": [143 active cards],
                          "references": [5 reference-only cards, never dealt]}
* ``environments.json``  {"version", "reconstruction", "environments": [21 places]}

``load_cards()`` and ``load_environments()`` check their file and raise
ValueError naming the bad entry, so a broken file fails loudly instead of
reaching a table.

An active card is a dict with these keys::

    {"id": "check_dam", "name": "Check Dam", "type": "bmp",
     "defense": {"toxic": 1, "erosion": 4, "nutrient": 2},   # permanent types only
     "risk": {"toxic": 0, "erosion": 3, "nutrient": 1},      # degraders only
     "effects": [effect, ...], "text": "...", "science": "...", "tags": ["sediment", ...]}

An effect is a dict with "op" and exactly the fields listed in EFFECT_FIELDS;
``effect_problems()`` / ``validate_effect()`` check one. One-time ops belong on
one-time Chaos cards; permanent ops (capacity, team_up, synergy) on cards that
stay on a Jobsite. The engine gives the ops their meaning (see the rule sheet).
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from ..datafile import read_json, text_problem
from ..text import N_

DATA = Path(__file__).with_name("data")
CARDS_PATH = DATA / "cards.json"
ENVIRONMENTS_PATH = DATA / "environments.json"

# ---------------------------------------------------------------- vocabulary

RISKS = ("toxic", "erosion", "nutrient")
RISK_LABEL = {"toxic": N_("Toxic"), "erosion": N_("Erosion"), "nutrient": N_("Nutrient")}

TYPES = ("bmp", "preventative", "permanent_chaos", "mentor", "defender", "tool", "degrader", "chaos")
TYPE_COUNTS = {
    "bmp": 38, "preventative": 12, "permanent_chaos": 14, "mentor": 10,
    "defender": 6, "tool": 14, "degrader": 21, "chaos": 28,
}
ACTIVE_CARD_COUNT = 143
assert sum(TYPE_COUNTS.values()) == ACTIVE_CARD_COUNT

# Cards that stay on a Jobsite and carry a "defense"; degraders carry a "risk".
PERMANENT_TYPES = ("bmp", "preventative", "permanent_chaos", "mentor", "defender", "tool")
DEGRADER_TYPES = ("degrader",)
ONE_TIME_TYPES = ("chaos",)
# Which Jobsite section each permanent type occupies (rule sheet: Preventative
# Actions take BMP slots, Defenders take the Mentor slot).
SLOT_OF_TYPE = {
    "bmp": "bmp", "preventative": "bmp", "permanent_chaos": "chaos",
    "mentor": "mentor", "defender": "mentor", "tool": "tools",
}
BASE_LIMITS = {"bmp": 5, "chaos": 2, "mentor": 1, "tools": 2}
SECTIONS = ("bmp", "chaos", "tools")  # sections a capacity bonus or a "remove" can name

DEFENSE_MIN, DEFENSE_MAX = 0, 5          # each permanent defense number
DEGRADER_MAIN_MIN, DEGRADER_MAIN_MAX = 1, 4  # a degrader's largest added risk
DEGRADER_TOTAL_MIN, DEGRADER_TOTAL_MAX = 2, 5
MODIFIER_MIN, MODIFIER_MAX = -6, 6       # one-time defense / risk changes (never 0)
SYNERGY_MIN, SYNERGY_MAX = 1, 3
CAPACITY_MAX_EXTRA = 2                   # a capacity bonus adds 1 or 2 to the base limit
ENV_RISK_MIN, ENV_RISK_MAX = 4, 18
ENVIRONMENT_COUNT = 21

TARGETS = ("challenger", "self")           # defense: "self" = the Jobsite of the card's player
WHO_PLAYER = ("challenger", "choose")      # miss_draw, skip_turn, overbudget, remove
WHO_DRAW = ("self", "each")
WHO_DISCARD = ("challenger", "each_other")
DISCARD_FROM = ("hand", "bmp")

EFFECT_FIELDS = {
    "defense": ("risk", "amount", "target"),
    "risk": ("risk", "amount"),
    "block": (),
    "draw": ("count", "who"),
    "discard": ("count", "who", "from"),
    "miss_draw": ("who",),
    "skip_turn": ("who",),
    "overbudget": ("who",),
    "capacity": ("section", "limit"),
    "team_up": (),
    "synergy": ("tag", "risk", "amount"),
    "perfect": (),
    "remove": ("section", "who"),
}
OPS = tuple(EFFECT_FIELDS)
PERMANENT_OPS = ("capacity", "team_up", "synergy")
ONE_TIME_OPS = tuple(op for op in OPS if op not in PERMANENT_OPS)
CAPACITY_CARD_TYPES = ("permanent_chaos", "mentor", "defender", "tool")
# Ops that exactly one card carries, and the name that card must have.
UNIQUE_OPS = {"block": "Hero Block", "team_up": "Team Up", "perfect": "Perfect Treatment"}

REFERENCE_NAMES = (
    "Discharge Without Permit",
    "Permit Required Nanogram Limit",
    "Sweeper Sabotage",
    "Urban Runoff Mortality Syndrome",
    "Illegal Dumping",
)

CARD_REQUIRED = ("id", "name", "type", "effects", "text", "science", "tags")
REFERENCE_FIELDS = ("id", "name", "type", "reference_only", "text", "science", "tags")
ENVIRONMENT_FIELDS = ("id", "name", "risks", "text", "science")

NAME_MAX = 40
TEXT_MAX = 200
SCIENCE_MAX = 300
TAG_MAX = 20
TAGS_MAX = 6

_SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")


# ---------------------------------------------------------------- helpers

def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def defense_line(numbers: dict) -> str:
    """'Erosion +4, Nutrient +2, Toxic +1.': the non-zero numbers, largest first
    (ties in the order Toxic, Erosion, Nutrient); '' when all are zero."""
    parts = sorted((r for r in RISKS if numbers.get(r)), key=lambda r: (-numbers[r], RISKS.index(r)))
    return ", ".join(f"{RISK_LABEL[r]} +{numbers[r]}" for r in parts) + ("." if parts else "")


# ---------------------------------------------------------------- effects

def effect_problems(effect, card_type: str | None = None, tags: frozenset | set | None = None) -> list[str]:
    """Every reason `effect` is not valid ([] when it is).

    With `card_type`, also checks the op may sit on that type of card. With
    `tags` (every tag in the deck), also checks a synergy names a real tag.
    """
    if not isinstance(effect, dict):
        return ["the effect is not an object"]
    op = effect.get("op")
    if op not in EFFECT_FIELDS:
        return [f"unknown op {op!r}"]
    fields = EFFECT_FIELDS[op]
    if set(effect) != {"op", *fields}:
        return [f"op {op} needs exactly the fields {', '.join(('op',) + fields)}"]
    problems: list[str] = []

    def amount_in(lo: int, hi: int, field: str = "amount", nonzero: bool = False) -> None:
        value = effect[field]
        if not _is_int(value) or not lo <= value <= hi or (nonzero and value == 0):
            extra = ", not 0" if nonzero else ""
            problems.append(f"{op}: {field} must be a whole number from {lo} to {hi}{extra}")

    def one_of(field: str, allowed) -> None:
        if effect[field] not in allowed:
            problems.append(f"{op}: {field} {effect[field]!r} is not one of {', '.join(allowed)}")

    if op == "defense":
        one_of("risk", RISKS + ("choose",))
        amount_in(MODIFIER_MIN, MODIFIER_MAX, nonzero=True)
        one_of("target", TARGETS)
    elif op == "risk":
        one_of("risk", RISKS + ("choose", "challenged"))
        amount_in(MODIFIER_MIN, MODIFIER_MAX, nonzero=True)
    elif op == "draw":
        amount_in(1, 3, "count")
        one_of("who", WHO_DRAW)
    elif op == "discard":
        amount_in(1, 2, "count")
        one_of("who", WHO_DISCARD)
        one_of("from", DISCARD_FROM)
    elif op in ("miss_draw", "skip_turn", "overbudget"):
        one_of("who", WHO_PLAYER)
    elif op == "remove":
        one_of("section", SECTIONS)
        one_of("who", WHO_PLAYER)
    elif op == "capacity":
        one_of("section", SECTIONS)
        if effect["section"] in SECTIONS:
            base = BASE_LIMITS[effect["section"]]
            amount_in(base + 1, base + CAPACITY_MAX_EXTRA, "limit")
    elif op == "synergy":
        tag = effect["tag"]
        if not isinstance(tag, str) or not _SNAKE.match(tag):
            problems.append(f"synergy: tag {tag!r} is not a lowercase tag")
        elif tags is not None and tag not in tags:
            problems.append(f"synergy: no active card has the tag {tag!r}")
        one_of("risk", RISKS)
        amount_in(SYNERGY_MIN, SYNERGY_MAX)

    if card_type is not None:
        if card_type in ONE_TIME_TYPES and op not in ONE_TIME_OPS:
            problems.append(f"{op} is a lasting effect and cannot be on a one-time {card_type} card")
        elif card_type in PERMANENT_TYPES and op not in PERMANENT_OPS:
            problems.append(f"{op} is a one-time effect and cannot be on a {card_type} card")
        elif card_type in DEGRADER_TYPES:
            problems.append("degraders carry a risk, not effects")
        if op == "capacity" and card_type not in CAPACITY_CARD_TYPES:
            problems.append(f"capacity cannot be on a {card_type} card")
        if op == "team_up" and card_type != "permanent_chaos":
            problems.append("team_up belongs on a permanent_chaos card")
    return problems


def validate_effect(effect, card_type: str | None = None, tags=None) -> dict:
    """Return `effect` when valid; raise ValueError saying what is wrong."""
    problems = effect_problems(effect, card_type, tags)
    if problems:
        raise ValueError("; ".join(problems))
    return effect


# ---------------------------------------------------------------- cards

def _numbers_problem(numbers, label: str, lo: int, hi: int) -> str | None:
    if not isinstance(numbers, dict) or set(numbers) != set(RISKS):
        return f"{label} needs exactly the keys {', '.join(RISKS)}"
    for r in RISKS:
        if not _is_int(numbers[r]) or not lo <= numbers[r] <= hi:
            return f"{label} {r} must be a whole number from {lo} to {hi}"
    return None


def _tags_problem(tags) -> str | None:
    if not isinstance(tags, list) or len(tags) > TAGS_MAX:
        return f"tags must be a list of at most {TAGS_MAX} tags"
    for tag in tags:
        if not isinstance(tag, str) or not _SNAKE.match(tag) or len(tag) > TAG_MAX:
            return f"tag {tag!r} is not a short lowercase tag"
    if len(set(tags)) != len(tags):
        return "a tag appears twice"
    return None


def card_problems(card, tags=None) -> list[str]:
    """Every reason an active card is not valid ([] when it is). `tags`: see effect_problems."""
    if not isinstance(card, dict):
        return ["the card is not an object"]
    kind = card.get("type")
    if kind not in TYPES:
        return [f"type {kind!r} is not one of {', '.join(TYPES)}"]
    fields = set(CARD_REQUIRED)
    if kind in PERMANENT_TYPES:
        fields.add("defense")
    if kind in DEGRADER_TYPES:
        fields.add("risk")
    if set(card) != fields:
        missing = sorted(fields - set(card))
        extra = sorted(str(k) for k in set(card) - fields)
        parts = (["missing " + ", ".join(missing)] if missing else []) + (
            ["unexpected " + ", ".join(extra)] if extra else [])
        return [f"a {kind} card needs exactly the fields {', '.join(sorted(fields))} ({'; '.join(parts)})"]
    problems = []
    if not isinstance(card["id"], str) or not _SNAKE.match(card["id"]):
        problems.append("id must be lowercase snake_case")
    for field, limit in (("name", NAME_MAX), ("text", TEXT_MAX), ("science", SCIENCE_MAX)):
        problem = text_problem(card[field], field, limit)
        if problem:
            problems.append(problem)
    problem = _tags_problem(card["tags"])
    if problem:
        problems.append(problem)
    if kind in PERMANENT_TYPES:
        problem = _numbers_problem(card["defense"], "defense", DEFENSE_MIN, DEFENSE_MAX)
        if problem:
            problems.append(problem)
    if kind in DEGRADER_TYPES:
        problem = _numbers_problem(card["risk"], "risk", 0, DEGRADER_MAIN_MAX)
        if problem:
            problems.append(problem)
        else:
            main, total = max(card["risk"].values()), sum(card["risk"].values())
            if main < DEGRADER_MAIN_MIN:
                problems.append(f"a degrader adds at least {DEGRADER_MAIN_MIN} to its main risk")
            if not DEGRADER_TOTAL_MIN <= total <= DEGRADER_TOTAL_MAX:
                problems.append(f"a degrader's risks total {DEGRADER_TOTAL_MIN} to {DEGRADER_TOTAL_MAX}, not {total}")
    effects = card["effects"]
    if not isinstance(effects, list):
        problems.append("effects must be a list")
    else:
        if kind in ONE_TIME_TYPES and not effects:
            problems.append("a one-time Chaos card needs at least one effect")
        for n, effect in enumerate(effects, 1):
            problems.extend(f"effect {n}: {p}" for p in effect_problems(effect, kind, tags))
        ops = [e.get("op") for e in effects if isinstance(e, dict)]
        for op, name in UNIQUE_OPS.items():
            if op in ops and card["name"] != name:
                problems.append(f"only the card named {name!r} may have the op {op}")
            if op in ops and len(ops) != 1:
                problems.append(f"{name} has {op} as its only effect")
        if ops.count("capacity") > 1:
            problems.append("at most one capacity effect per card")
    return problems


def reference_problems(card) -> list[str]:
    """Every reason a reference-only card is not valid ([] when it is)."""
    if not isinstance(card, dict) or set(card) != set(REFERENCE_FIELDS):
        return [f"a reference card needs exactly the fields {', '.join(REFERENCE_FIELDS)}"]
    problems = []
    if not isinstance(card["id"], str) or not _SNAKE.match(card["id"]):
        problems.append("id must be lowercase snake_case")
    if card["type"] != "chaos":
        problems.append("a reference card has the type chaos")
    if card["reference_only"] is not True:
        problems.append("reference_only must be true")
    for field, limit in (("name", NAME_MAX), ("text", TEXT_MAX), ("science", SCIENCE_MAX)):
        problem = text_problem(card[field], field, limit)
        if problem:
            problems.append(problem)
    problem = _tags_problem(card["tags"])
    if problem:
        problems.append(problem)
    return problems


def _where(item, n: int) -> str:
    name = item.get("id") if isinstance(item, dict) else None
    return f"#{n} ({name})" if isinstance(name, str) else f"#{n}"


def load_cards(path: Path | str | None = None) -> tuple[str, list[dict], list[dict]]:
    """The card list: (version, active cards, reference-only cards).

    Raises ValueError naming the bad entry (or the whole-deck rule broken).
    """
    path = Path(path or CARDS_PATH)
    name = path.name
    data = read_json(path, ("version", "reconstruction", "cards", "references"), texts=("version", "reconstruction"),
                     max_len=SCIENCE_MAX)
    cards, references = data["cards"], data["references"]
    if not isinstance(cards, list) or not isinstance(references, list):
        raise ValueError(f"{name}: cards and references must be lists")
    all_tags = frozenset(t for c in cards if isinstance(c, dict) and isinstance(c.get("tags"), list)
                         for t in c["tags"] if isinstance(t, str))
    for n, card in enumerate(cards, 1):
        problems = card_problems(card, all_tags)
        if problems:
            raise ValueError(f"{name}: card {_where(card, n)}: " + "; ".join(problems))
    for n, card in enumerate(references, 1):
        problems = reference_problems(card)
        if problems:
            raise ValueError(f"{name}: reference {_where(card, n)}: " + "; ".join(problems))
    seen_ids: set[str] = set()
    seen_names: dict[str, str] = {}
    for card in cards + references:
        if card["id"] in seen_ids:
            raise ValueError(f"{name}: card {card['id']}: the id appears twice")
        seen_ids.add(card["id"])
        folded = " ".join(card["name"].casefold().split())
        if folded in seen_names:
            raise ValueError(f"{name}: card {card['id']}: the name {card['name']!r} is also "
                             f"used by {seen_names[folded]}")
        seen_names[folded] = card["id"]
    counts = Counter(card["type"] for card in cards)
    for kind in TYPES:
        if counts[kind] != TYPE_COUNTS[kind]:
            raise ValueError(f"{name}: expected {TYPE_COUNTS[kind]} {kind} cards, found {counts[kind]}")
    for op, card_name in UNIQUE_OPS.items():
        holders = [c["id"] for c in cards if any(e["op"] == op for e in c["effects"])]
        if len(holders) != 1:
            raise ValueError(f"{name}: exactly one card ({card_name}) has the op {op}; found {holders or 'none'}")
    if sorted(c["name"] for c in references) != sorted(REFERENCE_NAMES):
        raise ValueError(f"{name}: the references must be exactly: {'; '.join(REFERENCE_NAMES)}")
    return data["version"], cards, references


# ---------------------------------------------------------------- environments

def environment_problems(env) -> list[str]:
    """Every reason an Environment is not valid ([] when it is)."""
    if not isinstance(env, dict) or set(env) != set(ENVIRONMENT_FIELDS):
        return [f"an environment needs exactly the fields {', '.join(ENVIRONMENT_FIELDS)}"]
    problems = []
    if not isinstance(env["id"], str) or not _SNAKE.match(env["id"]):
        problems.append("id must be lowercase snake_case")
    problem = _numbers_problem(env["risks"], "risks", ENV_RISK_MIN, ENV_RISK_MAX)
    if problem:
        problems.append(problem)
    for field, limit in (("name", NAME_MAX), ("text", TEXT_MAX), ("science", SCIENCE_MAX)):
        problem = text_problem(env[field], field, limit)
        if problem:
            problems.append(problem)
    return problems


def load_environments(path: Path | str | None = None) -> tuple[str, list[dict]]:
    """The Environments: (version, environments). Raises ValueError naming the bad entry."""
    path = Path(path or ENVIRONMENTS_PATH)
    name = path.name
    data = read_json(path, ("version", "reconstruction", "environments"), texts=("version", "reconstruction"),
                     max_len=SCIENCE_MAX)
    envs = data["environments"]
    if not isinstance(envs, list):
        raise ValueError(f"{name}: environments must be a list")
    seen_ids: set[str] = set()
    seen_names: set[str] = set()
    for n, env in enumerate(envs, 1):
        problems = environment_problems(env)
        if problems:
            raise ValueError(f"{name}: environment {_where(env, n)}: " + "; ".join(problems))
        if env["id"] in seen_ids:
            raise ValueError(f"{name}: environment {env['id']}: the id appears twice")
        folded = " ".join(env["name"].casefold().split())
        if folded in seen_names:
            raise ValueError(f"{name}: environment {env['id']}: the name {env['name']!r} appears twice")
        seen_ids.add(env["id"])
        seen_names.add(folded)
    if len(envs) != ENVIRONMENT_COUNT:
        raise ValueError(f"{name}: expected {ENVIRONMENT_COUNT} environments, found {len(envs)}")
    return data["version"], envs


def reward_rank(risks: dict, risk: str) -> str:
    """'lowest', 'middle', 'highest' or 'tied' for a printed risk (the rule sheet's
    reward: 2, 3 or 4 cards; a tied risk rewards 3)."""
    value = risks[risk]
    others = [risks[r] for r in RISKS if r != risk]
    if value in others:
        return "tied"
    below = sum(1 for v in others if v < value)
    return ("lowest", "middle", "highest")[below]


REWARD_CARDS = {"lowest": 2, "middle": 3, "highest": 4, "tied": 3}
