"""War's figures for the class overview (GameSpec.figures).

`table` is {"public": the board view's public part, "players": [{seat, name,
computer, connected}], "result": result or None}.
"""
from __future__ import annotations

from .engine import join_names


def run_figures(table: dict) -> dict:
    """A solo run (Tournament, Survival): progress = tables cleared of the ladder,
    one line = the stage reached and the chips, and a class leader-board row
    ("standings": stage reached, chips, battles won; ranked by tables cleared,
    then chips, then battles won)."""
    public = table["public"]
    run = public["run"]
    stages = run["stages"]
    total = len(stages)
    word = run["stage_word"]
    current = stages[run["stage"]]
    complete = bool(run["result"]) and run["result"]["reason"] == "run_complete"
    if complete:
        reached = "Champion" if run["kind"] == "tournament" else "Every table cleared"
    else:
        reached = f"{word.capitalize()} {run['stage'] + 1}: {current['name']}"
        if current["state"] == "lost":
            reached = "Out at " + reached
    battles = f"{run['battles']} battle{'s' if run['battles'] != 1 else ''} won"
    progress = {"value": run["cleared"], "goal": total,
                "label": f"{run['cleared']} of {total} {word}s cleared", "detail": battles}
    turn = None
    if public["status"] == "playing":
        doing = "is playing" if run["phase"] == "match" else "is about to enter"
        turn = {"seats": [0], "names": [run["player"]], "text": f"{run['player']} {doing} {current['name']}"}
    # One short line on the table's card (a class of runs has a table per student).
    lines = [f"{reached} · {run['chips']} chips"]
    standing = {"seat": 0, "rank_key": [run["cleared"], run["chips"], run["battles"]],
                "columns": [{"label": "Stage reached", "value": reached},
                            {"label": "Chips", "value": str(run["chips"])},
                            {"label": "Battles won", "value": str(run["battles"])}]}
    return {"progress": progress, "turn": turn, "lines": lines, "alerts": [], "standings": [standing]}


def figures(table: dict) -> dict:
    """A run's figures come from `run_figures`. Otherwise: progress = the
    leader's cards of the deck (of the target in a match to so many cards; the
    leader's points of the target in a points match) and the battle; turn = who
    still has to reveal (or bet, in Wager Battle); scores = cards held (points in
    a points match), with chips in Wager Battle; alerts = sudden death."""
    public = table["public"]
    if "run" in public:
        return run_figures(table)
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
        verb = "bet" if (public.get("wager") or {}).get("betting") else "reveal"
        turn = {"seats": list(public["waiting_for"]), "names": waiting,
                "text": f"Waiting for {join_names(waiting)} to {verb}" if waiting else "Resolving the battle"}
        if public.get("powers") and waiting and (public["powers"]["phase"] == "loadout" or public["powers"]["window"]):
            turn["text"] = f"Waiting for {join_names(waiting)} to " + (
                "choose powers" if public["powers"]["phase"] == "loadout" else "counter or resolve")
    if length["kind"] == "points":
        scores = [{"seat": p["seat"], "score": p["points"], "label": f"{p['points']} points",
                   "out": p["eliminated"]} for p in players]
    else:
        scores = [{"seat": p["seat"], "score": p["cards"], "label": f"{p['cards']} cards",
                   "out": p["eliminated"]} for p in players]
    if public.get("wager"):   # Wager Battle: every player's chips next to the score
        for score in scores:
            score["label"] += f" · {public['wager']['chips'][score['seat']]} chips"
    alerts = []
    if public.get("sudden_death"):
        alerts.append({"kind": "sudden_death", "level": "info",
                       "text": f"Sudden death: {public['sudden_death']['battles_left']} battles left"})
    return {"progress": progress, "turn": turn, "scores": scores, "alerts": alerts}
