"""Storm War's section of the debrief (GameSpec.report; see contract.py): Environments
claimed over time, every challenge with its outcome, lawsuits, per-player figures and
prompts about the Environment that resisted longest. Unknown log kinds are skipped."""
from __future__ import annotations

from collections import Counter

from ..text import N_, NP_
from . import content


def _env_name(key) -> str:
    return content.ENVIRONMENTS.get(key, {}).get("name", str(key).replace("_", " ").title())


def report(ctx: dict) -> dict:
    names = list(ctx.get("names") or [])
    n = len(names)
    name = lambda s: names[s] if isinstance(s, int) and 0 <= s < n else N_("A player")  # noqa: E731
    claimed = [0] * n
    points = [[0, [0] * n]] if n else []
    moments, stats = [], {s: Counter() for s in range(n)}
    env, env_since, env_tries, resisted = None, 0, 0, []
    for e in ctx.get("entries", []):
        t, seat, v = e.get("t"), e.get("seat"), e.get("version", 0)
        ok = isinstance(seat, int) and 0 <= seat < n
        if t == "reveal" and "environment" in e:
            env, env_since, env_tries = e["environment"], v, 0
        elif t == "challenge" and ok:
            stats[seat]["challenges"] += 1
            env_tries += 1
        elif t == "failure" and ok:
            stats[seat]["failures"] += 1
            moments.append({"version": v, "text": N_("{name} challenged {environment} and fell short (defense "
                                                     "{defense} against risk {risk}).").format(
                name=name(seat), environment=_env_name(env), defense=e.get("defense", "?"), risk=e.get("risk", "?"))})
        elif t == "success" and ok:
            claimed[seat] += 1
            stats[seat]["successes"] += 1
            key = e.get("environment", env)
            resisted.append({"environment": _env_name(key), "tries": env_tries, "since": env_since, "until": v})
            moments.append({"version": v, "text": NP_(
                "{name} cleaned up {environment} (defense {defense} against risk {risk}) after {n} challenge.",
                "{name} cleaned up {environment} (defense {defense} against risk {risk}) after {n} challenges.",
                env_tries).format(name=name(seat), environment=_env_name(key), defense=e.get("defense", "?"),
                                  risk=e.get("risk", "?"), n=env_tries)})
            points.append([v, list(claimed)])
        elif t == "sue" and ok:
            stats[seat]["lawsuits"] += 1
            moments.append({"version": v, "text": e.get("text", "")})
        elif t == "degrader" and ok:
            stats[seat]["degraders"] += 1
        elif t == "game_over":
            moments.append({"version": v, "text": e.get("text", N_("The game ended."))})
    figures = {"columns": [N_("Environments"), N_("Challenges"), N_("Fell short"), N_("Degraders placed"),
                           N_("Lawsuits")],
               "rows": [{"seat": s, "values": [claimed[s], stats[s]["challenges"], stats[s]["failures"],
                                               stats[s]["degraders"], stats[s]["lawsuits"]]} for s in range(n)]}
    prompts = []
    if resisted:
        hard = max(resisted, key=lambda r: (r["tries"], r["until"] - r["since"]))
        env_data = next((x for x in content.ENVIRONMENTS.values() if x["name"] == hard["environment"]), {})
        # (the English says "challenges" and "times" even for one: NP_ lets a translation say it well)
        if env_data.get("science"):
            prompts.append(NP_("{environment} resisted longest ({n} challenges). {science} Which practices would "
                               "protect it in real life?",
                               "{environment} resisted longest ({n} challenges). {science} Which practices would "
                               "protect it in real life?", hard["tries"]).format(
                environment=hard["environment"], n=hard["tries"], science=env_data["science"]))
        else:
            prompts.append(NP_("{environment} resisted longest ({n} challenges). Which practices would protect it "
                               "in real life?",
                               "{environment} resisted longest ({n} challenges). Which practices would protect it "
                               "in real life?", hard["tries"]).format(environment=hard["environment"], n=hard["tries"]))
    elif env is not None:
        prompts.append(N_("Nobody cleaned up {environment}. What made its risks so hard to meet?").format(
            environment=_env_name(env)))
    fails = sum(stats[s]["failures"] for s in range(n))
    if fails:
        prompts.append(NP_("Challenges fell short {n} times. What would you check before challenging next time?",
                           "Challenges fell short {n} times. What would you check before challenging next time?",
                           fails).format(n=fails))
    suits = sum(stats[s]["lawsuits"] for s in range(n))
    if suits:
        prompts.append(N_("Players went to court over pollution. Who should pay when runoff harms a neighbour?"))
    cards = {e["card"]: content.CARDS[e["card"]]["name"] for e in ctx.get("entries", [])
             if isinstance(e.get("card"), str) and e["card"] in content.CARDS}
    return {"series": {"label": N_("Environments cleaned up"), "unit": N_("Environments"), "points": points},
            "moments": moments, "figures": figures, "prompts": prompts, "cards": cards,
            "score_label": N_("Environments")}
