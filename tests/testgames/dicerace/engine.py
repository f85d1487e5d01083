"""Dice Race: a pure, deterministic state machine following app/engines/contract.py.

The rules, for 2 to 4 players:

* Rounds. A round leader (seat 0 in round 1, then the next seat each round)
  starts the round (`start`); then every player rolls one die (`move`), in any
  order: the roll step is order-free. Each player moves forward by the roll.
* Lucky numbers. At the start every player draws a secret lucky number from 1
  to 5 (only that seat sees it). Rolling it moves one step more. Because the
  number is at most 5, a public move of 1 to 6 never tells it for certain.
  The die itself is shown only to the player who rolled it; everyone sees how
  far each player moved.
* Checkpoints. After every third round the table votes (`vote`, order-free)
  "sprint" (the next round's moves count double) or "steady". The majority
  decides; missing votes count as steady and a tie is steady (a provisional
  ruling, logged as `dicerace.tie_vote_is_steady`). A vote open for 30 seconds
  is closed by the clock (`time_up`, actor "system"). When the vote has
  closed, every player says they are ready to go on (`resume`).
* The facilitator may give a player a +2 bonus (once per player per round) and
  may skip an open vote (the next round is then steady).
* The first player at or past the finish line (20 by default) at the end of a
  round wins; players level at the top share the win. The facilitator may end
  the race early (`finish`): the furthest along win.

The action types `start`, `move` and `resume` deliberately share their names
with the platform's table events (the lobby's start, a class move, the
teacher's resume), so that the platform's replay must tell them apart by the
event's kind, not by the action's type.

State is plain JSON; seats are list indices; the whole Rng state is the one
integer `state["rng"]`, which no view ever shows.
"""
from __future__ import annotations

from app.engines.contract import (UI, GameSpec, Hidden, IllegalAction, Option, Rng, Seating, clone, finish_cause,
                                  label, log, prompt, resolve_options, ruling, strip_label)

from .hidden import scramble

KEY = "dicerace"
TITLE = "Dice Race"
VERSION = "dicerace-1"
MIN_SEATS = 2
MAX_SEATS = 4
BLURB = ("Everyone rolls at once and races to the finish line. Every three rounds the table "
         "votes to sprint (double moves) or stay steady.")

FACILITATOR = "facilitator"
BOARD = "board"
SYSTEM = "system"

SIDES = 6
LUCKY_HIGHEST = 5          # lucky numbers are 1..5, so a move of 1..6 never gives one away
CHECKPOINT_EVERY = 3       # rounds between votes
BONUS = 2                  # the facilitator's bonus, in steps
VOTE_SECONDS = 30          # how long a checkpoint vote stays open
CHOICES = ("sprint", "steady")
TIE_RULING = "dicerace.tie_vote_is_steady"
LESSON_RULING = "dicerace.lesson_clock"

OPTIONS = (
    Option("goal", "Finish line", 20, (10, 20, 30),
           help="The first player at or past this square at the end of a round wins."),
)
PRESETS = {"quick": {"goal": 10}, "standard": {"goal": 20}}

RULINGS = (
    {"id": TIE_RULING, "kind": "provisional", "title": "A tied vote means steady",
     "text": ("When a checkpoint vote ends with as many votes for sprint as for steady (missing "
              "votes count as steady), the next round is played steady: nobody's move is doubled. "
              "The rule sheet only says that the majority decides; this ruling settles the tie "
              "until the designers decide otherwise.")},
    {"id": LESSON_RULING, "kind": "provisional", "title": "The lesson clock runs out",
     "text": ("When the table's lesson clock runs out, the race ends at once: the players furthest "
              "along win, and players on the same square share the win.")},
)

DISCUSSION = (
    "When did voting to sprint help the players who were behind, and when did it help the leader?",
    "Your lucky number was secret. Could you guess anyone else's from how far they moved? How?",
    "Was the +2 bonus from the teacher fair? When would you give one in a real lesson?",
)

