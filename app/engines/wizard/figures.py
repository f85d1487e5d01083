"""The Wizard duel's figures for the class overview and board (GameSpec.figures):
the leaders, each wizard's client willpower against 23 and the last dice roll
(`lines`, shown on every match's card of the class board and overview)."""
from __future__ import annotations

from ..text import N_, NP_


def _waiting_text(names: list[str]) -> str:
    if not names:
        return N_("Waiting")
    if len(names) == 1:
        return N_("Waiting for {name}").format(name=names[0])
    return N_("Waiting for {name} and {other}").format(name=names[0], other=names[1])


def figures(table: dict) -> dict:
    public = table["public"]
    wizards = public["wizards"]
    leaders = {c["leader_of"]: c["name"] for c in public["village"] if c["leader_of"] is not None}
    best = max(wizards, key=lambda w: (w["willpower"], -w["seat"]))
    progress = {"value": min(best["willpower"], public["goal"]), "goal": public["goal"],
                "label": N_("{name} has {willpower} of {goal} willpower").format(
                    name=best["name"], willpower=best["willpower"], goal=public["goal"]),
                "detail": N_("Round {round}").format(round=public["round"])}
    turn = None
    if public["status"] == "playing":
        names = [wizards[s]["name"] for s in public["waiting_for"]]
        turn = {"seats": list(public["waiting_for"]), "names": names, "text": _waiting_text(names)}
    scores = [{"seat": w["seat"], "score": w["willpower"],
               "label": (N_("{willpower} willpower \u00b7 leader {leader}").format(willpower=w["willpower"],
                                                                               leader=leaders[w["seat"]])
                         if w["seat"] in leaders else N_("{willpower} willpower").format(willpower=w["willpower"])),
               "out": False}
              for w in wizards]
    alerts = []
    roll = public.get("last_roll")
    if roll and roll["kind"] == "attack":
        alerts.append({"kind": "dice", "level": "info",
                       "text": (N_("Last roll: {attack} against {defense} (success)") if roll["success"]
                                else N_("Last roll: {attack} against {defense} (no effect)")).format(
                                    attack=roll["attack"], defense=roll["defense"])})
    return {"progress": progress, "turn": turn, "scores": scores, "alerts": alerts, "lines": lines(public)}


def lines(public: dict) -> list[str]:
    """One line per wizard (their original leader and their clients' willpower) and the
    last dice roll of the match (the attack just resolved, else the last initiative)."""
    village = {c["id"]: c for c in public["village"]}
    original = {c["leader_of"]: c["name"] for c in public["village"] if c["leader_of"] is not None}
    out = []
    for w in public["wizards"]:
        n = w["clients"]
        if w["seat"] in original:
            text = NP_("{name} (leader {leader}): {willpower} willpower in {n} client",
                       "{name} (leader {leader}): {willpower} willpower in {n} clients", n)
        else:
            text = NP_("{name}: {willpower} willpower in {n} client", "{name}: {willpower} willpower in {n} clients", n)
        out.append(text.format(name=w["name"], leader=original.get(w["seat"]), willpower=w["willpower"], n=n))
    roll = public.get("last_roll")
    if roll and roll["kind"] == "attack":
        who = village.get(roll["target"], {}).get("name", N_("a villager"))
        out.append((N_("Last roll: {name} {attack} against {villager} {defense} (success)") if roll["success"]
                    else N_("Last roll: {name} {attack} against {villager} {defense} (no effect)")).format(
                        name=public["names"][roll["seat"]], attack=roll["attack"], villager=who,
                        defense=roll["defense"]))
    elif public.get("initiative"):
        totals = public["initiative"]["totals"]
        out.append(N_("Last roll: initiative {name} {total}, {other} {other_total}").format(
            name=public["names"][0], total=totals[0], other=public["names"][1], other_total=totals[1]))
    return out
