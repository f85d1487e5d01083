"""War engine speed against a minimal loop of the same Classic rules, and how long
seeded computer-vs-computer War games last under every match length. Run:

    .venv/bin/python bench/war_speed.py [games] [clock speeds]
    .venv/bin/python bench/war_speed.py                  (1000 seeds, clock at speed 1: about 2 minutes)
    .venv/bin/python bench/war_speed.py 3000 1,4         (also the timed matches at the fastest speed)

1. Engine: 2-player Classic, full elimination, played through the engine's public
   functions as the table service's bots would (for each seat `actions`, then
   `apply` of its "reveal"; the service's per-viewer `view` is not counted).
   Battles per second over every game, `new()` left out of the timing.
2. Minimal: the same Classic rules for 2 players written for speed (two deques of
   ranks, no ids, no logs, no copies, no repeat detection, a cap of BATTLE_LIMIT
   battles instead of sudden death), dealt from the engine's own `new()` so both
   start from the same decks. Battles per second and the ratio engine/minimal,
   measured in the same run (the aim: the engine within 5x on Classic; the minimal
   loop's time is the best of MINIMAL_REPEATS runs, the engine's a single run). On every
   seed where neither the repeat shuffle nor sudden death came into play, the two
   must agree on the winner, the number of battles and how the game ended.
3. Game lengths (median and p90 of battles, the share reaching sudden death, the
   share ended by each rule) for 2-player Classic and every match length. The
   clock of a timed match is simulated: with every seat on auto-play at speed S a
   reveal round (a battle's reveal or a war stage) takes AUTO_DELAY[S] seconds,
   so `time_up` fires after minutes*60 / AUTO_DELAY[S] rounds (server time ignored).
   The default speed is 1, the one the A key turns auto-play on at.

4. Every mode (Classic, Power War, Wager Battle, both together, Tournament and
   Survival), computer against computer at each computer level: every seat is
   played by War's own `bot` on its own view, as the table service plays a computer
   seat (`view` counted here, since a bot needs it). Battles per second (a battle:
   a log entry of a pot taken or carried over) and the game-length distribution,
   plus any game that stalled (no seat had a move: a bug, expected 0).
5. Solo runs (Tournament, Survival): seeded runs with War's bot as the player
   (entering every table it can afford), battles per second through the run's
   public functions (its opponents' moves included), the tables each run played
   and how many it cleared.
"""
from __future__ import annotations

import random
import statistics
import sys
import time
from collections import Counter, deque
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from app.engines.contract import strip_label  # noqa: E402
from app.engines.war import cards, engine as war, game as play  # noqa: E402  play: the contract, runs too

NAMES = ["P0", "P1"]
AIM = 5.0                                  # the target: engine within 5x of the minimal loop
CLOCK_SPEEDS = "1"                         # auto-play speeds simulated for the timed matches
MINIMAL_REPEATS = 5
MODE_SEATS = {"tournament": 1, "survival": 1}   # solo runs: one player, the opponents inside the run
MODE_GAMES = 200                           # seeded games per mode and level in part 4 (fewer when fewer are asked)
RUN_MODES = ("tournament", "survival")     # solo runs (runs.py): measured in section 5


# --------------------------------------------------------------------------
# The engine, as the service's bots drive it

def play_engine(seed: int, length: str = "full_elimination", clock_rounds: int | None = None) -> dict:
    """One seeded 2-player game; returns its length, how it ended and what intervened."""
    state = play.new({"mode": "classic", "length": length}, NAMES, seed)
    rounds, shuffled, sudden = 0, False, False
    started = time.perf_counter()
    while play.result(state) is None:
        if clock_rounds is not None and rounds >= clock_rounds:
            state, entries = play.apply(state, war.SYSTEM, {"type": "time_up"})
            break
        for seat in (0, 1):
            for action in play.actions(state, seat):
                if action["type"] == "reveal":
                    state, entries = play.apply(state, seat, strip_label(action))
                    for e in entries:
                        if e["t"] == "shuffle":
                            shuffled = True
                        elif e["t"] == "sudden_death":
                            sudden = True
                    break
        rounds += 1
    elapsed = time.perf_counter() - started
    res = play.result(state)
    return {"battles": state["battle"], "reason": res["reason"], "winners": res["winners"],
            "shuffled": shuffled, "sudden": sudden, "seconds": elapsed}


def play_mode(mode: str, level: str, seed: int, max_moves: int = 200_000) -> dict:
    """One seeded game of `mode` with every seat a computer at `level` (see part 4)."""
    seats = [f"P{i}" for i in range(MODE_SEATS.get(mode, 2))]
    state = play.new({"mode": mode, "computer_level": level}, seats, seed)
    # A random.Random per seat, as the platform hands its computer seats (tables.py):
    # Power and Wager bots draw from rng.random().
    rngs = [random.Random(f"{seed}:{seat}") for seat in range(len(seats))]
    battles, moves, stalled = 0, 0, False
    started = time.perf_counter()
    while play.result(state) is None and moves < max_moves:
        moved = False
        for seat in range(len(seats)):
            offered = play.actions(state, seat)
            if not offered:
                continue
            choice = play.bot(play.view(state, seat), offered, rngs[seat])
            if choice is None:
                continue
            state, entries = play.apply(state, seat, strip_label(choice))
            battles += sum(e["t"] in ("win", "carry") for e in entries)
            moves += 1
            moved = True
        if not moved:
            stalled = True
            break
    return {"battles": battles, "seconds": time.perf_counter() - started, "stalled": stalled}


