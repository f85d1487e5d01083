"""Storm War's section of the debrief (GameSpec.report; see contract.py): Environments
claimed over time, every challenge with its outcome, lawsuits, per-player figures and
prompts about the Environment that resisted longest. Unknown log kinds are skipped."""
from __future__ import annotations

from collections import Counter

from . import content


def _env_name(key) -> str:
    return content.ENVIRONMENTS.get(key, {}).get("name", str(key).replace("_", " ").title())


def report(ctx: dict) -> dict:
    names = list(ctx.get("names") or [])
    n = len(names)
    name = lambda s: names[s] if isinstance(s, int) and 0 <= s < n else "A player"  # noqa: E731
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
            moments.append({"version": v, "text": f"{name(seat)} challenged {_env_name(env)} and fell short "
                                                  f"(defense {e.get('defense', '?')} against risk {e.get('risk', '?')})."})
        elif t == "success" and ok:
            claimed[seat] += 1
            stats[seat]["successes"] += 1
            key = e.get("environment", env)
            resisted.append({"environment": _env_name(key), "tries": env_tries, "since": env_since, "until": v})
            moments.append({"version": v, "text": f"{name(seat)} cleaned up {_env_name(key)} "
                                                  f"(defense {e.get('defense', '?')} against risk {e.get('risk', '?')})"
                                                  f" after {env_tries} challenge{'s' if env_tries != 1 else ''}."})
            points.append([v, list(claimed)])
        elif t == "sue" and ok:
            stats[seat]["lawsuits"] += 1
            moments.append({"version": v, "text": e.get("text", "")})
        elif t == "degrader" and ok:
            stats[seat]["degraders"] += 1
        elif t == "game_over":
            moments.append({"version": v, "text": e.get("text", "The game ended.")})
    figures = {"columns": ["Environments", "Challenges", "Fell short", "Degraders placed", "Lawsuits"],
               "rows": [{"seat": s, "values": [claimed[s], stats[s]["challenges"], stats[s]["failures"],
                                               stats[s]["degraders"], stats[s]["lawsuits"]]} for s in range(n)]}
    prompts = []
    if resisted:
        hard = max(resisted, key=lambda r: (r["tries"], r["until"] - r["since"]))
        env_data = next((x for x in content.ENVIRONMENTS.values() if x["name"] == hard["environment"]), {})
        prompts.append(f"{hard['environment']} resisted longest ({hard['tries']} challenges). "
                       + (f"{env_data.get('science', '')} " if env_data.get("science") else "")
                       + "Which practices would protect it in real life?")
    elif env is not None:
        prompts.append(f"Nobody cleaned up {_env_name(env)}. What made its risks so hard to meet?")
    fails = sum(stats[s]["failures"] for s in range(n))
    if fails:
        prompts.append(f"Challenges fell short {fails} times. What would you check before challenging next time?")
    suits = sum(stats[s]["lawsuits"] for s in range(n))
    if suits:
        prompts.append("Players went to court over pollution. Who should pay when runoff harms a neighbour?")
    cards = {e["card"]: content.CARDS[e["card"]]["name"] for e in ctx.get("entries", [])
             if isinstance(e.get("card"), str) and e["card"] in content.CARDS}
    return {"series": {"label": "Environments cleaned up", "unit": "Environments", "points": points},
            "moments": moments, "figures": figures, "prompts": prompts, "cards": cards}
