"""War (every mode) as one game package: the `GAME` spec and the engine
contract's functions (see app/engines/contract.py; game.py hands each call to a
run, runs.py, or a match, engine.py)."""
from ..contract import UI, Demo, GameSpec, Seating
from .control import computer_options
from .engine import BLURB, KEY, MAX_SEATS, MIN_SEATS, OPTIONS, RUN_MODES, TITLE, VERSION
from .game import actions, apply, bot, finish, new, result, timers, upgrade, view, views
from .figures import figures
from .hidden import HIDDEN
from .report import report
from .powers import VERSION as POWERS_VERSION
from .rulings import RULINGS, RULINGS_VERSION
from .runs import RUNS_VERSION
from ..text import N_


def seats_for(options: dict) -> tuple[int, int]:
    """A Tournament or Survival run is played alone; every other mode by 2 to 6."""
    return (1, 1) if options.get("mode") in RUN_MODES else (MIN_SEATS, MAX_SEATS)


GAME = GameSpec(
    key=KEY,
    title=TITLE,
    blurb=BLURB,
    minutes="5–15",
    ages="6+",
    version=VERSION,
    min_seats=1,                 # a run (Tournament, Survival) is played alone: see seats_for
    max_seats=MAX_SEATS,
    seats_for=seats_for,
    seating=Seating(sizes=(2, 3, 4, 5, 6), default=4, minimum=2, solo_computers=1,
                    solo_label=N_("Solo: each student against a computer")),
    options=tuple(OPTIONS),
    # The create form's buttons (Quick Match: every option on one form, a preset
    # per named mode).
    presets={
        "classic": {"mode": "classic", "length": "fits_a_lesson"},
        "power_war": {"mode": "power", "length": "first_to_40_cards", "energy_start": 3,
                      "energy_per_battle": 1, "energy_max": 10},
        "wager_battle": {"mode": "wager", "length": "full_elimination", "bankroll": 100,
                         "raise_amount": 10},
        "power_and_wager": {"mode": "power_wager", "length": "10_minutes"},
        "tournament": {"mode": "tournament"},
        "survival": {"mode": "survival"},
    },
    order_free=frozenset({"reveal", "autoplay", "hold", "resume", "restart",
                          "loadout", "activate", "deactivate", "counter", "resolve"}),
    computer_options=computer_options,  # the computer seats, for hold and restart (control.py)
    bot_levels=("easy", "standard", "hard"),
    data_versions={"rulings.json": RULINGS_VERSION, "runs.json": RUNS_VERSION, "powers.json": POWERS_VERSION},
    rulings=tuple(RULINGS),
    figures=figures,
    report=report,
    hidden=HIDDEN,   # what each mode keeps from the seats (hidden.py)
    # A War ruling happens in a battle: "move 40, 10:04, Ana, battle 7".
    moment_counters=("battle", "turn", "round"),
    # Log kinds worth a line in a debrief: the platform's own (start, kick,
    # pause, lock, end) and War's wars, knock-outs, carried pots, shuffles,
    # sudden death, the clock running out, a match target reached and the end;
    # a run's tables entered, won and lost.
    key_moments=frozenset({"start", "kick", "pause", "lock", "end", "war", "out", "carry",
                           "shuffle", "sudden_death", "time_up", "target", "game_over",
                           "run_enter", "run_won", "run_lost"}),
    discussion=(
        N_("Did anyone make a choice that changed who won? What does that tell you about "
           "chance and skill in War?"),
        N_("Before the first card was turned, could you have predicted the winner? "
           "What would you need to know?"),
        N_("Some games of War go round in circles. Why can the same cards come back in "
           "the same order, and what did our game do about it?"),
        N_("When two cards tie, a war puts more cards at stake. Did wars make the game "
           "fairer, faster or just more exciting?"),
        N_("If you could change one rule (how ties work, where won cards go, when the "
           "game ends), what would you change and what do you think would happen?"),
    ),
    start_label=N_("Deal cards & start"),
    # Solo runs from the home page, without an account (one seat, no computer seats:
    # the run's opponents play inside its matches).
    starts=(
        Demo(options={"mode": "classic", "length": "5_minutes"}, seats=(N_("Player"), N_("Computer")), computers=(1,),
             key="quick_match", label=N_("Quick Match against the computer"),
             blurb=N_("Five minutes of Classic War against a computer player: no account needed.")),
        Demo(options={"mode": "tournament", "computer_level": "standard"}, seats=(N_("Challenger"),), computers=(),
             label=N_("Tournament"), key="tournament",
             blurb=N_("Climb a four-stage ladder of computer tables: pay to enter, win chips and unlock powers.")),
        Demo(options={"mode": "survival", "computer_level": "standard"}, seats=(N_("Survivor"),), computers=(),
             label=N_("Survival"), key="survival",
             blurb=N_("Beat one computer table after another, each harder than the last, until you lose one.")),
    ),
    ui=UI(phone="games/war/war.js", board="games/war/war.js", facilitator=None,
          stylesheet="games/war/war.css", icons="games/war/icons.js"),
)

__all__ = ["GAME", "new", "actions", "apply", "view", "views", "bot", "result", "finish", "timers", "upgrade"]