# Which actor may send each action type, and the exact fields each one has.
SEAT_KINDS = {"start", "move", "vote", "resume"}
FACILITATOR_KINDS = {"bonus", "skip_vote"}
SYSTEM_KINDS = {"time_up"}
FIELDS = {"start": {"type"}, "move": {"type"}, "resume": {"type"}, "vote": {"type", "choice"},
          "bonus": {"type", "seat"}, "skip_vote": {"type"}, "time_up": {"type"}}


# --------------------------------------------------------------------------
# Small helpers

def _fail(code: str, message: str):
    raise IllegalAction(code, message)


def _is_seat(s: dict, who) -> bool:
    return isinstance(who, int) and not isinstance(who, bool) and 0 <= who < len(s["names"])


def _name(s: dict, seat: int) -> str:
    return s["names"][seat]


def _names(s: dict, seats: list[int]) -> str:
    """'Ana', 'Ana and Ben', 'Ana, Ben and Cara'."""
    names = [_name(s, p) for p in seats]
    if not names:
        return "nobody"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _seats(s: dict) -> list[int]:
    return list(range(len(s["names"])))


def _waiting(s: dict) -> list[int]:
    """Who the game waits for now, in seat order."""
    if s["status"] != "playing":
        return []
    phase = s["phase"]
    if phase == "leader":
        return [s["leader"]]
    if phase == "roll":
        return [p for p in _seats(s) if p not in s["rolled"]]
    if phase == "vote":
        return [p for p in _seats(s) if s["votes"][p] is None]
    if phase == "break":
        return [p for p in _seats(s) if p not in s["ready"]]
    return []


# --------------------------------------------------------------------------
# Setting up

def new(options: dict, seats: list[str], seed) -> dict:
    if not isinstance(seats, list) or not MIN_SEATS <= len(seats) <= MAX_SEATS:
        _fail("illegal", f"Dice Race needs {MIN_SEATS} to {MAX_SEATS} players.")
    resolved = resolve_options(list(OPTIONS), options)
    rng = Rng.from_seed(seed)
    lucky = [rng.randint(1, LUCKY_HIGHEST) for _ in seats]
    n = len(seats)
    return {
        "game": KEY,
        "version": VERSION,
        "options": resolved,
        "goal": resolved["goal"],
        "names": list(seats),
        "status": "playing",
        "rng": rng.state,            # the whole generator: never shown in a view
        "lucky": lucky,              # per seat, secret: only that seat's view shows it
        "positions": [0] * n,
        "round": 1,
        "leader": 0,                 # who starts the current round
        "phase": "leader",           # leader | roll | vote | break | over
        "rolled": [],                # seats that rolled this round, in roll order
        "last_roll": [None] * n,     # each seat's latest die face (private to that seat)
        "sprint": False,             # this round's moves count double
        "bonused": [],               # seats given a bonus this round
        "checkpoint": 0,             # how many checkpoint votes have opened
        "votes": [None] * n,         # the open vote's choices (each private until it closes)
        "ready": [],                 # seats ready to go on after a checkpoint
        "last_vote": None,           # the last closed vote, public
        "result": None,
    }


# --------------------------------------------------------------------------
# What each viewer may do

def actions(state: dict, viewer) -> list[dict]:
    s = state
    if s["status"] != "playing":
        return []
    if viewer == FACILITATOR:
        listed = [label({"type": "bonus", "seat": p}, f"Give {_name(s, p)} a +{BONUS} bonus")
                  for p in _seats(s) if p not in s["bonused"]]
        if s["phase"] == "vote":
            listed.append(label({"type": "skip_vote"}, "Skip the vote (the next round is steady)"))
        return listed
    if not _is_seat(s, viewer) or viewer not in _waiting(s):
        return []
    phase = s["phase"]
    if phase == "leader":
        return [label({"type": "start"}, f"Start round {s['round']}")]
    if phase == "roll":
        return [label({"type": "move"}, "Roll the die (sprint: your move counts double)" if s["sprint"]
                      else "Roll the die")]
    if phase == "vote":
        return [label({"type": "vote", "choice": "sprint"}, "Vote sprint: next round's moves count double"),
                label({"type": "vote", "choice": "steady"}, "Vote steady: next round as usual")]
    if phase == "break":
        return [label({"type": "resume"}, f"I'm ready: go on to round {s['round'] + 1}")]
    return []


