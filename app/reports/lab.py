"""The balance lab of the playtest report: the settings the class played, played again
N times by computer players at each of the game's levels, so the authors see the
class's win rates beside what the rules alone give.

The games are the engine's pure functions (new, view, actions, bot, apply, result,
timers): no database, no table. Time is simulated as a table of computer players would
live it: the service's own timer arithmetic (app/service/tables/timers.py) lists the
game's deadlines and each waiting computer's move after every change, and the earliest
due one fires, so a timed match ends at its clock and a vote closes on its own, as
the scheduler would make them, in no real time at all.

Under eventlet the lab runs in a process of its own (`python -m app.reports.lab`, a
JSON job on stdin; on stdout one JSON line per percent played, {"progress": [games
played, games in all]}, then {"runs": the figures}), as the PDF rendering does, so the
server keeps answering moves meanwhile, and a report job (app/reports/jobs.py) can say
how far the lab has gone.
"""
from __future__ import annotations

import json
import random
import statistics
import sys
from collections import Counter
from dataclasses import dataclass, field

from app import engines
from app.engines.contract import IllegalAction, strip_label
from app.service.tables.common import SeatInfo, is_int
from app.service.tables.timers import after_change

LAB_MAX = 1000              # games per level and setting, whatever the request asks
MOVES_MAX = 5000            # a game still going after this many moves counts as unfinished
PACE = 1.0                  # the computers' thinking time as on a live table (BOT_DELAY_SCALE's default)


@dataclass
class LabTable:
    """What the service's timer arithmetic (`after_change`) reads of a live table: the
    engine, the seats (every one a computer here) and the timers as they stand."""
    engine: object
    seats: list
    timers: dict = field(default_factory=dict)
    board_view: tuple | None = None   # (state, the board's view), which after_change leaves here

    @classmethod
    def of(cls, engine, players: int) -> "LabTable":
        return cls(engine, [SeatInfo(id=i, index=i, name=f"Player {i + 1}", token_hash="", computer=True,
                                     kicked=False) for i in range(players)])

    def changed(self, state, now: float, fired: str | None = None, mover: int | None = None) -> None:
        self.timers = after_change(self, state, "playing", False, fired=fired, mover=mover, now=now, scale=PACE)


def level_option(spec) -> tuple[str | None, tuple]:
    """The option that sets the computer players' level (its choices are the game's
    bot levels), and the levels; (None, ("standard",)) for a game with one level."""
    levels = tuple(spec.bot_levels or ("standard",))
    for option in spec.options:
        choices = tuple(getattr(option, "choices", ()) or ())
        if len(levels) > 1 and set(levels) <= set(choices):
            return option.key, levels
    return None, levels[:1]


def play_one(engine, options: dict, players: int, seed: int) -> dict:
    """One game between computer players: the winners, who moved first, the moves and how
    it ended, or `finished` False when the rules did not end it (nothing left to do, or
    MOVES_MAX). The clock runs from 0: each change lists the timers as the service
    would, and the earliest due fires (among computers due at once, who taps first is
    chance); when no seat is waited for, the teacher takes the first offer, as
    report_seed does."""
    state = engine.new(options, [f"Player {i + 1}" for i in range(players)], seed)
    rng = random.Random(seed)
    table = LabTable.of(engine, players)
    now, first = 0.0, None
    table.changed(state, now)
    for moves in range(MOVES_MAX):
        result = engine.result(state)
        if result:
            return {"finished": True, "winners": list(result.get("winners") or []), "first": first, "moves": moves,
                    "ending": str(result.get("reason") or ""), "seconds": now}
        waiting = table.board_view[1]["prompt"]["waiting_for"]
        offered = engine.actions(state, "facilitator") if not waiting else []
        if offered:   # the teacher decides (a review) at once
            state, _ = engine.apply(state, "facilitator", strip_label(offered[0]))
            table.changed(state, now)
            continue
        due = [(t["due"], key) for key, t in table.timers.items() if t.get("due") is not None and not t.get("dead")]
        if not due:
            break
        now = min(due)[0]
        keys = sorted(key for at, key in due if at == now)
        key = keys[rng.randrange(len(keys))]
        timer = table.timers[key]
        actor = timer.get("actor", "system")
        if timer.get("bot"):
            listed = engine.actions(state, actor)
            choice = engine.bot(engine.view(state, actor), listed, rng) if listed else None
            action = strip_label(choice) if choice is not None else None
        else:
            action = dict(timer.get("action") or {"type": "time_up"})
        if action is None:
            timer["dead"] = True   # nothing to do; the next change lists it again (as the service does)
            continue
        try:
            state, _ = engine.apply(state, actor, action)
        except IllegalAction:
            timer["dead"] = True   # it no longer applies (as the service's TimerFiring says)
            continue
        if is_int(actor):
            first = actor if first is None else first
        table.changed(state, now, fired=key, mover=actor if is_int(actor) else None)
    return {"finished": False, "winners": [], "first": first, "moves": MOVES_MAX, "ending": "", "seconds": now}


def run(game: str, settings: list[dict], games: int, progress=None) -> list[dict]:
    """For each setting ({"options", "players"}) and each level: `games` games' seat
    wins, first-mover wins, finished count, median length and how they ended.
    `progress(played, in_all)` is called as each percent of the games is played (and
    may raise to stop the lab)."""
    spec = engines.spec(game)
    engine = engines.get(game)
    key, levels = level_option(spec)
    games = max(0, min(int(games), LAB_MAX))
    total, so_far, said = len(settings) * len(levels) * games, 0, 0
    if progress is not None and total:
        progress(0, total)
    out = []
    for setting in settings:
        players = int(setting["players"])
        for level in levels:
            options = dict(setting["options"], **({key: level} if key else {}))
            played = []
            for seed in range(games):
                played.append(play_one(engine, options, players, seed))
                so_far += 1
                if progress is not None and (100 * so_far // total != said or so_far == total):
                    said = 100 * so_far // total
                    progress(so_far, total)
            done = [g for g in played if g["finished"]]
            out.append({"setting": setting["id"], "level": level, "games": games, "finished": len(done),
                        "seat_wins": [sum(s in g["winners"] for g in done) for s in range(players)],
                        "first": [sum(g["first"] in g["winners"] for g in done if g["first"] is not None),
                                  sum(1 for g in done if g["first"] is not None)],
                        "median_moves": statistics.median([g["moves"] for g in done]) if done else None,
                        # How the rules ended them ("time_up": at the match's clock), most frequent first.
                        "endings": [[reason, n] for reason, n in Counter(g["ending"] for g in done).most_common()]})
    return out


def main() -> int:
    job = json.loads(sys.stdin.buffer.read().decode("utf-8"))

    def say(line: dict) -> None:
        sys.stdout.write(json.dumps(line) + "\n")
        sys.stdout.flush()

    runs = run(job["game"], job["settings"], job["games"],
               progress=lambda done, total: say({"progress": [done, total]}))
    say({"runs": runs})
    return 0


if __name__ == "__main__":
    sys.exit(main())
