"""War's figures for the class overview (GameSpec.figures).

`table` is {"public": the board view's public part, "players": [{seat, name,
computer, connected}], "result": result or None}.
"""
from __future__ import annotations

from .engine import join_names


def figures(table: dict) -> dict:
    """progress = the leader's cards of the deck and the battle; turn = who
    still has to reveal; scores = cards held; alerts = sudden death."""
    public = table["public"]
    players = public["players"]
    leader = max(players, key=lambda p: (p["cards"], -p["seat"]))
    total = public["deck_size"]
    progress = {"value": leader["cards"], "goal": total,
                "label": f"{leader['name']} holds {leader['cards']} of {total} cards",
                "detail": f"Battle {public['battle']}"}
    turn = None
    if public["status"] == "playing":
        waiting = [players[s]["name"] for s in public["waiting_for"]]
        turn = {"seats": list(public["waiting_for"]), "names": waiting,
                "text": f"Waiting for {join_names(waiting)} to reveal" if waiting else "Resolving the battle"}
    scores = [{"seat": p["seat"], "score": p["cards"], "label": f"{p['cards']} cards",
               "out": p["eliminated"]} for p in players]
    alerts = []
    if public.get("sudden_death"):
        alerts.append({"kind": "sudden_death", "level": "info",
                       "text": f"Sudden death: {public['sudden_death']['battles_left']} battles left"})
    return {"progress": progress, "turn": turn, "scores": scores, "alerts": alerts}
