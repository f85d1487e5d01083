"""The card gallery (on the player blueprint): /games/<key>/cards shows every card
of a game whose spec has a `gallery` (GameSpec.gallery), for teachers and
students alike, no login. Searching and the type filters run in the browser
(static/js/gallery.js); without JavaScript every card is simply listed."""
from __future__ import annotations

from flask import abort, render_template

from app import engines
from app.player import bp


def gallery_games() -> list[dict]:
    """The games with a card gallery: {key, title}."""
    return [{"key": k, "title": engines.spec(k).title} for k in engines.keys() if engines.spec(k).gallery]


@bp.app_context_processor
def _gallery_helpers():
    return {"gallery_games": gallery_games}


def _types(data: dict) -> list[dict]:
    """The item types in order of first appearance, each with a tone (0-9) for its colour band."""
    seen: dict[str, dict] = {}
    for section in data.get("sections", []):
        for item in section.get("items", []):
            if item["type"] not in seen:
                seen[item["type"]] = {"key": item["type"], "label": item.get("type_label") or item["type"],
                                      "tone": len(seen) % 10, "count": 0}
            seen[item["type"]]["count"] += 1
    return list(seen.values())


@bp.get("/games/<key>/cards")
def gallery(key):
    if key not in engines.keys() or engines.spec(key).gallery is None:
        abort(404)
    spec = engines.spec(key)
    data = spec.gallery()
    from app import i18n
    from app.player import page_language

    lang = page_language()
    data = i18n.localize_payload(data, lang, key)  # the cards in the reader's language
    for section in data.get("sections", []):  # the numbers' labels are the keys of their dict
        for item in section.get("items", []):
            if isinstance(item.get("numbers"), dict):
                item["numbers"] = {i18n.localize(label, lang, key): value for label, value in item["numbers"].items()}
    types = _types(data)
    total = sum(t["count"] for t in types)
    return render_template("gallery.html", spec=spec, data=data, types=types, total=total,
                           tones={t["key"]: t["tone"] for t in types})
