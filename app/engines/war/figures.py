"""War's figures for the class overview (GameSpec.figures).

`table` is {"public": the board view's public part, "players": [{seat, name,
computer, connected}], "result": result or None}.
"""
from __future__ import annotations

from .engine import join_names


def figures(table: dict) -> dict:
    """progress = the leader's cards of the deck (of the target in a match to
    so many cards; the leader's points of the target in a points match) and the
    battle; turn = who still has to reveal; scores = cards held (points in a
    points match); alerts = sudden death."""
    public = table["public"]
    players = public["players"]
    length = public.get("length") or {"kind": "elimination"}
    if length["kind"] == "points":
        leader = max(players, key=lambda p: (p["points"], -p["seat"]))
        goal = length["target"]
        progress = {"value": leader["points"], "goal": goal,
                    "label": f"{leader['name']} has {leader['points']} of {goal} points",
                    "detail": f"Battle {public['battle']}"}
    else:
        leader = max(players, key=lambda p: (p["cards"], -p["seat"]))
        goal = length["target"] if length["kind"] == "cards" else public["deck_size"]
        progress = {"value": leader["cards"], "goal": goal,
                    "label": f"{leader['name']} holds {leader['cards']} of {goal} cards",
                    "detail": f"Battle {public['battle']}"}
    if length["kind"] == "minutes":
        progress["detail"] += f" · {length['label']} match"
    turn = None
    if public["status"] == "playing":
        waiting = [players[s]["name"] for s in public["waiting_for"]]
        turn = {"seats": list(public["waiting_for"]), "names": waiting,
                "text": f"Waiting for {join_names(waiting)} to reveal" if waiting else "Resolving the battle"}
        if public.get("powers") and waiting and (public["powers"]["phase"] == "loadout" or public["powers"]["window"]):
            turn["text"] = f"Waiting for {join_names(waiting)} to " + (
                "choose powers" if public["powers"]["phase"] == "loadout" else "counter or resolve")
    if length["kind"] == "points":
        scores = [{"seat": p["seat"], "score": p["points"], "label": f"{p['points']} points",
                   "out": p["eliminated"]} for p in players]
    else:
        scores = [{"seat": p["seat"], "score": p["cards"], "label": f"{p['cards']} cards",
                   "out": p["eliminated"]} for p in players]
    alerts = []
    if public.get("sudden_death"):
        alerts.append({"kind": "sudden_death", "level": "info",
                       "text": f"Sudden death: {public['sudden_death']['battles_left']} battles left"})
    return {"progress": progress, "turn": turn, "scores": scores, "alerts": alerts}
