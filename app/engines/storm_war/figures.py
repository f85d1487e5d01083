"""Storm War's figures for the class overview (GameSpec.figures).

`table` is {"public": the board view's public part, "players": [{seat, name,
computer, connected}], "result": result or None}.
"""
from __future__ import annotations

from ..contract import join_names
from ..text import N_, NP_
from .cards import RISK_LABEL


def figures(table: dict) -> dict:
    """progress = the leader's Environments of the goal; turn = who the game waits
    for; scores = Environments cleaned up; alerts = a challenge waiting on passes."""
    public = table["public"]
    players = public["players"]
    leader = max(players, key=lambda p: (len(p["claimed"]), -p["seat"]))
    env = public["environment"]
    progress = {"value": len(leader["claimed"]), "goal": public["goal"],
                "label": N_("{name} has cleaned up {n} of {goal}").format(
                    name=leader["name"], n=len(leader["claimed"]), goal=public["goal"]),
                "detail": N_("Now: {environment}").format(environment=env["name"]) if env else ""}
    turn = None
    if public["status"] == "playing":
        waiting = [players[s]["name"] for s in public["waiting_for"]]
        ch = public["challenge"]
        text = (N_("{name} challenges {risk}: waiting for {names} to pass").format(
            name=players[ch["seat"]]["name"], risk=RISK_LABEL[ch["risk"]], names=join_names(waiting))
                if ch else N_("{names} is managing").format(names=join_names(waiting)))
        turn = {"seats": list(public["waiting_for"]), "names": waiting, "text": text}
    scores = [{"seat": p["seat"], "score": len(p["claimed"]),
               "label": NP_("{n} Environment", "{n} Environments", len(p["claimed"])).format(n=len(p["claimed"])),
               "out": False}
              for p in players]
    return {"progress": progress, "turn": turn, "scores": scores, "alerts": []}
