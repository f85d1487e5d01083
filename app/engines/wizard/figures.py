"""The Wizard duel's figures for the class overview and board (GameSpec.figures):
the leaders, each wizard's client willpower against 23 and the last dice roll
(`lines`, shown on every match's card of the class board and overview)."""
from __future__ import annotations


def figures(table: dict) -> dict:
    public = table["public"]
    wizards = public["wizards"]
    leaders = {c["leader_of"]: c["name"] for c in public["village"] if c["leader_of"] is not None}
    best = max(wizards, key=lambda w: (w["willpower"], -w["seat"]))
    progress = {"value": min(best["willpower"], public["goal"]), "goal": public["goal"],
                "label": f"{best['name']} has {best['willpower']} of {public['goal']} willpower",
                "detail": f"Round {public['round']}"}
    turn = None
    if public["status"] == "playing":
        names = [wizards[s]["name"] for s in public["waiting_for"]]
        turn = {"seats": list(public["waiting_for"]), "names": names,
                "text": f"Waiting for {' and '.join(names)}" if names else "Waiting"}
    scores = [{"seat": w["seat"], "score": w["willpower"],
               "label": f"{w['willpower']} willpower" + (f" \u00b7 leader {leaders[w['seat']]}"
                                                         if w["seat"] in leaders else ""), "out": False}
              for w in wizards]
    alerts = []
    roll = public.get("last_roll")
    if roll and roll["kind"] == "attack":
        alerts.append({"kind": "dice", "level": "info",
                       "text": f"Last roll: {roll['attack']} against {roll['defense']} "
                               f"({'success' if roll['success'] else 'no effect'})"})
    return {"progress": progress, "turn": turn, "scores": scores, "alerts": alerts, "lines": lines(public)}


def lines(public: dict) -> list[str]:
    """One line per wizard (their original leader and their clients' willpower) and the
    last dice roll of the match (the attack just resolved, else the last initiative)."""
    village = {c["id"]: c for c in public["village"]}
    original = {c["leader_of"]: c["name"] for c in public["village"] if c["leader_of"] is not None}
    out = []
    for w in public["wizards"]:
        leader = f" (leader {original[w['seat']]})" if w["seat"] in original else ""
        out.append(f"{w['name']}{leader}: {w['willpower']} willpower in {w['clients']} "
                   f"client{'s' if w['clients'] != 1 else ''}")
    roll = public.get("last_roll")
    if roll and roll["kind"] == "attack":
        who = village.get(roll["target"], {}).get("name", "a villager")
        out.append(f"Last roll: {public['names'][roll['seat']]} {roll['attack']} against {who} {roll['defense']} "
                   f"({'success' if roll['success'] else 'no effect'})")
    elif public.get("initiative"):
        totals = public["initiative"]["totals"]
        out.append(f"Last roll: initiative {public['names'][0]} {totals[0]}, {public['names'][1]} {totals[1]}")
    return out
