"""The class overview's figures for Water Cycle Challenge (GameSpec.figures).

`table` is {"public": the board view's public part, "players": [{seat, name,
computer, connected}], "result": result or None} and, on the teacher's overview
while the game waits on the teacher, "facilitator": the facilitator view's public
part (its Crisis explanation is shown even when hidden from the board).
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
    return {"progress": progress, "turn": turn, "scores": scores, "alerts": alerts,
            "queue": queue(table.get("facilitator"))}


MODE_TEXT = {"players": "the players' vote decides", "confirm": "the players vote, then you confirm",
             "teacher": "you decide"}


def queue(teacher: dict | None) -> list[dict]:
    """The moderation queue's details of a Crisis answer waiting on the teacher, from
    the FACILITATOR view: the Crisis, the explanation (even when hidden from the
    board), the cards spent and the live tally. Never shown on the class board."""
    crisis = (teacher or {}).get("crisis")
    if not crisis or crisis["stage"] not in ("vote", "review"):
        return []
    players = teacher["players"]
    who = players[crisis["seat"]]["name"]
    legend = teacher.get("legend", {})
    names = [legend.get(kind, {}).get("name", kind) for kind in crisis["cards"]]
    voted = len(crisis["voted"])
    voters = len(crisis["voters"])
    if crisis["stage"] == "vote":
        tally = f"{crisis['up']} up, {crisis['down']} down ({voted} of {voters} voted so far)"
    else:
        outcome = {True: "passed", False: "failed"}.get(crisis.get("vote_passed"))
        tally = (f"{crisis['up']} up, {crisis['down']} down: the vote {outcome}" if outcome
                 else f"{crisis['up']} up, {crisis['down']} down")
    explained = f"{who}'s explanation" + (" (hidden from the board and the other phones)" if crisis["hidden"] else "")
    return [
        {"title": f"Crisis: {crisis['crisis']['name']}", "detail": crisis["crisis"].get("scenario", ""), "quote": None},
        {"title": explained, "detail": "", "quote": crisis["explanation"] or ""},
        {"title": "Cards spent", "detail": ", ".join(names) if names else "none", "quote": None},
        {"title": "Vote", "detail": f"{tally} · {MODE_TEXT.get(crisis['mode'], crisis['mode'])}",
         "quote": None},
    ]
