"""A game's ruling catalogue: a JSON file next to its engine, checked on load.

The file is {"version": "...", "rulings": [{"id", "kind", "title", "text"}, ...]}:
`id` starts with the game's key and a dot, `title` is a few words a teacher
understands, `text` the full ruling. The version is recorded on every table
(GAME.data_versions) so a replay under a changed catalogue fails loudly
instead of drifting. Every game loads its catalogue with `Catalogue(path, key)`.
"""
from __future__ import annotations

import json
from pathlib import Path

from .contract import ruling

KINDS = ("provisional", "reconstruction")
FIELDS = {"id", "kind", "title", "text"}
TITLE_MAX = 80


def load_catalogue(path: Path, prefix: str) -> tuple[str, list[dict]]:
    """Read and validate a catalogue: (version, rulings). A broken file fails at import time."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    name = Path(path).name
    if not isinstance(data, dict) or set(data) != {"version", "rulings"}:
        raise ValueError(f"{name}: expected {{\"version\": ..., \"rulings\": [...]}}")
    version, rulings = data["version"], data["rulings"]
    if not isinstance(version, str) or not version.strip():
        raise ValueError(f"{name}: the catalogue needs a version string")
    if not isinstance(rulings, list) or not rulings:
        raise ValueError(f"{name}: expected a non-empty list of rulings")
    seen = set()
    for item in rulings:
        if not isinstance(item, dict) or set(item) != FIELDS:
            raise ValueError(f"{name}: each ruling needs exactly id, kind, title and text: {item!r}")
        rid, kind, title, text = item["id"], item["kind"], item["title"], item["text"]
        if not isinstance(rid, str) or not rid.startswith(prefix + "."):
            raise ValueError(f"{name}: ruling id must start with '{prefix}.': {rid!r}")
        if rid in seen:
            raise ValueError(f"{name}: duplicate ruling id {rid}")
        if kind not in KINDS:
            raise ValueError(f"{name}: ruling {rid} has unknown kind {kind!r}")
        if not isinstance(title, str) or not title.strip() or len(title) > TITLE_MAX \
                or "\n" in title or title.rstrip().endswith("."):
            raise ValueError(f"{name}: ruling {rid} needs a short one-line title "
                             f"(at most {TITLE_MAX} characters, no full stop)")
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{name}: ruling {rid} has no text")
        seen.add(rid)
    return version, rulings


class Catalogue:
    """One game's loaded catalogue: its version, its rulings and `rule(id, **context)`,
    the `ruling` log entry quoting it (an unknown id fails loudly)."""

    def __init__(self, path: Path, prefix: str):
        self.version, self.rulings = load_catalogue(path, prefix)
        self._text = {r["id"]: r["text"] for r in self.rulings}

    def rule(self, ruling_id: str, **context) -> dict:
        return ruling(ruling_id, self._text[ruling_id], **context)
