"""The War ruling catalogue, loaded from rulings.json and checked on load."""
from __future__ import annotations

import json
from pathlib import Path

from ..contract import ruling

KINDS = ("provisional", "reconstruction")
_PATH = Path(__file__).with_name("rulings.json")


def load_rulings(path: Path = _PATH) -> list[dict]:
    """Read and validate the catalogue; a broken file fails at import time."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, list) or not data:
        raise ValueError(f"{path.name}: expected a non-empty list of rulings")
    seen = set()
    for item in data:
        if not isinstance(item, dict) or set(item) != {"id", "kind", "text"}:
            raise ValueError(f"{path.name}: each ruling needs exactly id, kind and text: {item!r}")
        rid, kind, text = item["id"], item["kind"], item["text"]
        if not isinstance(rid, str) or not rid.startswith("war."):
            raise ValueError(f"{path.name}: ruling id must start with 'war.': {rid!r}")
        if rid in seen:
            raise ValueError(f"{path.name}: duplicate ruling id {rid}")
        if kind not in KINDS:
            raise ValueError(f"{path.name}: ruling {rid} has unknown kind {kind!r}")
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{path.name}: ruling {rid} has no text")
        seen.add(rid)
    return data


RULINGS = load_rulings()
_TEXT = {r["id"]: r["text"] for r in RULINGS}


def rule(ruling_id: str, **context) -> dict:
    """A `ruling` log entry quoting the catalogue; unknown ids fail loudly."""
    return ruling(ruling_id, _TEXT[ruling_id], **context)
