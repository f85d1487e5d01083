"""Water Cycle Challenge's section of the debrief (GameSpec.report; see contract.py).

Everything comes from the log: trophies over time (trades, Boss hits, Collapses),
every trivia question with the answer given and the explanation, every Crisis
explanation with its cards, tally and teacher decision, and prompts built from
what happened. Unknown log kinds are skipped.
"""
from __future__ import annotations

from collections import Counter

from ..text import N_, NP_
from . import content


def _question_bank(state) -> dict:
    bank = (state or {}).get("custom_trivia") or content.QUESTIONS
    return {q.get("id"): q for q in bank if isinstance(q, dict)}


def _card(kind) -> str:
    return content.CARD_NAMES.get(kind, str(kind).replace("_", " "))


def _crisis_name(cid) -> str:
    return content.CRISIS_BY_ID.get(cid, {}).get("name", str(cid).replace("_", " ").capitalize())


def report(ctx: dict) -> dict:
    names = list(ctx.get("names") or [])
    n = len(names)
    name = lambda s: names[s] if isinstance(s, int) and 0 <= s < n else N_("A player")  # noqa: E731
    bank = _question_bank(ctx.get("state"))
    actions = {ev["version"]: ev.get("action") or {} for ev in ctx.get("events", [])}
    trophies = [0] * n
    points = [[0, list(trophies)]] if n else []
    moments, learning, votes = [], [], []
    stats = {s: Counter() for s in range(n)}
    open_vote = None
    for e in ctx.get("entries", []):
        t, seat, v = e.get("t"), e.get("seat"), e.get("version", 0)
        ok_seat = isinstance(seat, int) and 0 <= seat < n
        if t == "trade" and ok_seat:
            trophies[seat] = int(e.get("trophies", trophies[seat] + 1))
            stats[seat]["trades"] += 1
        elif t == "boss_hit" and ok_seat:
            trophies[seat] += 1
            stats[seat]["boss_hits"] += 1
            moments.append({"version": v, "text": N_("{name} hit the Boss ({hp} HP left) and won a trophy.").format(
                name=name(seat), hp=e.get("hp", "?"))})
        elif t == "boss_defeated" and ok_seat:
            trophies[seat] += 1
            moments.append({"version": v, "text": NP_("{name} defeated the Boss and took the {n} card of the Bucket.",
                                                  "{name} defeated the Boss and took the {n} cards of the Bucket.",
                                                  e.get("cards", 0)).format(name=name(seat), n=e.get("cards", 0))})
        elif t == "collapse_loss" and ok_seat:
            trophies[seat] = max(0, trophies[seat] - int(e.get("trophies_lost", 0) or 0))
            moments.append({"version": v, "text": N_(
                "{name} drew the Reservoir Collapse without an Emergency Response and lost {n} "
                "trophies and their hand.").format(name=name(seat), n=e.get("trophies_lost", 0))})
        elif t == "defused" and ok_seat:
            moments.append({"version": v, "text": N_("{name} survived the Reservoir Collapse with an "
                                                     "Emergency Response.").format(name=name(seat))})
        elif t == "challenge" and ok_seat:
            stats[seat]["challenges"] += 1
        elif t == "trivia" and ok_seat:
            q = bank.get(e.get("question")) or {}
            options = q.get("options") or []
            choice, answer = e.get("choice"), q.get("answer")
            pick = lambda i: (N_("{letter}: {option}").format(letter="ABCD"[i], option=options[i])  # noqa: E731
                              if isinstance(i, int) and 0 <= i < len(options) else "—")
            correct = bool(e.get("correct"))
            stats[seat]["right" if correct else "wrong"] += 1
            question = q.get("question") or N_("a question")
            moments.append({"version": v, "text": (
                N_("{name} challenged the Boss and answered “{question}” right.").format(
                    name=name(seat), question=question) if correct
                else N_("{name} challenged the Boss and answered “{question}” wrong (the answer is {answer}).").format(
                    name=name(seat), question=question, answer=pick(answer)))})
            learning.append({"question": q.get("question") or e.get("text", ""), "answer_given": pick(choice),
                             "correct": correct, "answer": pick(answer), "explanation": q.get("explanation", ""),
                             "seat": seat, "topic": q.get("topic") or "", "version": v,
                             "id": e.get("question")})
        elif t == "crisis" and ok_seat:
            open_vote = {"seat": seat, "title": _crisis_name(e.get("crisis")), "cards": [], "explanation": "",
                         "up": None, "down": None, "decision": "", "decided_by": "", "hidden": False,
                         "version": v, "reason": ""}
            stats[seat]["crises"] += 1
        elif t == "explain" and open_vote is not None:
            open_vote["cards"] = [_card(c) for c in e.get("cards", [])]
            text = actions.get(v, {}).get("text")
            open_vote["explanation"] = " ".join(str(text).split()) if isinstance(text, str) else ""
        elif t == "tally" and open_vote is not None:
            open_vote["up"], open_vote["down"] = e.get("up"), e.get("down")
        elif t == "moderation" and open_vote is not None:
            decision = e.get("decision")
            if decision in ("accept", "reject"):
                open_vote["decided_by"] = N_("the teacher")
                open_vote["reason"] = e.get("reason") or ""
            elif decision in ("hide", "show"):
                open_vote["hidden"] = decision == "hide"
        elif t in ("crisis_passed", "crisis_failed") and open_vote is not None:
            passed = t == "crisis_passed"
            open_vote["decision"] = N_("accepted") if passed else N_("rejected")
            if not open_vote["decided_by"]:
                if open_vote["up"] is not None:
                    open_vote["decided_by"] = N_("the class vote")
                elif not passed:   # nobody judged it: the player gave up (or had no cards)
                    open_vote["decision"], open_vote["decided_by"] = N_("given up"), N_("the player")
            if passed and ok_seat:
                stats[seat]["crises_passed"] += 1
            who = name(open_vote["seat"])
            spent = ", ".join(open_vote["cards"]) or N_("no cards")
            fields = {"crisis": open_vote["title"], "name": who, "cards": spent, "decision": open_vote["decision"],
                      "by": open_vote["decided_by"], "up": open_vote["up"], "down": open_vote["down"]}
            moments.append({"version": v, "text": (
                N_("Crisis {crisis}: {name} answered with {cards}; {decision} by {by} (vote {up} up, {down} down).")
                if open_vote["up"] is not None
                else N_("Crisis {crisis}: {name} answered with {cards}; {decision} by {by}.")).format(**fields)})
            votes.append(open_vote)
            open_vote = None
        elif t == "game_over":
            moments.append({"version": v, "text": e.get("text", N_("The game ended."))})
        else:
            continue
        if t in ("trade", "boss_hit", "boss_defeated", "collapse_loss"):
            points.append([v, list(trophies)])
    if n and points and points[-1][1] != trophies:
        points.append([points[-1][0], list(trophies)])
    figures = {"columns": [N_("Trophies"), N_("Trivia right"), N_("Trivia asked"), N_("Crises answered"),
                           N_("Crises passed"), N_("Boss hits")],
               "rows": [{"seat": s, "values": [trophies[s], stats[s]["right"], stats[s]["right"] + stats[s]["wrong"],
                                               stats[s]["crises"], stats[s]["crises_passed"], stats[s]["boss_hits"]]}
                        for s in range(n)]}
    cards = {e["card"]: _card(e["card"]) for e in ctx.get("entries", []) if isinstance(e.get("card"), str)}
    counts = Counter({N_("Crises answered"): len(votes), N_("Boss defeats"): sum(
        1 for e in ctx.get("entries", []) if e.get("t") == "boss_defeated")})
    return {"series": {"label": N_("Trophies"), "unit": N_("trophies"), "points": points}, "moments": moments,
            "learning": learning, "learning_noun": [N_("trivia question"), N_("trivia questions")], "figures": figures,
            "votes": votes, "prompts": _prompts(learning, votes, name), "cards": cards, "counts": dict(counts),
            "score_label": N_("Trophies")}


