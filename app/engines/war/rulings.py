"""The War ruling catalogue, loaded from rulings.json and checked on load.

The file is {"version": "...", "rulings": [{"id", "kind", "title", "text"}, ...]}:
`title` is a few words a teacher understands, `text` the full ruling. The
version is recorded on every table (GAME.data_versions) so a replay under a
changed catalogue fails loudly instead of drifting.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..contract import ruling

KINDS = ("provisional", "reconstruction")
FIELDS = {"id", "kind", "title", "text"}
TITLE_MAX = 80
_PATH = Path(__file__).with_name("rulings.json")


def load_catalogue(path: Path = _PATH) -> tuple[str, list[dict]]:
    """Read and validate the catalogue: (version, rulings). A broken file fails at import time."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or set(data) != {"version", "rulings"}:
        raise ValueError(f"{path.name}: expected {{\"version\": ..., \"rulings\": [...]}}")
    version, rulings = data["version"], data["rulings"]
    if not isinstance(version, str) or not version.strip():
        raise ValueError(f"{path.name}: the catalogue needs a version string")
    if not isinstance(rulings, list) or not rulings:
        raise ValueError(f"{path.name}: expected a non-empty list of rulings")
    seen = set()
    for item in rulings:
        if not isinstance(item, dict) or set(item) != FIELDS:
            raise ValueError(f"{path.name}: each ruling needs exactly id, kind, title and text: {item!r}")
        rid, kind, title, text = item["id"], item["kind"], item["title"], item["text"]
        if not isinstance(rid, str) or not rid.startswith("war."):
            raise ValueError(f"{path.name}: ruling id must start with 'war.': {rid!r}")
        if rid in seen:
            raise ValueError(f"{path.name}: duplicate ruling id {rid}")
        if kind not in KINDS:
            raise ValueError(f"{path.name}: ruling {rid} has unknown kind {kind!r}")
        if not isinstance(title, str) or not title.strip() or len(title) > TITLE_MAX \
                or "\n" in title or title.rstrip().endswith("."):
            raise ValueError(f"{path.name}: ruling {rid} needs a short one-line title "
                             f"(at most {TITLE_MAX} characters, no full stop)")
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{path.name}: ruling {rid} has no text")
        seen.add(rid)
    return version, rulings


def load_rulings(path: Path = _PATH) -> list[dict]:
    """The validated rulings alone."""
    return load_catalogue(path)[1]


RULINGS_VERSION, RULINGS = load_catalogue()
_TEXT = {r["id"]: r["text"] for r in RULINGS}


def rule(ruling_id: str, **context) -> dict:
    """A `ruling` log entry quoting the catalogue; unknown ids fail loudly."""
    return ruling(ruling_id, _TEXT[ruling_id], **context)
