"""Storm War's figures for the class overview (GameSpec.figures).

`table` is {"public": the board view's public part, "players": [{seat, name,
computer, connected}], "result": result or None}.
"""
from __future__ import annotations

from ..contract import join_names


def figures(table: dict) -> dict:
    """progress = the leader's Environments of the goal; turn = who the game waits
    for; scores = Environments cleaned up; alerts = a challenge waiting on passes."""
    public = table["public"]
    players = public["players"]
    leader = max(players, key=lambda p: (len(p["claimed"]), -p["seat"]))
    env = public["environment"]
    progress = {"value": len(leader["claimed"]), "goal": public["goal"],
                "label": f"{leader['name']} has cleaned up {len(leader['claimed'])} of {public['goal']}",
                "detail": f"Now: {env['name']}" if env else ""}
    turn = None
    if public["status"] == "playing":
        waiting = [players[s]["name"] for s in public["waiting_for"]]
        ch = public["challenge"]
        text = (f"{players[ch['seat']]['name']} challenges {ch['risk'].capitalize()}: waiting for "
                f"{join_names(waiting)} to pass") if ch else f"{join_names(waiting)} is managing"
        turn = {"seats": list(public["waiting_for"]), "names": waiting, "text": text}
    scores = [{"seat": p["seat"], "score": len(p["claimed"]),
               "label": f"{len(p['claimed'])} Environment{'s' if len(p['claimed']) != 1 else ''}", "out": False}
              for p in players]
    return {"progress": progress, "turn": turn, "scores": scores, "alerts": []}