def _check_payload(s: dict, action) -> tuple[str, dict]:
    """Reject malformed actions before looking at who sent them or when."""
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        _fail("illegal", "That is not a move in Dice Race.")
    action = strip_label(action)
    kind = action["type"]
    if kind not in FIELDS:
        _fail("illegal", "That is not a move in Dice Race.")
    if set(action) != FIELDS[kind]:
        _fail("illegal", "That move has the wrong details.")
    if kind == "vote" and action["choice"] not in CHOICES:
        _fail("illegal", "Vote sprint or steady.")
    if kind == "bonus" and not _is_seat(s, action["seat"]):
        _fail("illegal", "There is no player in that seat.")
    return kind, action


def apply(state: dict, actor, action: dict) -> tuple[dict, list[dict]]:
    if not (actor in (FACILITATOR, SYSTEM) or _is_seat(state, actor)):
        if actor == BOARD:
            _fail("forbidden", "The board only shows the game; it cannot make moves.")
        _fail("forbidden", "That player is not at this table.")
    if state["status"] != "playing":
        _fail("game_over", "The race is over.")
    kind, action = _check_payload(state, action)
    if kind in SEAT_KINDS and not _is_seat(state, actor):
        _fail("forbidden", "Only a player can do that; the teacher cannot play for a player.")
    if kind in FACILITATOR_KINDS and actor != FACILITATOR:
        _fail("forbidden", "Only the teacher can do that.")
    if kind in SYSTEM_KINDS and actor != SYSTEM:
        _fail("forbidden", "Only the clock closes a vote.")
    s = clone(state)
    if kind == "start":
        return s, _start_round(s, actor)
    if kind == "move":
        return s, _roll(s, actor)
    if kind == "vote":
        return s, _vote(s, actor, action["choice"])
    if kind == "resume":
        return s, _resume(s, actor)
    if kind == "bonus":
        return s, _bonus(s, action["seat"])
    if kind == "skip_vote":
        return s, _skip_vote(s)
    return s, _time_up(s)


# --------------------------------------------------------------------------
# Rounds and rolls

def _start_round(s: dict, seat: int) -> list[dict]:
    if s["phase"] != "leader":
        _fail("illegal", "The round has already started." if s["phase"] == "roll"
              else "A new round cannot start until the checkpoint is over.")
    if seat != s["leader"]:
        _fail("not_your_turn", f"{_name(s, s['leader'])} starts round {s['round']}.")
    s["phase"] = "roll"
    s["rolled"] = []
    extra = " Sprint: every move counts double." if s["sprint"] else ""
    return [log("round", f"{_name(s, seat)} starts round {s['round']}.{extra}",
                round=s["round"], seat=seat, sprint=s["sprint"])]


def _roll(s: dict, seat: int) -> list[dict]:
    if s["phase"] != "roll":
        _fail("illegal", "Nobody rolls now." if s["phase"] != "leader"
              else f"Wait for {_name(s, s['leader'])} to start the round.")
    if seat in s["rolled"]:
        _fail("not_your_turn", "You have already rolled this round. Wait for the others.")
    rng = Rng(s["rng"])
    face = rng.randint(1, SIDES)
    s["rng"] = rng.state
    lucky = face == s["lucky"][seat]
    steps = (face + (1 if lucky else 0)) * (2 if s["sprint"] else 1)
    s["positions"][seat] += steps
    s["rolled"].append(seat)
    s["last_roll"][seat] = face
    r = s["round"]
    entries = [log("roll", f"You rolled a {face}.", visible_to=[seat], round=r, seat=seat, face=face)]
    if lucky:
        entries.append(log("lucky", f"{face} is your lucky number: one step more.", visible_to=[seat],
                           round=r, seat=seat, lucky=face))
    doubled = " (sprint)" if s["sprint"] else ""
    entries.append(log("advance", f"{_name(s, seat)} moves {steps}{doubled} to square {s['positions'][seat]}.",
                       round=r, seat=seat, steps=steps, position=s["positions"][seat]))
    if len(s["rolled"]) == len(s["names"]):
        entries += _end_round(s)
    return entries


