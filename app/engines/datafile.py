"""Checks every game's data files share (card lists, question banks, rosters):
reading a JSON object with exactly the expected keys, and deciding whether a
piece of text is fit to show. Pure Python; each loader adds its own rules."""
from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

_ENTITY = re.compile(r"&(#\d+|#x[0-9a-f]+|[a-z]+);", re.IGNORECASE)


def is_emoji(ch: str) -> bool:
    """Pictographs the shipped fonts lack (they would print as empty boxes)."""
    code = ord(ch)
    return (code >= 0x1F000                      # pictographs, emoticons, flags, symbols
            or 0x2600 <= code <= 0x27BF          # miscellaneous symbols and dingbats
            or 0x2B00 <= code <= 0x2BFF          # arrows and stars used as emoji
            or code == 0xFE0F)                   # the emoji presentation selector


def text_problem(value, label: str, max_len: int, *, strict: bool = True) -> str | None:
    """Why `value` is not acceptable text for `label`, or None when it is fine.

    Every text: a non-empty string without HTML (< or >), a NUL byte or control
    characters, at most `max_len` characters. `strict` (the files we ship, not a
    teacher's upload) adds: one line, no stray or doubled spaces, no HTML
    entities, no emoji."""
    if not isinstance(value, str):
        return f"{label} is not text"
    if not value.strip():
        return f"{label} is empty"
    if "\x00" in value:
        return f"{label} contains a NUL byte"
    if "<" in value or ">" in value:
        return f"{label} contains HTML (< or >)"
    if any(unicodedata.category(ch) == "Cc" and ch not in "\t\n\r" for ch in value):
        return f"{label} contains a control character"
    if strict:
        if value != value.strip() or "  " in value or any(ch in value for ch in "\t\n\r"):
            return f"{label} must be one line without extra spaces"
        if _ENTITY.search(value):
            return f"{label} contains an HTML entity"
        if any(is_emoji(ch) for ch in value):
            return f"{label} contains an emoji"
    if len(value) > max_len:
        return f"{label} is longer than {max_len} characters"
    return None


def read_json(path, keys: tuple[str, ...], *, texts: tuple[str, ...] = ("version",), max_len: int = 400) -> dict:
    """A data file that must be a JSON object with exactly `keys`; the fields named
    in `texts` (the version, a reconstruction note...) must be plain text."""
    name = Path(path).name
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{name}: cannot be read: {exc}") from exc
    if not isinstance(data, dict) or set(data) != set(keys):
        raise ValueError(f"{name}: expected exactly the keys {', '.join(keys)}")
    for field in texts:
        problem = text_problem(data[field], field, max_len)
        if problem:
            raise ValueError(f"{name}: {problem}")
    return data
