"""War's figures for the class overview (GameSpec.figures).

`table` is {"public": the board view's public part, "players": [{seat, name,
computer, connected}], "result": result or None}.
"""
from __future__ import annotations

from ..contract import join_names
from ..text import N_, NP_


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
        reached = N_("Champion") if run["kind"] == "tournament" else N_("Every table cleared")
    else:
        reached = (N_("Stage {n}: {name}") if word == "stage" else N_("Table {n}: {name}")).format(
            n=run["stage"] + 1, name=current["name"])
        if current["state"] == "lost":
            reached = N_("Out at {table}").format(table=reached)
    battles = NP_("{n} battle won", "{n} battles won", run["battles"]).format(n=run["battles"])
    cleared = N_("{n} of {total} stages cleared") if word == "stage" else N_("{n} of {total} tables cleared")
    progress = {"value": run["cleared"], "goal": total,
                "label": cleared.format(n=run["cleared"], total=total), "detail": battles}
    turn = None
    if public["status"] == "playing":
        doing = N_("{name} is playing {table}") if run["phase"] == "match" else N_("{name} is about to enter {table}")
        turn = {"seats": [0], "names": [run["player"]], "text": doing.format(name=run["player"], table=current["name"])}
    # One short line on the table's card (a class of runs has a table per student).
    lines = [N_("{reached} · {n} chips").format(reached=reached, n=run["chips"])]
    standing = {"seat": 0, "rank_key": [run["cleared"], run["chips"], run["battles"]],
                "columns": [{"label": N_("Stage reached"), "value": reached},
                            {"label": N_("Chips"), "value": str(run["chips"])},
                            {"label": N_("Battles won"), "value": str(run["battles"])}]}
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
                    "label": N_("{name} has {n} of {total} points").format(
                        name=leader["name"], n=leader["points"], total=goal),
                    "detail": N_("Battle {battle}").format(battle=public["battle"])}
    else:
        leader = max(players, key=lambda p: (p["cards"], -p["seat"]))
        goal = length["target"] if length["kind"] == "cards" else public["deck_size"]
        progress = {"value": leader["cards"], "goal": goal,
                    "label": N_("{name} holds {n} of {total} cards").format(
                        name=leader["name"], n=leader["cards"], total=goal),
                    "detail": N_("Battle {battle}").format(battle=public["battle"])}
    if length["kind"] == "minutes":
        progress["detail"] = N_("Battle {battle} · {length} match").format(
            battle=public["battle"], length=length["label"])
    turn = None
    if public["status"] == "playing":
        waiting = [players[s]["name"] for s in public["waiting_for"]]
        betting = (public.get("wager") or {}).get("betting")
        text = N_("Waiting for {names} to bet") if betting else N_("Waiting for {names} to reveal")
        if public.get("powers") and waiting and (public["powers"]["phase"] == "loadout" or public["powers"]["window"]):
            text = (N_("Waiting for {names} to choose powers") if public["powers"]["phase"] == "loadout"
                    else N_("Waiting for {names} to counter or resolve"))
        turn = {"seats": list(public["waiting_for"]), "names": waiting,
                "text": text.format(names=join_names(waiting)) if waiting else N_("Resolving the battle")}
    if length["kind"] == "points":
        scores = [{"seat": p["seat"], "score": p["points"], "label": N_("{n} points").format(n=p["points"]),
                   "out": p["eliminated"]} for p in players]
    else:
        scores = [{"seat": p["seat"], "score": p["cards"], "label": N_("{n} cards").format(n=p["cards"]),
                   "out": p["eliminated"]} for p in players]
    if public.get("wager"):   # Wager Battle: every player's chips next to the score
        for score in scores:
            template = (N_("{n} points · {chips} chips") if length["kind"] == "points"
                        else N_("{n} cards · {chips} chips"))
            score["label"] = template.format(n=score["score"], chips=public["wager"]["chips"][score["seat"]])
    alerts = []
    if public.get("sudden_death"):
        alerts.append({"kind": "sudden_death", "level": "info",
                       "text": N_("Sudden death: {n} battles left").format(n=public["sudden_death"]["battles_left"])})
    return {"progress": progress, "turn": turn, "scores": scores, "alerts": alerts}
