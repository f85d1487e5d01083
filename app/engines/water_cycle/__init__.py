"""Water Cycle Challenge as one game package: the `GAME` spec and the engine
contract's functions (see app/engines/contract.py and engine.py)."""
from ..contract import UI, GameSpec, Seating, Upload
from ..text import N_
from .content import DATA_VERSIONS
from .engine import (BLURB, KEY, MAX_SEATS, MIN_SEATS, OPTIONS, PRESETS, TITLE, VERSION, actions, apply, bot,
                     finish, new, result, timers, upgrade, view)
from .figures import figures
from .hidden import HIDDEN
from .report import report
from .rulings import RULINGS, RULINGS_VERSION
from .trivia import CSV_COLUMNS_HELP, CSV_MAX_CHARS, TRIVIA_MIN, parse_csv

GAME = GameSpec(
    key=KEY,
    title=TITLE,
    blurb=BLURB,
    minutes="20–30",
    ages="8+",
    version=VERSION,
    min_seats=MIN_SEATS,
    max_seats=MAX_SEATS,
    seating=Seating(sizes=(2, 3, 4), default=4, minimum=2, solo_computers=2,
                    solo_label=N_("Solo: each student against two computers")),
    options=tuple(OPTIONS),
    presets=PRESETS,
    order_free=frozenset({"vote"}),     # every phone votes on a Crisis at the same time
    bot_levels=("easy", "standard", "expert"),
    data_versions={"rulings.json": RULINGS_VERSION, **DATA_VERSIONS},
    rulings=tuple(RULINGS),
    figures=figures,
    report=report,
    hidden=HIDDEN,   # what the seats must not see (hidden.py)
    # Worth a line in a debrief: the platform's own events and the game's big moments.
    key_moments=frozenset({"start", "kick", "pause", "lock", "end", "game_over", "crisis", "explain",
                           "tally", "moderation", "crisis_passed", "crisis_failed", "collapse", "defused",
                           "collapse_loss", "trivia", "boss_defeated", "trade"}),
    discussion=(
        N_("Which Crisis explanation convinced the table most? What made it convincing: the science, "
        "the cards, or how it was told?"),
        N_("Was an explanation voted down that you think should have passed? What would have made it stronger?"),
        N_("Trading a Cycle is safe; challenging the Boss is risky. When was the risk worth it?"),
        N_("Which trivia question surprised you most, and where does that water really go?"),
        N_("NEWater is recycled water. Would you drink it? What would a town need to trust it?"),
        N_("If you ran a real water company, which card would you want most in a drought, and why?"),
    ),
    start_label=N_("Deal cards & start"),
    ui=UI(phone="games/water_cycle/water_cycle.js", board="games/water_cycle/water_cycle.js",
          facilitator="games/water_cycle/water_cycle.js", stylesheet="games/water_cycle/water_cycle.css",
          icons="games/water_cycle/icons.js"),
    uploads=(Upload(kind="trivia", option="trivia", title=N_("Trivia questions"), parse=parse_csv,
                    help=CSV_COLUMNS_HELP, noun=N_("questions"), max_bytes=CSV_MAX_CHARS,
                    builtin_label=N_("Built-in bank"),
                    languages=True, min_items=TRIVIA_MIN),),   # a question may name its language
)

__all__ = ["GAME", "new", "actions", "apply", "view", "bot", "result", "finish", "timers", "upgrade"]
