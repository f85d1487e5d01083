"""Text students type that others see (DESIGN.md "Text students type").

A name, a playtest note, a Crisis explanation, a spell's words of power, any free
text a future game asks for: every one passes `check_polite` (app/edge/security.py)
when the table's filter is on, and the teacher can hide any of it from the board
and the phones, or (at a table that asks) must approve it before they see it.

The games stay pure: an engine declares free text the contract's way, a string
field its listed action holds as `""` to be filled (`free_text_fields`), and
never hears of hiding. The platform keeps the table's student texts by ref
("e<version>" for the text of the game action logged at that version,
"n<id>" for a note) and takes them out of the views and log entries it builds
for the board and the phones (`redact`); the teacher's view keeps everything.

A student's name is hidden the same way: the teacher's action names the seat
("s<seat>"), and the table's texts keep it under "name<seat row id>" (the row, not
the seat number, since seats are renumbered when someone leaves the lobby). A hidden
name shows as "Player N" (N the seat number, as app/service/privacy.py numbers players)
wherever it stands as a whole name (`hidden_names`, `Renamer`): its own student
still reads it, as an author reads their own waiting text.

Pure functions: nothing here knows Flask, the database or a game.
"""
from __future__ import annotations

import re

from app.engines.text import N_

HIDDEN = N_("(hidden by the teacher)")
WAITING = N_("(waiting for the teacher)")

# The quotes a game's sentence puts around a student's words ("saying “…”").
QUOTES = (("\u201c", "\u201d"), ('"', '"'), ("\u2018", "\u2019"), ("'", "'"))


NAME = "name"          # the `field` of a name's entry in the table's texts
GONE = "Another player"  # a hidden name whose student has left the table (removed, or moved on)


def placeholder(number: int) -> str:
    """A student's name hidden (by the teacher) or removed (app/service/privacy.py): "Player N"."""
    return N_("Player {n}").format(n=number)


