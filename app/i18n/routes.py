"""/i18n/<lang>.js: the browser modules' translations (static/js/i18n.js reads them).

The same catalogs as the server's pages, narrowed to the entries found in JavaScript
(their locations name a .js file), so a phone loads a few kilobytes, once, cached.
"""
from __future__ import annotations

import functools
import gettext
import hashlib
from pathlib import Path

from babel import Locale
from babel.messages.pofile import read_po
from flask import Blueprint, abort, request

from app import i18n
from app.wire import dumps_compact

bp = Blueprint("i18n", __name__, url_prefix="/i18n")


def _catalog_files(lang: str) -> list[Path]:
    files = [i18n.platform_catalog(lang) or i18n.PLATFORM_TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po"]
    files += [folder / lang / "LC_MESSAGES" / f"{domain}.po" for folder, domain in i18n.game_directories()]
    return [f for f in files if f.is_file()]


def plural_forms(lang: str, expression: str) -> dict[str, int]:
    """Which of the catalog's plural forms each CLDR plural category takes ({"one": 0,
    "many": 1, "other": 2} in Spanish). The browser asks Intl.PluralRules for the category:
    the page's policy forbids evaluating the catalog's C expression there."""
    rule = gettext.c2py(expression)
    categories = Locale.parse(lang).plural_form
    forms: dict[str, int] = {}
    for n in [*range(0, 1000), 10 ** 6, 2 * 10 ** 6]:
        forms.setdefault(categories(n), rule(n))
    return forms


@functools.cache
def script(lang: str) -> tuple[str, str]:
    """(the script, its ETag) for `lang`."""
    messages: dict[str, object] = {}
    plural = "n != 1"
    for path in _catalog_files(lang):
        with path.open("rb") as f:
            catalog = read_po(f, locale=lang)
        plural = catalog.plural_expr or plural
        for message in catalog:
            if not message.id or message.fuzzy or not any(str(loc[0]).endswith(".js") for loc in message.locations):
                continue
            if isinstance(message.id, (list, tuple)):
                if all(message.string):
                    messages.setdefault(message.id[0], list(message.string))
            elif message.string:
                messages.setdefault(message.id, message.string)
    body = "window.CG_I18N = " + dumps_compact({"lang": lang, "forms": plural_forms(lang, plural),
                                                 "messages": messages}) + ";\n"
    return body, hashlib.blake2b(body.encode(), digest_size=8).hexdigest()


@bp.get("/<lang>.js")
def catalog(lang: str):
    if i18n.known(lang) != lang:
        abort(404)
    body, etag = script(lang)
    if request.if_none_match.contains(etag):
        return "", 304
    return body, 200, {"Content-Type": "text/javascript; charset=utf-8", "ETag": f'"{etag}"',
                       "Cache-Control": "public, max-age=300"}


@bp.post("/use")
def use():
    """A student's pick of language on the phone (the picker's form): kept in a cookie for a
    year, so reloads and later games keep it; back to the page the form was on."""
    from flask import redirect

    from app.edge.csrf import check_csrf

    check_csrf(request.form.get("csrf"))  # another site's page may not switch a student's language
    lang = i18n.known(request.form.get("lang"))
    target = request.form.get("next") or "/"
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        target = "/"  # never off the site
    response = redirect(target, code=303)
    if lang:
        response.set_cookie(i18n.COOKIE, lang, max_age=365 * 24 * 3600, samesite="Lax", httponly=True,
                            secure=bool(request.is_secure))
    return response
