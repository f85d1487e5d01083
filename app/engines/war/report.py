"""War's section of the debrief: cards held over battles (chips in a Wager Battle),
wars, knock-outs, carried pots, shuffles, sudden death and the clock, the powers
each player used in Power War, per-player figures and prompts.

Found by the registry as the package's `report` module (app.engines.report_hook);
GameSpec(report=...) may name it explicitly. Robust to log kinds it does not know
(power, wager and run kinds are counted by kind in the figures' last column).
"""
from __future__ import annotations

from collections import Counter

from .engine import LENGTHS
from .powers import POWERS
from .wager import ANTE
from ..text import N_, NP_

KNOWN = {"reveal", "win", "war", "tie", "out", "carry", "shuffle", "sudden_death", "time_up", "target",
         "game_over", "autoplay", "ruling", "start", "end", "kick", "pause", "resume", "lock", "unlock", "move",
         "join", "leave", "computer", "moved"}


def _start_counts(ctx: dict, n: int) -> list[int]:
    state = ctx.get("state") or {}
    decks = state.get("decks") if isinstance(state, dict) else None
    if isinstance(decks, list) and len(decks) == n:
        total = sum(len(d) for d in decks if isinstance(d, list)) + len(state.get("pot") or [])
    else:
        total = 52
    total = total or 52
    return [total // n + (1 if s < total % n else 0) for s in range(n)] if n else []


def _options(ctx: dict) -> dict:
    state = ctx.get("state")
    options = state.get("options") if isinstance(state, dict) else None
    return options if isinstance(options, dict) else {}


def _chips(ctx: dict, n: int) -> tuple[dict, list[str]]:
    """A Wager Battle's chips per seat over the game, rebuilt from the public log:
    antes, calls and raises paid in, chip pots taken, a bankrupt player's last chips.
    Returns the series and the prompts it suggests."""
    bankroll = _options(ctx).get("bankroll", 100)
    bankroll = bankroll if isinstance(bankroll, int) else 100
    # The first battle's ante is paid as the cards are dealt, before any log line.
    chips = [bankroll - ANTE if bankroll >= ANTE else bankroll] * n
    points, raises, folds, last_battle = [[0, list(chips)]], Counter(), Counter(), None
    for e in ctx.get("entries", []):
        t, seat, amount = e.get("t"), e.get("seat"), e.get("amount")
        amount = amount if isinstance(amount, int) else 0
        ok = isinstance(seat, int) and 0 <= seat < n
        if t == "ante":
            for s in e.get("seats") or []:
                if isinstance(s, int) and 0 <= s < n:
                    chips[s] = max(0, chips[s] - amount)
        elif t == "bet" and ok and e.get("move") in ("call", "raise"):
            chips[seat] = max(0, chips[seat] - amount)
            raises[seat] += e.get("move") == "raise"
        elif t == "bet" and ok and e.get("move") == "fold":
            folds[seat] += 1
        elif t == "chips" and ok:
            chips[seat] += amount
            if e.get("battle") != last_battle:
                last_battle = e.get("battle")
                points.append([e.get("version", 0), list(chips)])
        elif t == "out" and ok and (e.get("bankrupt") or "bankrupt" in (e.get("text") or "")):
            chips[seat] = 0
    result = ctx.get("result") or {}
    scores = result.get("scores")
    if isinstance(scores, list) and len(scores) == n and ctx.get("entries") and points[-1][1] != scores:
        points.append([ctx["entries"][-1].get("version", 0), list(scores)])
    prompts = []
    if sum(raises.values()):
        prompts.append(N_("Some players raised during wars. When was raising worth the risk, and what did a raise "
                          "tell the others about the raiser's cards? (Remember: the chips are pretend.)"))
    if sum(folds.values()):
        prompts.append(N_("Folding gives up the cards already in the pot. When is it wiser to fold than to call?"))
    return {"label": N_("Chips"), "unit": "chips", "points": points}, prompts


def _powers(ctx: dict, n: int) -> tuple[list[str], list[str]]:
    """Power War: each player's resolved powers (named, most used first) and prompts."""
    used = {s: Counter() for s in range(n)}
    canceled = 0
    for e in ctx.get("entries", []):
        if e.get("t") != "power" or "visible_to" in e:
            continue
        if e.get("power") == "counter" and "aim" in e:
            canceled += 1
        for item in e.get("used") or []:
            if isinstance(item, dict) and isinstance(item.get("seat"), int) and 0 <= item["seat"] < n:
                pid = item.get("power")
                used[item["seat"]][(POWERS.get(pid) or {}).get("name", str(pid))] += 1
    cells = [", ".join(f"{name} ×{count}" if count > 1 else name for name, count in used[s].most_common(3))
             or N_("none") for s in range(n)]
    prompts = []
    if any(used[s] for s in range(n)):
        prompts.append(N_("Which power made the biggest difference in our game? Was it the power itself or the "
                          "moment it was used?"))
    if canceled:
        prompts.append(N_("A Counter cancelled a power. How did knowing that Counters exist change the way people "
                          "used their energy?"))
    return cells, prompts


def _run_report(ctx: dict, run: dict) -> dict:
    """A Tournament or Survival run: the tables cleared over the run, each table's
    entry and result as key moments, and the run's own figures."""
    name = (ctx.get("names") or ["The player"])[0]
    cleared, points, moments, lost = 0, [[0, [0]]], [], 0
    for e in ctx.get("entries", []):
        t, v = e.get("t"), e.get("version", 0)
        if t in ("run_enter", "run_won", "run_lost"):
            moments.append({"version": v, "text": e.get("text", "")})
        if t == "run_won":
            cleared += 1
            points.append([v, [cleared]])
        elif t == "run_lost":
            lost += 1
    chips, battles = run.get("chips", 0), run.get("battles", 0)
    figures = {"columns": [N_("Tables cleared"), N_("Chips at the end"), N_("Battles won")],
               "rows": [{"seat": 0, "values": [run.get("cleared", cleared), chips, battles]}]}
    prompts = [N_("{name} cleared {n} table(s). Which table was hardest, and was it the "
                  "opponents, the luck of the deal or the rules of that table?").format(
                      name=name, n=run.get("cleared", cleared))]
    if lost:
        prompts.append(N_("A lost table cost chips or ended the run. Would you have stopped earlier to keep your "
                          "chips? Why or why not?"))
    return {"series": {"label": N_("Tables cleared"), "unit": "tables", "points": points}, "moments": moments,
            "figures": figures, "prompts": prompts, "counts": {N_("Tables lost"): lost}, "unknown_kinds": {}}


def report(ctx: dict) -> dict:
    state = ctx.get("state")
    if isinstance(state, dict) and isinstance(state.get("run"), dict):
        return _run_report(ctx, state["run"])
    names = list(ctx.get("names") or [])
    n = len(names)
    name = lambda s: names[s] if isinstance(s, int) and 0 <= s < n else "A player"  # noqa: E731
    held = _start_counts(ctx, n)
    points = [[0, list(held)]] if n else []
    moments, stats, other = [], {s: Counter() for s in range(n)}, Counter()
    last_battle = None
    for e in ctx.get("entries", []):
        t, v = e.get("t"), e.get("version", 0)
        seat = e.get("seat")
        ok = isinstance(seat, int) and 0 <= seat < n
        if t == "win" and ok:
            for card in e.get("cards") or []:
                owner = card.get("seat") if isinstance(card, dict) else None
                if isinstance(owner, int) and 0 <= owner < n:
                    held[owner] = max(0, held[owner] - 1)
            held[seat] += int(e.get("count") or len(e.get("cards") or []))
            stats[seat]["battles_won"] += 1
            if e.get("battle") != last_battle:
                last_battle = e.get("battle")
                points.append([v, list(held)])
        elif t == "war":
            for s in e.get("seats") or []:
                if isinstance(s, int) and 0 <= s < n:
                    stats[s]["wars"] += 1
            other["wars"] += 1
            stage = e.get("stage") if isinstance(e.get("stage"), int) else 1
            # Every war would flood the page: the first one, double wars and wars of three or more.
            if other["wars"] == 1 or stage >= 2 or len(e.get("seats") or []) > 2:
                template = (N_("Battle {battle}: a double war between {names}.") if stage == 2 else
                            N_("Battle {battle}: a war of {n} rounds between {names}.") if stage > 2 else
                            N_("Battle {battle}: a war between {names}."))
                moments.append({"version": v, "text": template.format(
                    battle=e.get("battle", "?"), n=stage, names=" and ".join(name(s) for s in e.get("seats") or []))})
        elif t == "out" and ok:
            held[seat] = 0
            points.append([v, list(held)])
            moments.append({"version": v, "text": N_("Battle {battle}: {text}").format(
                battle=e.get("battle", "?"), text=e.get("text", ""))})
        elif t in ("carry", "shuffle", "sudden_death", "time_up", "target", "game_over"):
            moments.append({"version": v, "text": N_("Battle {battle}: {text}").format(
                battle=e["battle"], text=e.get("text", "")) if e.get("battle") else e.get("text", "")})
            if t in ("sudden_death", "shuffle", "carry"):
                other[t] += 1
        elif t and t not in KNOWN:
            other[t] += 1
    result = ctx.get("result") or {}
    scores = result.get("scores")
    chip_scores = _options(ctx).get("mode") in ("wager", "power_wager")
    if isinstance(scores, list) and len(scores) == n and all(isinstance(x, int) for x in scores) and not chip_scores:
        if points and points[-1][1] != scores and ctx.get("entries"):
            points.append([ctx["entries"][-1].get("version", 0), list(scores)])
    figures = {"columns": [N_("Battles won"), N_("Wars fought"), N_("Cards at the end")],
               "rows": [{"seat": s, "values": [stats[s]["battles_won"], stats[s]["wars"],
                                               (scores[s] if isinstance(scores, list) and s < len(scores) else held[s])]}
                        for s in range(n)]}
    battles = max((e.get("battle") or 0 for e in ctx.get("entries", []) if isinstance(e.get("battle"), int)),
                  default=0)
    wars = other["wars"]
    prompts = []
    if battles:
        prompts.append(N_("The game lasted {battles} battles with about {wars} wars. Was it decided by luck, by a "
                          "few big wars, or slowly card by card?").format(battles=battles, wars=wars))
    if other["sudden_death"]:
        prompts.append(N_("The game went to sudden death. Was that a fair way to decide it? What else could end a "
                          "long game?"))
    if other["shuffle"]:
        prompts.append(N_("The decks were shuffled {n} time(s) because the game went round in circles. "
                          "Why can that happen in War?").format(n=other["shuffle"]))
    if stats and n:
        most = max(stats[s]["battles_won"] for s in range(n))
        tops = [s for s in range(n) if stats[s]["battles_won"] == most]
        winners = result.get("winners") or []
        # Only a clear leader in battles "won the most"; a tie is said as one.
        if winners and most and len(tops) == 1 and tops[0] not in winners:
            prompts.append(N_("{name} won the most battles but did not win the game. How can that be?").format(
                name=name(tops[0])))
        elif winners and most and len(tops) > 1 and not set(tops) & set(winners):
            prompts.append(N_("{names} each won {n} battles, more than anyone, yet neither won the game. "
                              "How can that be?").format(names=" and ".join(name(s) for s in tops), n=most))
    if other["wars"] > 1:
        moments.append({"version": points[-1][0] if points else 0,
                        "text": N_("In all: {battles} battles and {wars} wars.").format(
                            battles=battles, wars=other["wars"])})
    extra = {k: c for k, c in other.items() if k not in ("sudden_death", "shuffle", "carry", "wars")}
    series = {"label": N_("Cards held"), "unit": "cards", "points": points}
    mode = _options(ctx).get("mode")
    if mode in ("wager", "power_wager") and n:
        # The result's scores are chips: the cards column shows the cards the race reached.
        series, more = _chips(ctx, n)
        prompts += more
        figures["columns"] = [N_("Battles won"), N_("Wars fought"), N_("Chips at the end")]
    if mode in ("power", "power_wager") and n:
        cells, more = _powers(ctx, n)
        prompts += more
        figures["columns"].append(N_("Powers used"))
        for row, cell in zip(figures["rows"], cells):
            row["values"].append(cell)
    return {"series": series, "moments": moments,
            "figures": figures, "prompts": prompts, **_standing_columns(ctx, n),
            "counts": {k.replace("_", " ").capitalize(): c for k, c in other.items()}, "unknown_kinds": extra}


def _standing_columns(ctx: dict, n: int) -> dict:
    """What the places were decided by, and what the result's scores are. In a wager the
    scores are chips while cards or points decide the places: the standings show both,
    so a player is never placed above a bigger score without the reason beside it."""
    state = ctx.get("state") if isinstance(ctx.get("state"), dict) else {}
    kind = LENGTHS.get(_options(ctx).get("length"), ("cards", 0))[0]
    if kind == "points" and isinstance(state.get("points"), list) and len(state["points"]) == n:
        decided = {"label": N_("Points"), "values": list(state["points"])}
    elif isinstance(state.get("decks"), list) and len(state["decks"]) == n:
        decided = {"label": N_("Cards"), "values": [len(d) if isinstance(d, list) else 0 for d in state["decks"]]}
    else:
        decided = None
    if _options(ctx).get("mode") in ("wager", "power_wager"):
        return {"score_label": N_("Chips"), **({"decided_by": decided} if decided else {})}
    return {"score_label": N_("Points") if kind == "points" else N_("Cards")}