# --------------------------------------------------------------------------
# The minimal loop: the same 2-player Classic rules, written for speed

def initial_ranks(seed: int) -> tuple[list[int], list[int]]:
    """Both decks (ranks, top first) exactly as the engine's `new()` deals them."""
    s = play.new({"mode": "classic"}, NAMES, seed)
    return tuple([cards.rank_of(s["faces"][c]) for c in deck] for deck in s["decks"])


def play_minimal(d0: list[int], d1: list[int], cap: int = war.BATTLE_LIMIT) -> tuple[int | None, int, str]:
    """(winner or None, battles, how it ended). Both reveal seat 0 first, so the
    pot is built in seat order; the winner puts it at the bottom of their deck.
    A tie is a war: 3 face down and 1 face up each, unless a player holds fewer
    than 4 cards, who then commits them all and is out (both short: both out)."""
    a, b = deque(d0), deque(d1)
    battles = 0
    while battles < cap:
        battles += 1
        x, y = a.popleft(), b.popleft()
        pot = [x, y]
        while x == y:
            short_a, short_b = len(a) < 4, len(b) < 4
            if short_a or short_b:
                if short_a:
                    pot.extend(a)
                    a.clear()
                if short_b:
                    pot.extend(b)
                    b.clear()
                if short_a and short_b:
                    return None, battles, "simultaneous_elimination"
                (b if short_a else a).extend(pot)
                return (1 if short_a else 0), battles, "elimination"
            pot += (a.popleft(), a.popleft(), a.popleft())
            x = a.popleft()
            pot.append(x)
            pot += (b.popleft(), b.popleft(), b.popleft())
            y = b.popleft()
            pot.append(y)
        if x > y:
            a.extend(pot)
            if not b:
                return 0, battles, "elimination"
        else:
            b.extend(pot)
            if not a:
                return 1, battles, "elimination"
    return None, battles, "cap"


# --------------------------------------------------------------------------
# Solo runs: the player played by War's own bot (enter every table, reveal)

def play_run(kind: str, seed: int) -> dict:
    """One seeded run; every action through the engine's public functions, as a
    seat handed to the computer would play it (its opponents play inside)."""
    state = play.new({"mode": kind}, ["P0"], seed)
    rng = random.Random(seed)
    started = time.perf_counter()
    while play.result(state) is None:
        action = play.bot(play.view(state, 0), play.actions(state, 0), rng)
        state, _ = play.apply(state, 0, {k: v for k, v in action.items() if k != "label"})
    seconds = time.perf_counter() - started
    run = state["run"]
    return {"seconds": seconds, "battles": sum(h["battles_played"] for h in run["history"]),
            "tables": len(run["history"]), "cleared": run["cleared"], "reason": play.result(state)["reason"]}


def runs_section(games: int) -> None:
    print()
    print("Solo runs (Tournament, Survival): the player on War's bot, entering every table it can")
    for kind in RUN_MODES:
        played = [play_run(kind, seed) for seed in range(games)]
        seconds = sum(g["seconds"] for g in played)
        battles = sum(g["battles"] for g in played)
        tables = sorted(g["tables"] for g in played)
        cleared = Counter(g["cleared"] for g in played)
        reached = ", ".join(f"{n} cleared {cleared[n] / games:.1%}" for n in sorted(cleared))
        print(f"  {kind:<10} {games} runs in {seconds:6.2f} s  {battles / seconds:>9,.0f} battles/s  "
              f"tables per run median {statistics.median(tables):.0f} max {tables[-1]}  | {reached}")


# --------------------------------------------------------------------------
# Reporting

