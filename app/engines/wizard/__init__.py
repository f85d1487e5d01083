"""The Wizard duel as one game package: the `GAME` spec and the engine
contract's functions (see app/engines/contract.py and engine.py)."""
from ..contract import UI, Demo, GameSpec, Online, Seating
from ..text import N_
from .content import DATA_VERSIONS
from .engine import (BLURB, computer_options, EXPIRY_SECONDS, KEY, MAX_SEATS, MIN_SEATS, OPTIONS, PRESETS, TITLE, VERSION, actions, apply, bot,
                     finish, new, result, timers, view)
from .figures import figures
from .hidden import HIDDEN
from .report import report
from .rulings import RULINGS, RULINGS_VERSION

GAME = GameSpec(
    key=KEY,
    title=TITLE,
    blurb=BLURB,
    minutes="15–25",
    ages="10+",
    version=VERSION,
    min_seats=MIN_SEATS,
    max_seats=MAX_SEATS,
    # Students are paired as they arrive; an odd one out plays the computer wizard.
    seating=Seating(sizes=(2,), default=2, minimum=2, solo_computers=1,
                    solo_label=N_("Solo: each student against the computer wizard")),
    options=tuple(OPTIONS),
    presets=PRESETS,
    order_free=frozenset(),             # every move waits for the one before: nothing is simultaneous
    bot_levels=("novice", "adept"),
    data_versions={"rulings.json": RULINGS_VERSION, **DATA_VERSIONS},
    rulings=tuple(RULINGS),
    figures=figures,
    report=report,
    hidden=HIDDEN,   # what the seats must not see (hidden.py)
    key_moments=frozenset({"start", "kick", "pause", "end", "game_over", "initiative", "recruit", "returned",
                           "attack", "expired"}),
    discussion=(
        N_("The surviving handbooks are full of spells for healing and protection. Why might ordinary villagers "
           "have paid for them?"),
        N_("Every attack was a roll of the dice against a villager's willpower. When did luck decide the duel, "
           "and when did a choice?"),
        N_("Some spells only worked on men or on women. What does that tell us about the people who wrote them?"),
        N_("Clients were named by their mothers on real amulets. Why might that have mattered to the writer?"),
    ),
    start_label=N_("Begin the duel"),
    computer_options=computer_options,
    starts=(Demo(options={"opponent": "computer"}, seats=(N_("Wizard"), N_("Computer wizard")), computers=(1,),
                 key="computer", label=N_("Play against the computer"),
                 blurb=N_("A duel on this device against the computer wizard: no account needed.")),),
    online=Online(options={"match": "online"}, label=N_("Start an online match"),
                  blurb=N_("Play a friend on another device: share the invitation link. A match waits up to "
                           "{days} days for each move.").format(days=EXPIRY_SECONDS // 86400),
                  seats=(N_("First wizard"), N_("Second wizard")), noun=N_("wizards"),
                  expiry_days=EXPIRY_SECONDS // 86400),
    ui=UI(phone="games/wizard/wizard.js", board="games/wizard/wizard.js", facilitator=None,
          stylesheet="games/wizard/wizard.css", icons="games/wizard/icons.js"),
)

__all__ = ["GAME", "new", "actions", "apply", "view", "bot", "result", "finish", "timers"]