def _end_round(s: dict) -> list[dict]:
    r = s["round"]
    s["sprint"] = False
    standing = ", ".join(f"{_name(s, p)} {s['positions'][p]}" for p in _seats(s))
    entries = [log("round_over", f"Round {r} is over: {standing}.", round=r, positions=list(s["positions"]))]
    if max(s["positions"]) >= s["goal"]:
        return entries + _end_game(s, "goal")
    if r % CHECKPOINT_EVERY == 0:
        s["checkpoint"] += 1
        s["phase"] = "vote"
        s["votes"] = [None] * len(s["names"])
        entries.append(log("vote_open", f"Checkpoint {s['checkpoint']}: vote sprint or steady for round {r + 1}.",
                           round=r, checkpoint=s["checkpoint"]))
        return entries
    _next_round(s)
    return entries


def _next_round(s: dict) -> None:
    s["round"] += 1
    s["leader"] = (s["round"] - 1) % len(s["names"])
    s["phase"] = "leader"
    s["rolled"], s["bonused"], s["ready"] = [], [], []


# --------------------------------------------------------------------------
# Checkpoint votes

def _require_vote(s: dict) -> None:
    if s["phase"] != "vote":
        _fail("illegal", "No vote is open now.")


def _vote(s: dict, seat: int, choice: str) -> list[dict]:
    _require_vote(s)
    if s["votes"][seat] is not None:
        _fail("not_your_turn", "You have already voted. Wait for the others.")
    s["votes"][seat] = choice
    k = s["checkpoint"]
    entries = [log("my_vote", f"You voted {choice}.", visible_to=[seat], checkpoint=k, seat=seat, choice=choice),
               log("vote", f"{_name(s, seat)} has voted.", checkpoint=k, seat=seat)]
    if all(v is not None for v in s["votes"]):
        entries += _close_vote(s, "everyone")
    return entries


def _time_up(s: dict) -> list[dict]:
    if s["phase"] != "vote":
        _fail("illegal", "No vote is open, so there is nothing to close.")
    missing = [p for p in _seats(s) if s["votes"][p] is None]
    text = (f"Time is up: {_names(s, missing)} did not vote (counted as steady)." if missing
            else "Time is up.")
    return [log("time_up", text, checkpoint=s["checkpoint"], missing=missing)] + _close_vote(s, "time")


def _close_vote(s: dict, closed_by: str) -> list[dict]:
    votes = list(s["votes"])
    sprint = sum(1 for v in votes if v == "sprint")
    steady = sum(1 for v in votes if v == "steady")
    missing = sum(1 for v in votes if v is None)
    decision = "sprint" if sprint > steady + missing else "steady"
    k = s["checkpoint"]
    s["last_vote"] = {"checkpoint": k, "votes": votes, "sprint": sprint, "steady": steady, "missing": missing,
                      "decision": decision, "closed_by": closed_by}
    s["sprint"] = decision == "sprint"
    s["votes"] = [None] * len(s["names"])
    s["phase"], s["ready"] = "break", []
    counted = f"{sprint} for sprint, {steady + missing} for steady"
    if missing:
        counted += f" ({missing} missing)"
    entries = [log("vote_closed", f"Checkpoint {k}: {counted}. Round {s['round'] + 1} is {decision}.",
                   checkpoint=k, votes=votes, sprint=sprint, steady=steady, missing=missing,
                   decision=decision, closed_by=closed_by)]
    if sprint == steady + missing:
        entries.append(ruling(TIE_RULING, f"The vote at checkpoint {k} is tied {sprint} to {sprint}, "
                                          "so the next round is steady.",
                              checkpoint=k, round=s["round"], sprint=sprint, steady=steady + missing))
    return entries


