"""Storm War's card gallery (GameSpec.gallery): every card and Environment as plain
data for the platform's public gallery page. Pure: reads the loaded card data."""
from __future__ import annotations

import json
from functools import lru_cache

from . import cards as _cards
from . import content

RISK_LABEL = _cards.RISK_LABEL
TYPE_LABELS = {
    "bmp": ("BMP", "BMPs", "Best Management Practices: built on a Jobsite, each adds defense against the risks."),
    "preventative": ("Preventative Action", "Preventative Actions",
                     "Habits and rules that stop pollution at the source; they take BMP slots."),
    "permanent_chaos": ("Permanent Chaos", "Permanent Chaos",
                        "Chaos that stays on a Jobsite (two slots) and keeps helping."),
    "mentor": ("Mentor", "Mentors", "One Mentor may guide a Jobsite; some carry a Tool."),
    "defender": ("Defender", "Defenders", "Defenders take the Mentor slot."),
    "tool": ("Tool", "Tools", "Equipped on the trainee or on a present Mentor (two at most)."),
    "degrader": ("Degrader", "Degraders",
                 "Placed on the active Environment, a Degrader raises its risks for everyone but its placer."),
    "chaos": ("Chaos", "One-time Chaos", "Played once, often in the Respond step, then discarded."),
}


def _notes() -> tuple[str, str]:
    """The data files' own words on what they are (a reconstruction for review)."""
    read = lambda path: json.loads(path.read_text(encoding="utf-8")).get("reconstruction", "")  # noqa: E731
    return read(_cards.CARDS_PATH), read(_cards.ENVIRONMENTS_PATH)


def _numbers(card: dict) -> dict:
    if "defense" in card:
        return {f"{RISK_LABEL[r]} defense": card["defense"][r] for r in _cards.RISKS}
    if "risk" in card:
        return {f"{RISK_LABEL[r]} risk": f"+{card['risk'][r]}" for r in _cards.RISKS}
    return {}


@lru_cache(maxsize=1)
def gallery() -> dict:
    card_note, env_note = _notes()
    sections = []
    for kind in _cards.TYPES:
        label, title, intro = TYPE_LABELS[kind]
        items = [{"name": c["name"], "type": kind, "type_label": label, "numbers": _numbers(c),
                  "text": c["text"], "science": c["science"]}
                 for c in (content.CARDS[k] for k in content.CARD_ORDER) if c["type"] == kind]
        sections.append({"key": kind.replace("_", "-"), "title": title, "intro": intro, "items": items})
    sections.append({
        "key": "environments", "title": "Environments",
        "intro": "The places trainees clean up: a challenge succeeds when a Jobsite's defense reaches the "
                 "Environment's risk. " + env_note,
        "items": [{"name": e["name"], "type": "environment", "type_label": "Environment",
                   "numbers": {f"{RISK_LABEL[r]} risk": e["risks"][r] for r in _cards.RISKS},
                   "text": e["text"], "science": e["science"]}
                  for e in (content.ENVIRONMENTS[k] for k in content.ENVIRONMENT_ORDER)]})
    sections.append({
        "key": "references", "title": "Reference-only cards",
        "intro": "Cards from the original Chaos Card Challenge named in the rule sheet, kept for the record.",
        "items": [{"name": c["name"], "type": "reference", "type_label": "Reference only", "numbers": {},
                   "text": c["text"], "science": c["science"], "note": "Never dealt in this game."}
                  for c in content.REFERENCES]})
    return {"title": "Storm War cards",
            "intro": f"All {len(content.CARDS)} cards of the deck, the {len(content.ENVIRONMENTS)} Environments "
                     f"and the {len(content.REFERENCES)} reference-only cards, each with the science behind it.",
            "note": card_note, "sections": sections}
