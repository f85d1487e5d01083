"""Wizard's section of the debrief (GameSpec.report; see contract.py): clients recruited
over time, every attack with its totals, recruits and leaders, per-player figures and
prompts from the duel. Unknown log kinds are skipped."""
from __future__ import annotations

from collections import Counter

from . import content


def _who(key) -> str:
    return content.CHARACTERS.get(key, {}).get("name", str(key).replace("_", " ").title())


def _spell(number) -> str:
    spell = content.SPELLS.get(number, {})
    return spell.get("title") or spell.get("name") or (f"spell {number}" if number is not None else "a spell")


def report(ctx: dict) -> dict:
    names = list(ctx.get("names") or [])
    n = len(names)
    name = lambda s: names[s] if isinstance(s, int) and 0 <= s < n else "A wizard"  # noqa: E731
    clients = [0] * n
    points = [[0, [0] * n]] if n else []
    moments, stats = [], {s: Counter() for s in range(n)}
    for e in ctx.get("entries", []):
        t, seat, v = e.get("t"), e.get("seat"), e.get("version", 0)
        ok = isinstance(seat, int) and 0 <= seat < n
        if t == "leaders":
            moments.append({"version": v, "text": e.get("text", "")})
        elif t == "attack" and ok:
            stats[seat]["attacks"] += 1
            if e.get("success"):
                stats[seat]["won"] += 1
            target = f" {_who(e['target'])}" if e.get("target") else ""
            moments.append({"version": v, "text": f"{name(seat)} attacked{target} with {e.get('attack', '?')} "
                                                  f"against {e.get('defense', '?')}: "
                                                  + ("the attack succeeded." if e.get("success") else "it failed.")})
        elif t == "defend" and ok:
            stats[seat]["counterspells"] += 1
        elif t == "cast" and ok:
            stats[seat]["spells"] += 1
        elif t == "recruit" and ok:
            clients[seat] += 1
            stats[seat]["recruits"] += 1
            moments.append({"version": v, "text": e.get("text", "")})
            points.append([v, list(clients)])
        elif t == "returned" and ok:
            moments.append({"version": v, "text": e.get("text", "")})
        elif t == "game_over":
            moments.append({"version": v, "text": e.get("text", "The duel ended.")})
    scores = (ctx.get("result") or {}).get("scores") or []
    willpower = lambda s: scores[s] if s < len(scores) else "—"  # noqa: E731 - only known at the end
    figures = {"columns": ["Clients recruited", "Spells cast", "Attacks", "Attacks that succeeded", "Counterspells",
                           "Willpower at the end"],
               "rows": [{"seat": s, "values": [clients[s], stats[s]["spells"], stats[s]["attacks"], stats[s]["won"],
                                               stats[s]["counterspells"], willpower(s)]} for s in range(n)]}
    prompts = []
    attacks = sum(stats[s]["attacks"] for s in range(n))
    if attacks:
        won = sum(stats[s]["won"] for s in range(n))
        prompts.append(f"{won} of {attacks} attacks succeeded. The spells were real ancient Egyptian texts: "
                       "what did people hope they would do?")
    if any(stats[s]["counterspells"] for s in range(n)):
        prompts.append("Counterspells changed some duels. Why would people write a spell against another spell?")
    return {"series": {"label": "Clients recruited", "unit": "clients", "points": points},
            "moments": moments, "figures": figures, "prompts": prompts}
