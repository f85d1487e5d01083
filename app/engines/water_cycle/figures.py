"""The class overview's figures for Water Cycle Challenge (GameSpec.figures).

`table` is {"public": the board view's public part, "players": [{seat, name,
computer, connected}], "result": result or None} and, on the teacher's overview
while the game waits on the teacher, "facilitator": the facilitator view's public
part (its Crisis explanation is shown even when hidden from the board).
"""
from __future__ import annotations

from ..text import N_, NP_
from .engine import GOAL, join_names


def figures(table: dict) -> dict:
    """progress = the leader's trophies of 5; turn = who the game waits for;
    scores = trophies; alerts = a Crisis explanation waiting for the teacher."""
    public = table["public"]
    players = public["players"]
    leader = max(players, key=lambda p: (p["trophies"], -p["seat"]))
    progress = {"value": min(leader["trophies"], GOAL), "goal": GOAL,
                "label": NP_("{name} has {n} of {goal} trophy", "{name} has {n} of {goal} trophies", GOAL).format(
                    name=leader["name"], n=leader["trophies"], goal=GOAL),
                "detail": N_("Turn {turn} \u00b7 Boss {hp} HP").format(turn=public["turn_no"], hp=public["boss"]["hp"])}
    turn = None
    crisis = public.get("crisis")
    if public["status"] == "playing":
        waiting = [players[s]["name"] for s in public["waiting_for"]]
        if crisis and crisis["stage"] == "review":
            text = N_("Waiting for you to accept or reject a Crisis answer")
        elif crisis and crisis["stage"] == "vote":
            text = N_("Voting: waiting for {names}").format(names=join_names(waiting))
        else:
            text = N_("Waiting for {names}").format(names=join_names(waiting))
        turn = {"seats": list(public["waiting_for"]), "names": waiting, "text": text}
    scores = [{"seat": p["seat"], "score": p["trophies"], "out": False,
               "label": NP_("{n} trophy", "{n} trophies", p["trophies"]).format(n=p["trophies"])}
              for p in players]
    alerts = []
    if crisis and crisis["stage"] in ("vote", "review"):
        who = players[crisis["seat"]]["name"]
        alerts.append({"kind": "crisis_review" if crisis["stage"] == "review" else "crisis_vote",
                       "level": "attention" if crisis["stage"] == "review" else "info",
                       "text": (N_("{name}'s answer to {crisis} needs your decision").format(
                                    name=who, crisis=crisis["crisis"]["name"])
                                if crisis["stage"] == "review"
                                else N_("Vote on {name}'s answer to {crisis}: {up} up, {down} down").format(
                                    name=who, crisis=crisis["crisis"]["name"], up=crisis["up"],
                                    down=crisis["down"]))})
    return {"progress": progress, "turn": turn, "scores": scores, "alerts": alerts,
            "queue": queue(table.get("facilitator"))}


MODE_TEXT = {"players": N_("the players' vote decides"), "confirm": N_("the players vote, then you confirm"),
             "teacher": N_("you decide")}


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
        tally = N_("{up} up, {down} down ({voted} of {voters} voted so far)").format(
            up=crisis["up"], down=crisis["down"], voted=voted, voters=voters)
    else:
        outcome = {True: N_("{up} up, {down} down: the vote passed"),
                   False: N_("{up} up, {down} down: the vote failed")}.get(crisis.get("vote_passed"))
        tally = (outcome or N_("{up} up, {down} down")).format(up=crisis["up"], down=crisis["down"])
    explained = (N_("{name}'s explanation (hidden from the board and the other phones)") if crisis["hidden"]
                 else N_("{name}'s explanation")).format(name=who)
    return [
        {"title": N_("Crisis: {crisis}").format(crisis=crisis["crisis"]["name"]),
         "detail": crisis["crisis"].get("scenario", ""), "quote": None},
        {"title": explained, "detail": "", "quote": crisis["explanation"] or ""},
        {"title": N_("Cards spent"), "detail": ", ".join(names) if names else N_("none"), "quote": None},
        {"title": N_("Vote"), "detail": N_("{tally} · {mode}").format(tally=tally,
                                                                    mode=MODE_TEXT.get(crisis["mode"], crisis["mode"])),
         "quote": None},
    ]