def _skip_vote(s: dict) -> list[dict]:
    _require_vote(s)
    k = s["checkpoint"]
    s["last_vote"] = {"checkpoint": k, "votes": None, "sprint": 0, "steady": 0, "missing": 0,
                      "decision": "steady", "closed_by": "facilitator"}
    s["sprint"] = False
    s["votes"] = [None] * len(s["names"])  # votes cast so far stay secret
    s["phase"], s["ready"] = "break", []
    return [log("skip_vote", f"The teacher skips the vote at checkpoint {k}: round {s['round'] + 1} is steady.",
                checkpoint=k)]


def _resume(s: dict, seat: int) -> list[dict]:
    if s["phase"] != "break":
        _fail("illegal", "The race is not stopped at a checkpoint.")
    if seat in s["ready"]:
        _fail("not_your_turn", "You are ready. Wait for the others.")
    s["ready"].append(seat)
    entries = [log("ready", f"{_name(s, seat)} is ready to go on.", seat=seat, checkpoint=s["checkpoint"])]
    if len(s["ready"]) == len(s["names"]):
        _next_round(s)
    return entries


# --------------------------------------------------------------------------
# The facilitator

def _bonus(s: dict, seat: int) -> list[dict]:
    if seat in s["bonused"]:
        _fail("illegal", f"{_name(s, seat)} already had a bonus this round.")
    s["bonused"].append(seat)
    s["positions"][seat] += BONUS
    return [log("bonus", f"The teacher gives {_name(s, seat)} a +{BONUS} bonus: now on square "
                         f"{s['positions'][seat]}.", round=s["round"], seat=seat, amount=BONUS,
                position=s["positions"][seat])]


def finish(state: dict, cause: str = "teacher") -> tuple[dict, list[dict]]:
    """The facilitator ends the race now, or the lesson clock ran out (`cause`): the furthest along win."""
    cause = finish_cause(cause)
    if state["status"] != "playing":
        _fail("game_over", "The race is over.")
    s = clone(state)
    if cause == "lesson_clock":
        return s, [log("end", "The lesson clock ran out.", round=s["round"]),
                   ruling(LESSON_RULING, RULINGS[1]["text"], positions=list(s["positions"]))] \
            + _end_game(s, "lesson_clock_ran_out")
    if cause == "time_limit":
        return s, [log("end", "This race ran too long, so it was stopped.", round=s["round"])] \
            + _end_game(s, "ran_too_long")
    return s, [log("end", "The teacher ends the race.", round=s["round"])] + _end_game(s, "ended_by_facilitator")


# --------------------------------------------------------------------------
# Ending

def _end_game(s: dict, reason: str) -> list[dict]:
    pos = s["positions"]
    ranking = sorted(_seats(s), key=lambda p: (-pos[p], p))
    winners = [p for p in ranking if pos[p] == pos[ranking[0]]]
    s["status"], s["phase"] = "ended", "over"
    s["rolled"], s["ready"], s["votes"] = [], [], [None] * len(s["names"])
    s["sprint"] = False
    s["result"] = {"winners": winners, "ranking": ranking, "scores": list(pos), "reason": reason}
    verb = "wins" if len(winners) == 1 else "share the win"
    return [log("game_over", f"{_names(s, winners)} {verb} on square {pos[winners[0]]}!", reason=reason,
                winners=winners, ranking=ranking)]


def result(state: dict) -> dict | None:
    return clone(state["result"])


def timers(state: dict) -> list[dict]:
    """The open vote's deadline: when it fires, the vote closes with the votes cast."""
    if state["status"] == "playing" and state["phase"] == "vote":
        return [{"key": f"vote:{state['checkpoint']}", "after": VOTE_SECONDS, "actor": SYSTEM,
                 "action": {"type": "time_up"}}]
    return []


# --------------------------------------------------------------------------
# Views and the computer player

