"""War (Classic mode) as one game package: the `GAME` spec and the engine
contract's functions (see app/engines/contract.py and engine.py)."""
from ..contract import UI, GameSpec, Seating
from .engine import (BLURB, KEY, MAX_SEATS, MIN_SEATS, OPTIONS, TITLE, VERSION, actions, apply, bot,
                     finish, new, result, timers, upgrade, view)
from .figures import figures
from .powers import VERSION as POWERS_VERSION
from .rulings import RULINGS, RULINGS_VERSION

GAME = GameSpec(
    key=KEY,
    title=TITLE,
    blurb=BLURB,
    version=VERSION,
    min_seats=MIN_SEATS,
    max_seats=MAX_SEATS,
    seating=Seating(sizes=(2, 3, 4, 5, 6), default=4, minimum=2, solo_computers=1,
                    solo_label="Solo: each student against a computer"),
    options=tuple(OPTIONS),
    # The create form's buttons (Quick Match: every option on one form, a preset
    # per named mode).
    presets={
        "classic": {"mode": "classic", "length": "full_elimination"},
        "power_war": {"mode": "power", "length": "first_to_40_cards", "energy_start": 3,
                      "energy_per_battle": 1, "energy_max": 10},
        "wager_battle": {"mode": "wager", "length": "full_elimination", "bankroll": 100,
                         "raise_amount": 10},
        "power_and_wager": {"mode": "power_wager", "length": "10_minutes"},
        "tournament": {"mode": "tournament"},
        "survival": {"mode": "survival"},
    },
    order_free=frozenset({"reveal", "autoplay", "loadout", "activate", "deactivate", "counter", "resolve"}),
    bot_levels=("easy", "standard", "hard"),
    data_versions={"rulings.json": RULINGS_VERSION, "powers.json": POWERS_VERSION},
    rulings=tuple(RULINGS),
    figures=figures,
    # Log kinds worth a line in a debrief: the platform's own (start, kick,
    # pause, lock, end) and War's wars, knock-outs, carried pots, shuffles,
    # sudden death, the clock running out, a match target reached and the end.
    key_moments=frozenset({"start", "kick", "pause", "lock", "end", "war", "out", "carry",
                           "shuffle", "sudden_death", "time_up", "target", "game_over"}),
    discussion=(
        "Did anyone make a choice that changed who won? What does that tell you about "
        "chance and skill in War?",
        "Before the first card was turned, could you have predicted the winner? "
        "What would you need to know?",
        "Some games of War go round in circles. Why can the same cards come back in "
        "the same order, and what did our game do about it?",
        "When two cards tie, a war puts more cards at stake. Did wars make the game "
        "fairer, faster or just more exciting?",
        "If you could change one rule (how ties work, where won cards go, when the "
        "game ends), what would you change and what do you think would happen?",
    ),
    start_label="Deal cards & start",
    ui=UI(phone="games/war/war.js", board="games/war/war.js", facilitator=None,
          stylesheet="games/war/war.css"),
)

__all__ = ["GAME", "new", "actions", "apply", "view", "bot", "result", "finish", "timers", "upgrade"]
