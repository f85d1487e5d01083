"""War's section of the debrief: cards held over battles, wars, knock-outs, carried
pots, shuffles, sudden death and the clock, per-player figures and prompts.

Found by the registry as the package's `report` module (app.engines.report_hook);
GameSpec(report=...) may name it explicitly. Robust to log kinds it does not know
(power, wager and run kinds are counted by kind in the figures' last column).
"""
from __future__ import annotations

from collections import Counter

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


def report(ctx: dict) -> dict:
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
                what = "a double war" if stage == 2 else f"a war of {stage} rounds" if stage > 2 else "a war"
                moments.append({"version": v, "text": f"Battle {e.get('battle', '?')}: {what} between "
                                + " and ".join(name(s) for s in e.get("seats") or []) + "."})
        elif t == "out" and ok:
            held[seat] = 0
            points.append([v, list(held)])
            moments.append({"version": v, "text": f"Battle {e.get('battle', '?')}: {e.get('text', '')}"})
        elif t in ("carry", "shuffle", "sudden_death", "time_up", "target", "game_over"):
            moments.append({"version": v, "text": (f"Battle {e['battle']}: " if e.get("battle") else "")
                                                  + e.get("text", "")})
            if t in ("sudden_death", "shuffle", "carry"):
                other[t] += 1
        elif t and t not in KNOWN:
            other[t] += 1
    result = ctx.get("result") or {}
    scores = result.get("scores")
    if isinstance(scores, list) and len(scores) == n and all(isinstance(x, int) for x in scores):
        if points and points[-1][1] != scores and ctx.get("entries"):
            points.append([ctx["entries"][-1].get("version", 0), list(scores)])
    figures = {"columns": ["Battles won", "Wars fought", "Cards at the end"],
               "rows": [{"seat": s, "values": [stats[s]["battles_won"], stats[s]["wars"],
                                               (scores[s] if isinstance(scores, list) and s < len(scores) else held[s])]}
                        for s in range(n)]}
    battles = max((e.get("battle") or 0 for e in ctx.get("entries", []) if isinstance(e.get("battle"), int)),
                  default=0)
    wars = other["wars"]
    prompts = []
    if battles:
        prompts.append(f"The game lasted {battles} battles with about {wars} wars. Was it decided by luck, by a few "
                       "big wars, or slowly card by card?")
    if other["sudden_death"]:
        prompts.append("The game went to sudden death. Was that a fair way to decide it? What else could end a long game?")
    if other["shuffle"]:
        prompts.append(f"The decks were shuffled {other['shuffle']} time(s) because the game went round in circles. "
                       "Why can that happen in War?")
    if stats and n:
        top = max(range(n), key=lambda s: stats[s]["battles_won"])
        winners = result.get("winners") or []
        if winners and top not in winners:
            prompts.append(f"{name(top)} won the most battles but did not win the game. How can that be?")
    if other["wars"] > 1:
        moments.append({"version": points[-1][0] if points else 0,
                        "text": f"In all: {battles} battles and {other['wars']} wars."})
    extra = {k: c for k, c in other.items() if k not in ("sudden_death", "shuffle", "carry", "wars")}
    return {"series": {"label": "Cards held", "unit": "cards", "points": points}, "moments": moments,
            "figures": figures, "prompts": prompts,
            "counts": {k.replace("_", " ").capitalize(): c for k, c in other.items()}, "unknown_kinds": extra}