def _prompt_text(s: dict, viewer, waiting: list[int]) -> str:
    if s["status"] != "playing":
        res = s["result"]
        if res is None:
            return "The race is over."
        verb = "wins" if len(res["winners"]) == 1 else "share the win"
        return f"The race is over: {_names(s, res['winners'])} {verb}."
    phase, r = s["phase"], s["round"]
    mine = isinstance(viewer, int) and viewer in waiting
    if phase == "leader":
        return f"Start round {r}." if mine else f"Waiting for {_name(s, s['leader'])} to start round {r}."
    if phase == "roll":
        if mine:
            return "Roll the die: your move counts double (sprint)." if s["sprint"] else "Roll the die."
        return f"Waiting for {_names(s, waiting)} to roll."
    if phase == "vote":
        if mine:
            return f"Checkpoint {s['checkpoint']}: vote sprint (next round's moves double) or steady."
        return f"Checkpoint {s['checkpoint']}: waiting for {_names(s, waiting)} to vote."
    decision = (s["last_vote"] or {}).get("decision", "steady")
    if mine:
        return f"Round {r + 1} will be {decision}. Ready to go on?"
    return f"Round {r + 1} will be {decision}. Waiting for {_names(s, waiting)}."


def view(state: dict, viewer) -> dict:
    if viewer not in (BOARD, FACILITATOR) and not _is_seat(state, viewer):
        _fail("forbidden", "That player is not at this table.")
    s = state
    waiting = _waiting(s)
    public = {
        "game": KEY,
        "status": s["status"],
        "goal": s["goal"],
        "round": s["round"],
        "phase": s["phase"],
        "leader": s["leader"],
        "sprint": s["sprint"],
        "checkpoint": s["checkpoint"],
        "checkpoint_every": CHECKPOINT_EVERY,
        "vote_open": s["status"] == "playing" and s["phase"] == "vote",
        "players": [{"seat": p, "name": s["names"][p], "position": s["positions"][p],
                     "rolled": p in s["rolled"], "voted": s["votes"][p] is not None,
                     "ready": p in s["ready"], "bonused": p in s["bonused"]}
                    for p in _seats(s)],
        "waiting_for": list(waiting),
        "last_vote": clone(s["last_vote"]),
        "result": clone(s["result"]),
    }
    if isinstance(viewer, int):
        private = {"seat": viewer, "name": s["names"][viewer], "lucky": s["lucky"][viewer],
                   "vote": s["votes"][viewer], "last_roll": s["last_roll"][viewer]}
    else:
        private = {}
    return {"public": public, "private": private, "prompt": prompt(waiting, _prompt_text(s, viewer, waiting))}


def bot(seen: dict, listed: list[dict], rng) -> dict | None:
    """Roll, start and go on whenever asked; at a checkpoint, a player behind
    mostly votes sprint and a player in front mostly votes steady."""
    if not listed:
        return None
    votes = [a for a in listed if a.get("type") == "vote"]
    if votes:
        me = (seen.get("private") or {}).get("seat")
        players = (seen.get("public") or {}).get("players") or []
        mine = next((p["position"] for p in players if p["seat"] == me), 0)
        best = max((p["position"] for p in players if p["seat"] != me), default=0)
        want = "sprint" if mine < best else "steady"
        if rng.random() < 0.8:
            return strip_label(next(a for a in votes if a["choice"] == want))
        return strip_label(rng.choice(votes))
    return strip_label(rng.choice(listed))