def distribution(name: str, games: list[dict]) -> None:
    lengths = sorted(g["battles"] for g in games)
    p90 = statistics.quantiles(lengths, n=10)[-1] if len(lengths) > 1 else lengths[0]
    sudden = sum(g["sudden"] for g in games) / len(games)
    shuffled = sum(g["shuffled"] for g in games) / len(games)
    ends = Counter(g["reason"] for g in games)
    ended = ", ".join(f"{reason} {count / len(games):.1%}" for reason, count in ends.most_common())
    print(f"  {name:<31} median {statistics.median(lengths):>6.0f}  p90 {p90:>6.0f}  max {lengths[-1]:>5}  "
          f"sudden death {sudden:6.1%}  shuffled {shuffled:5.1%}  | {ended}")


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    speeds = [int(x) for x in (sys.argv[2] if len(sys.argv) > 2 else CLOCK_SPEEDS).split(",")]
    seeds = range(games)
    print(f"War benchmark: {games} seeded 2-player games per line (seeds 0..{games - 1}), engine {war.VERSION}")

    # 1. The engine.
    played = [play_engine(seed) for seed in seeds]
    engine_battles = sum(g["battles"] for g in played)
    engine_seconds = sum(g["seconds"] for g in played)
    engine_rate = engine_battles / engine_seconds

    # 2. The minimal loop, on the same deals (dealing is not timed).
    deals = [initial_ranks(seed) for seed in seeds]
    minimal_seconds = float("inf")
    for _ in range(MINIMAL_REPEATS):   # it is quick: the best of a few runs steadies the timing
        started = time.perf_counter()
        minimal = [play_minimal(d0, d1) for d0, d1 in deals]
        minimal_seconds = min(minimal_seconds, time.perf_counter() - started)
    minimal_battles = sum(m[1] for m in minimal)
    minimal_rate = minimal_battles / minimal_seconds
    ratio = minimal_rate / engine_rate

    print()
    print("Speed, 2-player Classic, full elimination")
    print(f"  engine  (actions + apply per reveal) {engine_battles:>9,} battles in {engine_seconds:6.2f} s  "
          f"{engine_rate:>11,.0f} battles/s")
    print(f"  minimal (two deques, same rules)     {minimal_battles:>9,} battles in {minimal_seconds:6.2f} s  "
          f"{minimal_rate:>11,.0f} battles/s")
    verdict = "within" if ratio <= AIM else "NOT within"
    print(f"  engine/minimal: the engine is {ratio:.1f}x slower per battle ({verdict} the {AIM:.0f}x aim)")

    # Agreement wherever no repeat shuffle or sudden death changed the engine's game.
    plain = [i for i, g in enumerate(played) if not g["shuffled"] and not g["sudden"]]
    agree = 0
    mismatches = []
    for i in plain:
        g, (winner, battles, how) = played[i], minimal[i]
        engine_winner = g["winners"][0] if g["reason"] == "elimination" else None
        if (engine_winner, g["battles"], g["reason"]) == (winner, battles, how):
            agree += 1
        else:
            mismatches.append((i, (engine_winner, g["battles"], g["reason"]), (winner, battles, how)))
    print(f"  agreement: {agree} of {len(plain)} seeds without a shuffle or sudden death give the same winner, "
          f"battle count and ending")
    print(f"    ({games - len(plain)} seeds left out: the engine shuffled or went to sudden death there; "
          f"the minimal loop hit its {war.BATTLE_LIMIT:,}-battle cap on {sum(m[2] == 'cap' for m in minimal)})")
    for seed, e, m in mismatches[:5]:
        print(f"    seed {seed}: engine {e}, minimal {m}")

    # 3. Game lengths under every match length.
    print()
    print("Game lengths in battles, 2-player Classic (sudden death: the share that reached it; "
          "shuffled: the share with a repeat shuffle)")
    distribution("full_elimination", played)
    for length, (kind, target) in war.LENGTHS.items():
        if kind == "elimination":
            continue
        if kind != "minutes":
            distribution(length, [play_engine(seed, length) for seed in seeds])
            continue
        for speed in speeds:
            rounds = int(target * 60 / war.AUTO_DELAY[speed] + 1e-9)
            distribution(f"{length} @ speed {speed} ({rounds} rds)",
                         [play_engine(seed, length, clock_rounds=rounds) for seed in seeds])
    print(f"  timed matches: every seat on auto-play at speed S, one reveal round (battle or war stage) every "
          f"AUTO_DELAY[S] ({', '.join(f'{s}: {d} s' for s, d in war.AUTO_DELAY.items())}); "
          f"time_up fires after minutes*60/AUTO_DELAY[S] rounds")

    # 4. Every mode, computers only.
    print()
    count = min(games, MODE_GAMES)
    print(f"Every mode, computer against computer ({count} seeded games per line, full elimination "
          f"unless the mode sets its own tables)")
    for mode in war.MODES:
        for level in war.LEVELS:
            runs = [play_mode(mode, level, seed) for seed in range(count)]
            battles = sum(r["battles"] for r in runs)
            seconds = sum(r["seconds"] for r in runs)
            lengths = sorted(r["battles"] for r in runs)
            p90 = statistics.quantiles(lengths, n=10)[-1] if len(lengths) > 1 else lengths[0]
            stalled = sum(r["stalled"] for r in runs)
            print(f"  {mode:<12} {level:<9} {battles / seconds:>9,.0f} battles/s  median {statistics.median(lengths):>6.0f}"
                  f"  p90 {p90:>6.0f}  max {lengths[-1]:>5}  stalled {stalled}")

    # 5. Solo runs, the player's seat played by the bot too.
    runs_section(games)


if __name__ == "__main__":
    main()
