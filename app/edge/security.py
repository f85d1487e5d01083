"""Secrets, codes and input hygiene shared by every entry point."""
from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets

from app.edge import names
from app.engines.text import N_

# No 0/O, 1/I/L: a code read off a projector must not be mistyped.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
NAME_MAX = 20
NOTE_MAX = 1000


def new_token() -> str:
    """192 random bits, URL-safe: a seat's or a facilitator's secret."""
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    # Tokens are long and random, so a fast hash is enough (no dictionary to attack).
    return hashlib.sha256(token.encode()).hexdigest()


def derive_token(secret: str, purpose: str, *parts) -> str:
    """A secret derived from a link's secret (192 bits, URL-safe): HMAC-SHA256 of
    "cg-<purpose>:<part>:<part>..." keyed by `secret`. A link's secret stands for the
    tokens derived from it, and only those tokens' hashes are stored."""
    message = ":".join([f"cg-{purpose}", *map(str, parts)]).encode()
    mac = hmac.new(secret.encode(), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:24]).decode().rstrip("=")


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(raw) -> str | None:
    """Accept what a student types: any case, spaces or dashes; None if it cannot be a code."""
    if not isinstance(raw, str):
        return None
    code = re.sub(r"[\s\-]", "", raw).upper()
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        return None
    return code


class InputError(ValueError):
    """A name or note that cannot be accepted; the message is shown to the user."""


def clean_name(raw) -> str:
    """A name as shown everywhere (app/edge/names.py says what is refused and why)."""
    if not isinstance(raw, str):
        raise InputError(N_("Please type a name."))
    name = names.visible_text(raw)
    if not raw.strip():
        raise InputError(N_("Please type a name."))
    if not names.shows_something(name):  # typed, but nothing that shows (the empty string included)
        raise InputError(N_("Please type a name with letters or digits: blank and invisible characters do not show."))
    if names.stacked_marks(name):
        raise InputError(N_("Please type your name without extra marks piled on its letters."))
    if len(name) > NAME_MAX:
        raise InputError(N_("Names can be at most {n} characters.").format(n=NAME_MAX))
    return name


def name_key(name: str) -> str:
    """Two names that look the same to a class count as the same name."""
    return names.skeleton(name)


POLITE_REFUSALS = {
    "name": N_("Please choose a different name: that one might upset someone."),
    "note": N_("Please write your note another way: some of its words might upset someone."),
    "text": N_("Please write that another way: some of its words might upset someone."),
}


def check_polite(text: str, kind: str = "name") -> None:
    """The one filter of text students type that others see (a name, a note, a game's
    free text; DESIGN.md "Text students type"), used when the table or class asks:
    refuse rude text kindly and without repeating it."""
    if names.rude(text, sentence=kind != "name"):
        raise InputError(POLITE_REFUSALS[kind])


# A lone UTF-16 surrogate ("\ud800" in JSON) decodes to a str no database (nor
# hashlib, nor orjson) can encode as UTF-8: the fuzz test got "unhandled error"s from it.
_SURROGATE = re.compile("[\ud800-\udfff]")


def has_nul(value) -> bool:
    """A NUL character (or a lone surrogate) anywhere in a JSON-like value. PostgreSQL
    refuses NUL in text and no database stores a lone surrogate, so every entry point
    turns such text away as bad input before it gets that far."""
    stack = [value]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            # isascii() is a flag CPython keeps: most text skips the search.
            if "\x00" in x or (not x.isascii() and _SURROGATE.search(x)):
                return True
        elif isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
    return False


def clean_note(raw) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise InputError(N_("A note needs some text."))
    if "\x00" in raw:
        raise InputError(N_("A note cannot contain a NUL character."))
    text = raw.strip()
    if len(text) > NOTE_MAX:
        raise InputError(N_("Notes can be at most {n} characters.").format(n=NOTE_MAX))
    return text


def json_body(message: str = N_("Send a JSON object.")) -> dict:
    """The request's JSON object, or a `bad_request` ServiceError: every HTTP entry point
    reads its body through here, so none forgets the NUL/surrogate check above."""
    from flask import request

    from app.errors import ServiceError

    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise ServiceError("bad_request", message)
    if has_nul(body):
        raise ServiceError("bad_request", N_("Text cannot contain a NUL character or broken Unicode."))
    return body