def figures(table: dict) -> dict:
    """The class overview's numbers for one table (see GameSpec.figures)."""
    pub = table.get("public") or {}
    if not pub.get("players"):
        return {}
    names = {p["seat"]: p["name"] for p in pub["players"]}
    names.update({p["seat"]: p["name"] for p in table.get("players") or [] if p.get("seat") is not None})
    goal = pub["goal"]
    positions = [p["position"] for p in pub["players"]]
    waiting = list(pub.get("waiting_for") or [])
    res = table.get("result") or pub.get("result")
    if res:
        turn_text = "The race is over."
    elif pub["phase"] == "leader":
        turn_text = f"{names[pub['leader']]} starts round {pub['round']}"
    elif pub["phase"] == "roll":
        turn_text = f"Rolling: {', '.join(names[p] for p in waiting)}"
    elif pub["phase"] == "vote":
        turn_text = f"Voting: {', '.join(names[p] for p in waiting)}"
    else:
        turn_text = f"Getting ready: {', '.join(names[p] for p in waiting)}"
    out = {
        "progress": {"value": max(positions), "goal": goal, "label": "Furthest along",
                     "detail": f"Round {pub['round']}, first to {goal} wins"},
        "turn": {"seats": waiting, "names": [names[p] for p in waiting], "text": turn_text},
        "scores": [{"seat": p["seat"], "score": p["position"], "label": f"{p['position']} of {goal}", "out": False}
                   for p in pub["players"]],
        "alerts": [],
    }
    if pub.get("vote_open") and not res:
        voted = sum(1 for p in pub["players"] if p["voted"])
        out["alerts"].append({"kind": "vote", "level": "info",
                              "text": f"Vote open at checkpoint {pub['checkpoint']}: "
                                      f"{voted} of {len(pub['players'])} voted"})
    return out


GAME = GameSpec(
    key=KEY,
    title=TITLE,
    blurb=BLURB,
    version=VERSION,
    min_seats=MIN_SEATS,
    max_seats=MAX_SEATS,
    seating=Seating(sizes=(2, 3, 4), default=2, minimum=2, solo_computers=1,
                    solo_label="Solo against the computer"),
    options=OPTIONS,
    presets=PRESETS,
    order_free=frozenset({"move", "vote"}),
    bot_levels=("standard",),
    data_versions={},
    rulings=RULINGS,
    figures=figures,
    key_moments=frozenset({"start", "end", "game_over", "kick", "pause", "vote_closed", "time_up",
                           "skip_vote", "bonus", "ruling"}),
    discussion=DISCUSSION,
    report=lambda ctx: report(ctx),
    hidden=(Hidden(scramble=scramble, options={"goal": 10}),),   # hidden.py
    start_label="Start the race",
    ui=UI(),
)


def report(ctx: dict) -> dict:
    """The debrief's Dice Race section (GameSpec.report): squares over rounds, the
    checkpoint votes and the teacher's bonuses."""
    names = list(ctx.get("names") or [])
    n = len(names)
    points, moments, votes, bonuses = [[0, [0] * n]] if n else [], [], [], [0] * n
    for e in ctx.get("entries", []):
        t, v = e.get("t"), e.get("version", 0)
        if t == "round_over" and isinstance(e.get("positions"), list) and len(e["positions"]) == n:
            points.append([v, list(e["positions"])])
        elif t == "vote_closed":
            moments.append({"version": v, "text": e.get("text", "")})
            votes.append({"seat": None, "title": f"Checkpoint {e.get('checkpoint', '?')}: sprint or steady",
                          "cards": [], "explanation": "", "up": e.get("sprint"), "down": e.get("steady"),
                          "decision": e.get("decision", ""),
                          "decided_by": {"everyone": "the class vote", "teacher": "the teacher closing the vote",
                                         "clock": "the clock"}.get(e.get("closed_by"), "the class vote"),
                          "hidden": False, "version": v})
        elif t == "bonus" and isinstance(e.get("seat"), int) and 0 <= e["seat"] < n:
            bonuses[e["seat"]] += 1
            moments.append({"version": v, "text": e.get("text", "")})
    last = points[-1][1] if points else []
    figures = {"columns": ["Square", "Teacher bonuses"],
               "rows": [{"seat": s, "values": [last[s] if s < len(last) else 0, bonuses[s]]} for s in range(n)]}
    prompts = [f"The class voted {len(votes)} times. Which vote changed the race most?"] if votes else []
    return {"series": {"label": "Square reached", "unit": "squares", "points": points}, "moments": moments,
            "votes": votes, "figures": figures, "prompts": prompts}
