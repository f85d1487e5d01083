"""Storm War's card gallery (GameSpec.gallery): every card and Environment as plain
data for the platform's public gallery page. Pure: reads the loaded card data."""
from __future__ import annotations

import json
from functools import lru_cache

from ..text import N_
from . import cards as _cards
from . import content

RISK_LABEL = _cards.RISK_LABEL
TYPE_LABELS = {
    "bmp": (N_("BMP"), N_("BMPs"),
            N_("Best Management Practices: built on a Jobsite, each adds defense against the risks.")),
    "preventative": (N_("Preventative Action"), N_("Preventative Actions"),
                     N_("Habits and rules that stop pollution at the source; they take BMP slots.")),
    "permanent_chaos": (N_("Permanent Chaos"), N_("Permanent Chaos"),
                        N_("Chaos that stays on a Jobsite (two slots) and keeps helping.")),
    "mentor": (N_("Mentor"), N_("Mentors"), N_("One Mentor may guide a Jobsite; some carry a Tool.")),
    "defender": (N_("Defender"), N_("Defenders"), N_("Defenders take the Mentor slot.")),
    "tool": (N_("Tool"), N_("Tools"), N_("Equipped on the trainee or on a present Mentor (two at most).")),
    "degrader": (N_("Degrader"), N_("Degraders"),
                 N_("Placed on the active Environment, a Degrader raises its risks for everyone but its placer.")),
    "chaos": (N_("Chaos"), N_("One-time Chaos"), N_("Played once, often in the Respond step, then discarded.")),
}
DEFENSE_LABEL = {"toxic": N_("Toxic defense"), "erosion": N_("Erosion defense"), "nutrient": N_("Nutrient defense")}
RISK_NUMBER_LABEL = {"toxic": N_("Toxic risk"), "erosion": N_("Erosion risk"), "nutrient": N_("Nutrient risk")}


def _notes() -> tuple[str, str]:
    """The data files' own words on what they are (a reconstruction for review)."""
    read = lambda path: json.loads(path.read_text(encoding="utf-8")).get("reconstruction", "")  # noqa: E731
    return read(_cards.CARDS_PATH), read(_cards.ENVIRONMENTS_PATH)


def _numbers(card: dict) -> dict:
    if "defense" in card:
        return {DEFENSE_LABEL[r]: card["defense"][r] for r in _cards.RISKS}
    if "risk" in card:
        return {RISK_NUMBER_LABEL[r]: f"+{card['risk'][r]}" for r in _cards.RISKS}
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
        "key": "environments", "title": N_("Environments"),
        "intro": N_("The places trainees clean up: a challenge succeeds when a Jobsite's defense reaches the "
                    "Environment's risk. {note}").format(note=env_note),
        "items": [{"name": e["name"], "type": "environment", "type_label": N_("Environment"),
                   "numbers": {RISK_NUMBER_LABEL[r]: e["risks"][r] for r in _cards.RISKS},
                   "text": e["text"], "science": e["science"]}
                  for e in (content.ENVIRONMENTS[k] for k in content.ENVIRONMENT_ORDER)]})
    sections.append({
        "key": "references", "title": N_("Reference-only cards"),
        "intro": N_("Cards from the original Chaos Card Challenge named in the rule sheet, kept for the record."),
        "items": [{"name": c["name"], "type": "reference", "type_label": N_("Reference only"), "numbers": {},
                   "text": c["text"], "science": c["science"], "note": N_("Never dealt in this game.")}
                  for c in content.REFERENCES]})
    return {"title": N_("Storm War cards"),
            "intro": N_("All {cards} cards of the deck, the {environments} Environments and the {references} "
                        "reference-only cards, each with the science behind it.").format(
                cards=len(content.CARDS), environments=len(content.ENVIRONMENTS), references=len(content.REFERENCES)),
            "note": card_note, "sections": sections}
