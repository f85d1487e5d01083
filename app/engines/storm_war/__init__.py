"""Storm War as one game package: the `GAME` spec and the engine contract's
functions (see app/engines/contract.py and engine.py)."""
from ..contract import UI, Demo, GameSpec, Seating
from ..text import N_
from .content import DATA_VERSIONS
from .engine import (BLURB, KEY, MAX_SEATS, MIN_SEATS, OPTIONS, PRESETS, TITLE, VERSION, actions, apply, bot,
                     finish, new, result, upgrade, view)
from .figures import figures
from .hidden import HIDDEN
from .report import report
from .gallery import gallery
from .rulings import RULINGS, RULINGS_VERSION

GAME = GameSpec(
    key=KEY,
    title=TITLE,
    blurb=BLURB,
    minutes="20–30",
    ages="10+",
    version=VERSION,
    min_seats=MIN_SEATS,
    max_seats=MAX_SEATS,
    seating=Seating(sizes=(2, 3, 4), default=3, minimum=2, solo_computers=1,
                    solo_label=N_("Solo: each trainee against a computer rival")),
    options=tuple(OPTIONS),
    presets=PRESETS,
    order_free=frozenset(),            # a pass sent before a new play was seen must not count
    bot_levels=("easy", "standard"),
    data_versions={"rulings.json": RULINGS_VERSION, **DATA_VERSIONS},
    rulings=tuple(RULINGS),
    figures=figures,
    report=report,
    hidden=HIDDEN,   # what the seats must not see (hidden.py)
    key_moments=frozenset({"start", "kick", "pause", "lock", "end", "game_over", "challenge", "success",
                           "failure", "donate", "play", "degrader", "sue", "upgrade"}),
    discussion=(
        N_("Which practice on your Jobsite did the most work? What does it do to real stormwater?"),
        N_("A Degrader made an Environment harder for everyone but its placer. Which real pollution "
           "sources act like that in your town?"),
        N_("Why would a trainee donate a BMP to a rival's cleanup? When does helping someone else help you?"),
        N_("Which Environment was hardest to clean up, and which risk made it hard?"),
        N_("If you could add one card to the deck from something you have seen near school, what would it do?"),
    ),
    start_label=N_("Deal cards & start"),
    ui=UI(phone="games/storm_war/storm_war.js", board="games/storm_war/storm_war.js",
          facilitator=None, stylesheet="games/storm_war/storm_war.css", icons="games/storm_war/icons.js"),
    demo=Demo(options={"demo": True}, seats=("Trainee", "Practice rival"), computers=(1,),
              label=N_("Try the guided demo"), full=N_("The guided demo is one trainee and the practice rival."),
              blurb=N_("Six guided steps against a practice rival: build a Jobsite, equip a Tool and clean up "
                       "the City. No account needed.")),
    gallery=gallery,
)

__all__ = ["GAME", "new", "actions", "apply", "view", "bot", "result", "finish", "upgrade"]
