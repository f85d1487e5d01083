"""CSRF tokens: every change a login cookie authorises carries the session's token.

A browser sends the session cookie with any request, even one another site's page
makes it send, so a change that relies on the cookie must also prove it came from
one of our pages: forms carry the token in a `csrf` field, the pages' fetch calls
in an `X-CSRF-Token` header (the class overview reads it from a <meta> tag).
Requests authorised by a Bearer token or by a secret in their body need none.
"""
from __future__ import annotations

import hmac
import secrets

from flask import abort, session
from app.engines.text import N_

EXPIRED = N_("The page expired. Go back, reload the page and try again.")


def csrf_token() -> str:
    """This session's token, made on first use (pages embed it)."""
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(24)
    return session["csrf"]


def check_csrf(sent) -> None:
    """Refuse the request (400) unless `sent` is this session's token. Compared as
    bytes: hmac.compare_digest raises TypeError on a str with non-ASCII characters,
    and a token nobody issued (any text a client likes) must be a refusal, not a 500."""
    expected = session.get("csrf")
    if not isinstance(sent, str) or not isinstance(expected, str) or not expected \
            or not hmac.compare_digest(sent.encode("utf-8", "surrogatepass"), expected.encode("utf-8")):
        abort(400, EXPIRED)