class Renamer:
    """Replaces whole names (not parts of longer words) in any JSON-like value, dict keys
    included, all names at once, so that "Player 2" renamed to "Player 1" is not renamed
    again. `keep`: phrases left as they are even if a name is one of their words (the
    platform's own "(hidden by the teacher)")."""

    def __init__(self, mapping: dict[str, str], keep: tuple[str, ...] = ()):
        # A name mapped to itself stays in the pattern: "Ann Lee" (shown) is matched whole
        # before "Ann" (hidden) could be matched inside it.
        self.mapping = {old: new for old, new in mapping.items() if old}
        names = sorted(self.mapping, key=len, reverse=True)  # "Ann Lee" before "Ann"
        kept = "".join(re.escape(k) + "|" for k in keep)
        self.pattern = re.compile("(?:" + kept + r"(?<!\w)(?:" + "|".join(map(re.escape, names)) + r")(?!\w))") \
            if names else None

    def text(self, value: str) -> str:
        if self.pattern is None:
            return value
        exact = self.mapping.get(value)
        if exact is not None:
            return exact
        return self.pattern.sub(lambda m: self.mapping.get(m.group(0), m.group(0)), value)

    def __call__(self, value):
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {(self.text(k) if isinstance(k, str) else k): self(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self(v) for v in value]
        return value


def free_text_fields(listed: list[dict], action: dict) -> list[str]:
    """The fields of `action` that are free text: those a listed action of the same
    type holds as `""` to be filled (the engine contract's declaration)."""
    fields = set()
    for offered in listed:
        if offered.get("type") == action.get("type"):
            fields.update(k for k, v in offered.items() if v == "" and k not in ("type", "label"))
    return sorted(k for k in fields if isinstance(action.get(k), str))


def normalise(text: str) -> str:
    """Runs of spaces and line breaks as one space (the games keep free text on one
    line, so the text the platform records is exactly what the game shows)."""
    return " ".join(text.split())


def entry(seat: int, field: str, text: str, *, approved: bool) -> dict:
    """One student text of a game action, as the table's `texts` keeps it."""
    return {"seat": seat, "field": field, "text": text, "hidden": False, "approved": approved}


def name_ref(seat_id: int) -> str:
    """Where the table's texts keep a student's name once the teacher hid it (by seat row)."""
    return f"name{seat_id}"


def name_entry(seat: int, name: str, *, hidden: bool) -> dict:
    """A student's name, as the table's `texts` keeps it when the teacher hides (or shows) it."""
    return {"seat": seat, "field": NAME, "text": name, "hidden": hidden, "approved": True}


def is_name(item: dict) -> bool:
    return item.get("field") == NAME


def typed(texts: dict) -> dict:
    """The table's texts the students typed (their names left out: the seat list has those)."""
    return {ref: item for ref, item in texts.items() if not is_name(item)}


def hidden_names(texts: dict, seats: dict[int, int], viewer, shown=()) -> dict[str, str]:
    """{name: what shows instead} for the hidden names this viewer may not read: "Player N"
    (N = the seat number now; `seats` maps each seat row id to its seat index) or, for a
    student no longer seated here, "Another player". The teacher ("facilitator") reads
    every name, and a student their own. `shown`: the table's other names, kept as they
    are (so hiding "Ann" leaves "Ann Lee" whole)."""
    if viewer == "facilitator":
        return {}
    out = {}
    for ref, item in texts.items():
        if not is_name(item) or not item["hidden"]:
            continue
        digits = ref[len(NAME):]
        index = seats.get(int(digits)) if digits.isascii() and digits.isdigit() else None
        if index is not None and index == viewer and isinstance(viewer, int) and not isinstance(viewer, bool):
            continue
        out[item["text"]] = placeholder(index + 1) if index is not None else GONE
    return dict({name: name for name in shown}, **out) if out else out


def newest_first(texts: dict) -> list[dict]:
    """The table's texts, each with its ref, newest first (by the event that wrote it:
    a JSON column need not keep the keys in the order they were added)."""
    def written(ref: str) -> int:
        number = ref[1:].split(".")[0]
        return int(number) if number.isascii() and number.isdigit() else 0
    return [dict(texts[ref], ref=ref) for ref in sorted(texts, key=written, reverse=True)]


def withheld(texts: dict, viewer) -> list[tuple[str, str]]:
    """(text, what shows instead) for every text this viewer may not read: all the
    hidden ones, and those waiting for approval unless the viewer wrote them. The
    teacher ("facilitator") reads everything."""
    if viewer == "facilitator":
        return []
    out = []
    for item in texts.values():
        if is_name(item):
            continue  # a name is matched as a name (`hidden_names`), not as a quoted text
        if item["hidden"]:
            out.append((item["text"], HIDDEN))
        elif not item["approved"] and item["seat"] != viewer:
            out.append((item["text"], WAITING))
    return out


def redact(value, withheld_texts: list[tuple[str, str]], names: dict[str, str] | None = None):
    """A copy of a JSON-like value with each withheld text taken out of its strings:
    a string that is the text, or that quotes it, shows the replacement instead.
    Only whole strings and quoted words are matched, so a short text ("a") does not
    eat the letters of every other word on the board. Then each hidden name (`names`,
    from `hidden_names`) shows as its "Player N" wherever it stands as a whole word,
    dict keys included ("Al" leaves "Alarm" alone)."""
    if names:
        return Renamer(names, keep=(HIDDEN, WAITING))(_redact(value, withheld_texts))
    return _redact(value, withheld_texts)


def _redact(value, withheld_texts: list[tuple[str, str]]):
    if not withheld_texts:
        return value
    if isinstance(value, str):
        for text, instead in withheld_texts:
            if value == text:
                return instead
            for left, right in QUOTES:
                value = value.replace(f"{left}{text}{right}", instead)
        return value
    if isinstance(value, dict):
        return {k: _redact(v, withheld_texts) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact(v, withheld_texts) for v in value]
    return value


def note_readable(note, reader) -> bool:
    """Whether `reader` may read this note: "teacher" (every note), a seat index
    (a player's phone), "board", or "students" (the student copy of a report).
    A teacher's or a board's note is the teacher's alone; a seat's note is the
    table's, unless the teacher hid it or has not approved it yet (its author
    still reads it while it waits)."""
    if reader == "teacher":
        return True
    if note.audience != "table" or note.hidden:
        return False
    return note.approved or (note.role == "seat" and note.seat == reader and isinstance(reader, int))
