"""The game's card data, loaded once at import from data/ (see trivia.py, which
validates every file): card names and texts, the Crisis cards, the built-in
trivia bank, and what a computer player "knows" of it."""
from __future__ import annotations

from ..text import N_
from . import trivia

TRIVIA_VERSION, QUESTIONS = trivia.load_builtin()
CRISES_VERSION, CRISES = trivia.load_crises()
CARDS_VERSION, CARDS = trivia.load_cards()
DATA_VERSIONS = {"trivia.json": TRIVIA_VERSION, "crises.json": CRISES_VERSION, "cards.json": CARDS_VERSION}

CRISIS_BY_ID = {c["id"]: c for c in CRISES}

# The order cards are shown in a hand: the four Resources (a Cycle reads left
# to right), NEWater (the wild card) next to them, then the Weather cards.
CARD_ORDER = ("evap", "cond", "precip", "collect", "newater", "reservoir", "monsoon", "forecast", "dry_spell",
              "diversion", "evaporation_surge", "pipe_burst", "pipe_leakage", "water_rationing")
LEGEND = {c["kind"]: {"name": c["name"], "text": c["text"], "fact": c["fact"], "group": group}
          for group in ("resources", "weather") for c in CARDS[group]}
LEGEND["emergency"] = dict(CARDS["emergency"], group="emergency")
LEGEND["collapse"] = dict(CARDS["collapse"], group="collapse")
LEGEND["crisis"] = {"name": N_("Crisis"), "group": "crisis",
                    "text": N_("A water disaster: pick cards, explain how they help, and the others judge."),
                    "fact": N_("Every Crisis card is a real kind of water emergency.")}
CARD_NAMES = {kind: entry["name"] for kind, entry in LEGEND.items()}
assert set(CARD_ORDER) <= set(CARD_NAMES)

# A computer player answers a built-in question right when it "knows" it (a chance
# set by its level); a question from a teacher's own bank it can only guess.
ANSWERS = {q["question"]: q["answer"] for q in QUESTIONS}


def bank_problems(questions) -> list[str]:
    """Why a teacher's bank (already parsed from CSV) cannot be used; [] when it can."""
    if not isinstance(questions, list) or not questions:
        return [N_("it has no questions")]
    problems, ids = [], set()
    for q in questions:
        found = trivia.question_problems(q, uploaded=True)
        if found:
            problems.append(N_("question {id}: {problems}").format(id=q.get("id", "?") if isinstance(q, dict) else "?",
                                                                  problems="; ".join(found)))
        elif q["id"] in ids:
            problems.append(N_("question {id} appears twice").format(id=q["id"]))
        else:
            ids.add(q["id"])
    return problems
