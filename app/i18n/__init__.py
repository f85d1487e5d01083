"""Languages: which one a reader gets, and the texts in it.

The catalogs are GNU gettext's, run by Flask-Babel: the platform's in
app/translations/<lang>/LC_MESSAGES/messages.po, each game's in its own package,
app/engines/<key>/translations/<lang>/LC_MESSAGES/<key>.po (scripts/i18n extracts,
updates and compiles them). A game's content (cards, trivia, spells) is translated in
data files beside the English ones, app/engines/<key>/data/<lang>/<file>.json.

Who reads which language:
- a phone: the language its student picked on the phone (the `cg_lang` cookie), else the
  browser's (Accept-Language), else English; the seat remembers it (`Seat.language`), so
  every view built for that seat, in any process, is in it;
- the projected board and the class board: the language the teacher chose for the table
  or the class;
- the students' copy of a debrief: the table's board language (app/reports);
- the teacher's pages: English for now (nothing assumes it).

The engines write English, their log being the game's record (DESIGN). A payload is
translated for its reader as it leaves the service (`localize_payload`), by
`Localizer`: a text the catalogs hold as it is, or one built from a template of them
("{name} reveals {card}."), whose fields are translated in turn.
"""
from __future__ import annotations

import functools
import os
from pathlib import Path

from app.i18n.localizer import Localizer

PLATFORM_TRANSLATIONS = Path(__file__).resolve().parent.parent / "translations"
DEFAULT = "en"
COOKIE = "cg_lang"
# More languages kept outside the package (app.config["EXTRA_TRANSLATIONS"], the env var of
# the same name: a list of folders, os.pathsep-separated): each root holds
# translations/<lang>/LC_MESSAGES/messages.po and, per game, <key>/translations/<lang>/
# LC_MESSAGES/<key>.po and <key>/data/<lang>/*.json (the pseudo-locale, app/i18n/pseudo.py).
EXTRA_ROOTS: list[Path] = []


def set_extra_roots(roots) -> None:
    """Read languages from these roots too (besides the package's own catalogs)."""
    if isinstance(roots, (str, Path)):
        roots = [r for r in str(roots).split(os.pathsep) if r]
    roots = [Path(r) for r in roots or ()]
    if roots == EXTRA_ROOTS:
        return  # the same languages: the catalogs read stay read (every test makes an app)
    EXTRA_ROOTS[:] = roots
    languages.cache_clear()
    localizer.cache_clear()
    from app.i18n import routes
    routes.script.cache_clear()


def platform_catalog(lang: str) -> Path | None:
    """The platform's catalog (.po) of `lang`: the package's, else an extra root's."""
    for folder in (PLATFORM_TRANSLATIONS, *(r / "translations" for r in EXTRA_ROOTS)):
        if (folder / lang / "LC_MESSAGES" / "messages.po").is_file():
            return folder / lang / "LC_MESSAGES" / "messages.po"
    return None


@functools.cache
def languages() -> tuple[str, ...]:
    """English and every language the platform's catalog has, e.g. ("en", "es")."""
    found = set()
    for folder in (PLATFORM_TRANSLATIONS, *(r / "translations" for r in EXTRA_ROOTS)):
        if folder.is_dir():
            found |= {p.name for p in folder.iterdir() if (p / "LC_MESSAGES" / "messages.po").is_file()}
    return (DEFAULT, *sorted(lang for lang in found if lang != DEFAULT))


# Each language's own name, for the pickers.
NAMES = {"en": "English", "es": "Español"}


def choices() -> list[dict]:
    return [{"code": lang, "name": NAMES.get(lang, lang)} for lang in languages()]


def known(lang) -> str | None:
    """`lang` when it is a language we speak ("es", "es-MX" -> "es"), else None."""
    if not isinstance(lang, str) or not lang:
        return None
    base = lang.strip().lower().replace("_", "-").split("-")[0]
    return base if base in languages() else None