def _prompts(learning: list, votes: list, name) -> list[str]:
    out = []
    missed = [q for q in learning if not q["correct"]]
    if missed:
        q = missed[0]
        out.append(N_("“{question}” was answered {given}; the answer is {answer}. "
                      "Why might that answer have seemed right?").format(
            question=q["question"], given=q["answer_given"], answer=q["answer"]))
    rejected = [v for v in votes if v["decision"] == "rejected" and v["explanation"]]
    if rejected:
        v = rejected[0]
        out.append(N_("{name}'s explanation for {crisis} was rejected by {by}. "
                      "What would have made it convincing?").format(name=name(v["seat"]), crisis=v["title"],
                                                                    by=v["decided_by"]))
    accepted = [v for v in votes if v["decision"] == "accepted"]
    if accepted:
        v = max(accepted, key=lambda v: len(v["cards"]))
        out.append(N_("{name} answered {crisis} with {cards}. "
                      "How does each card help in a real city?").format(name=name(v["seat"]), crisis=v["title"],
                                                                        cards=", ".join(v["cards"])))
    topics = Counter(q["topic"] for q in missed if q["topic"])
    if topics:
        topic, count = topics.most_common(1)[0]
        out.append(NP_("{n} trivia question on {topic} went wrong. What do we still need to find out about it?",
                       "{n} trivia questions on {topic} went wrong. What do we still need to find out about it?",
                       count).format(n=count, topic=topic))
    return out
