"""Wizard's section of the debrief (GameSpec.report; see contract.py): clients recruited
over time, every attack with its totals, recruits and leaders, per-player figures and
prompts from the duel. Unknown log kinds are skipped."""
from __future__ import annotations

from collections import Counter

from ..text import N_
from . import content


def _who(key) -> str:
    return content.CHARACTERS.get(key, {}).get("name", str(key).replace("_", " ").title())


def _spell(number) -> str:
    spell = content.SPELLS.get(number, {})
    return spell.get("title") or spell.get("name") or (N_("spell {number}").format(number=number) if number is not None
                                                       else N_("a spell"))


def report(ctx: dict) -> dict:
    names = list(ctx.get("names") or [])
    n = len(names)
    name = lambda s: names[s] if isinstance(s, int) and 0 <= s < n else N_("A wizard")  # noqa: E731
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
            fields = {"name": name(seat), "attack": e.get("attack", "?"), "defense": e.get("defense", "?")}
            if e.get("target"):
                text = (N_("{name} attacked {villager} with {attack} against {defense}: the attack succeeded.")
                        if e.get("success") else
                        N_("{name} attacked {villager} with {attack} against {defense}: it failed."))
                fields["villager"] = _who(e["target"])
            else:
                text = (N_("{name} attacked with {attack} against {defense}: the attack succeeded.") if e.get("success")
                        else N_("{name} attacked with {attack} against {defense}: it failed."))
            moments.append({"version": v, "text": text.format(**fields)})
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
            moments.append({"version": v, "text": e.get("text", N_("The duel ended."))})
    scores = (ctx.get("result") or {}).get("scores") or []
    willpower = lambda s: scores[s] if s < len(scores) else "—"  # noqa: E731 - only known at the end
    figures = {"columns": [N_("Clients recruited"), N_("Spells cast"), N_("Attacks"), N_("Attacks that succeeded"),
                           N_("Counterspells"), N_("Willpower at the end")],
               "rows": [{"seat": s, "values": [clients[s], stats[s]["spells"], stats[s]["attacks"], stats[s]["won"],
                                               stats[s]["counterspells"], willpower(s)]} for s in range(n)]}
    prompts = []
    attacks = sum(stats[s]["attacks"] for s in range(n))
    if attacks:
        won = sum(stats[s]["won"] for s in range(n))
        prompts.append(N_("{won} of {attacks} attacks succeeded. The spells were real ancient Egyptian texts: "
                          "what did people hope they would do?").format(won=won, attacks=attacks))
    if any(stats[s]["counterspells"] for s in range(n)):
        prompts.append(N_("Counterspells changed some duels. Why would people write a spell against another spell?"))
    # The result's scores are each wizard's willpower: the standings say so.
    return {"series": {"label": N_("Clients recruited"), "unit": N_("clients"), "points": points},
            "moments": moments, "figures": figures, "prompts": prompts, "score_label": N_("Willpower")}