def board_language(language) -> str:
    """A table's or class's board language as the teacher chose it; refused when unknown."""
    from app.errors import ServiceError

    if language in (None, ""):
        return DEFAULT
    if known(language) != language:
        raise ServiceError("bad_request", f"language must be one of: {', '.join(languages())}.")
    return language


def from_request(request, *, stated=None) -> str:
    """A phone's language: `stated` (what its page says it speaks), the student's pick
    (the cookie), else the browser's best match, else English."""
    for candidate in (stated, request.cookies.get(COOKIE)):
        if known(candidate):
            return known(candidate)
    best = request.accept_languages.best_match(languages())
    return best or DEFAULT


def game_directories() -> list[tuple[Path, str]]:
    """(translations folder, domain) of every installed game that has catalogs."""
    from app import engines

    out = []
    for key in engines.keys():
        folder = Path(engines.get(key).__file__).resolve().parent / "translations"
        for candidate in (folder, *(r / key / "translations" for r in EXTRA_ROOTS)):
            if candidate.is_dir():
                out.append((candidate, key))
    return out


@functools.cache
def localizer(lang: str, game: str | None = None) -> Localizer | None:
    """The translator of English texts into `lang` for pages of `game` (None: the platform's
    texts only); None for English."""
    if lang == DEFAULT or lang not in languages():
        return None
    from app import engines

    catalogs = [platform_catalog(lang)]
    data = translated = None
    if game:
        try:
            package = Path(engines.get(game).__file__).resolve().parent
        except Exception:  # noqa: BLE001 - an unknown game: the platform's texts only
            package = None
        if package is not None:
            found = [folder / lang / "LC_MESSAGES" / f"{game}.po" for folder, key in game_directories() if key == game]
            catalogs[:0] = [p for p in found if p.is_file()][:1]
            data = package / "data"
            translated = next((d for d in (data / lang, *(r / game / "data" / lang for r in EXTRA_ROOTS))
                               if d.is_dir()), None)
    return Localizer(lang, [p for p in catalogs if p is not None and p.is_file()], data_folder=data,
                     translated_folder=translated)


def localize(text, lang: str, game: str | None = None):
    """`text` (English) for a reader of `lang`."""
    tr = localizer(lang, game) if lang and lang != DEFAULT else None
    return tr.text(text) if tr is not None and isinstance(text, str) else text


def localize_payload(payload: dict, lang: str, game: str | None, keep=frozenset()) -> dict:
    """A view payload for a reader of `lang`: its texts translated, everything a client
    sends back (the actions' fields but their labels, ids, keys) untouched; `keep`: more
    keys whose values stay as they are (a report's names, its chart)."""
    tr = localizer(lang, game) if lang and lang != DEFAULT else None
    return payload if tr is None else tr.payload(payload, keep=frozenset(keep))


def init_app(app) -> None:
    """Flask-Babel for the pages (templates' _() and ngettext), with every game's catalog
    merged into the platform's; `page_lang` in every template; /i18n/<lang>.js."""
    from flask import g, has_request_context, request
    from flask_babel import Babel

    set_extra_roots(app.config.get("EXTRA_TRANSLATIONS"))
    dirs = [(PLATFORM_TRANSLATIONS, "messages"), *((r / "translations", "messages") for r in EXTRA_ROOTS
                                                   if (r / "translations").is_dir()), *game_directories()]
    app.config["BABEL_TRANSLATION_DIRECTORIES"] = ";".join(str(d) for d, _domain in dirs)
    app.config["BABEL_DOMAIN"] = ";".join(domain for _d, domain in dirs)

    def select() -> str:
        chosen = getattr(g, "page_lang", None)  # a board's page: the table's or the class's language
        if chosen or not has_request_context():  # a report made by a job: English unless forced
            return chosen or DEFAULT
        return from_request(request)

    Babel(app, locale_selector=select)

    @app.context_processor
    def _page_language():
        if not has_request_context():  # a report rendered by a job: its own language, if any
            return {"page_lang": DEFAULT, "languages": choices()}
        return {"page_lang": getattr(g, "page_lang", None) or from_request(request), "languages": choices()}

    from app.i18n.routes import bp
    app.register_blueprint(bp)
