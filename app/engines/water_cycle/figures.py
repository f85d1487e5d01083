"""The class overview's figures for Water Cycle Challenge (GameSpec.figures).

`table` is {"public": the board view's public part, "players": [{seat, name,
computer, connected}], "result": result or None}.
"""
from __future__ import annotations

from .engine import GOAL, join_names


def figures(table: dict) -> dict:
    """progress = the leader's trophies of 5; turn = who the game waits for;
    scores = trophies; alerts = a Crisis explanation waiting for the teacher."""
    public = table["public"]
    players = public["players"]
    leader = max(players, key=lambda p: (p["trophies"], -p["seat"]))
    progress = {"value": min(leader["trophies"], GOAL), "goal": GOAL,
                "label": f"{leader['name']} has {leader['trophies']} of {GOAL} trophies",
                "detail": f"Turn {public['turn_no']} \u00b7 Boss {public['boss']['hp']} HP"}
    turn = None
    crisis = public.get("crisis")
    if public["status"] == "playing":
        waiting = [players[s]["name"] for s in public["waiting_for"]]
        if crisis and crisis["stage"] == "review":
            text = "Waiting for you to accept or reject a Crisis answer"
        elif crisis and crisis["stage"] == "vote":
            text = f"Voting: waiting for {join_names(waiting)}"
        else:
            text = f"Waiting for {join_names(waiting)}"
        turn = {"seats": list(public["waiting_for"]), "names": waiting, "text": text}
    scores = [{"seat": p["seat"], "score": p["trophies"], "label": f"{p['trophies']} trophies", "out": False}
              for p in players]
    alerts = []
    if crisis and crisis["stage"] in ("vote", "review"):
        who = players[crisis["seat"]]["name"]
        alerts.append({"kind": "crisis_review" if crisis["stage"] == "review" else "crisis_vote",
                       "level": "attention" if crisis["stage"] == "review" else "info",
                       "text": (f"{who}'s answer to {crisis['crisis']['name']} needs your decision"
                                if crisis["stage"] == "review"
                                else f"Vote on {who}'s answer to {crisis['crisis']['name']}: "
                                     f"{crisis['up']} up, {crisis['down']} down")})
    return {"progress": progress, "turn": turn, "scores": scores, "alerts": alerts}
