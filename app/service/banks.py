"""Teachers' uploaded content banks (a game's `GameSpec.uploads`).

A game declares what a teacher may upload (say, a file of quiz questions) with an
`Upload`: its kind, the option it fills and a `parse(text) -> (items, errors)`.
This service decodes an uploaded file, lets the game parse it, refuses a file
with any error whole (every error listed by line, line 0 being the whole file),
and keeps a good one per teacher as a `ContentBank`. When the teacher creates a
table or a class with a bank, `with_banks` loads its items (the bank must be
this teacher's, for this game and kind) into options[upload.option].

An upload may declare that its items carry a language (`Upload.languages`: an
item's "language" is a base code such as "es", or None for any language). Its
parser is then told the codes the app has (app.i18n.languages()), and a table or
class gets only the items in its board language plus the language-less ones;
when that leaves fewer than the game needs (`Upload.min_items`) it gets the whole
bank, and the teacher is told so (`with_banks`'s `notes`, flashed by the pages).

No game is named here: everything comes from the registry's specs.
"""
from __future__ import annotations

import logging
import unicodedata

from sqlmodel import Session, select

from app import engines, i18n
from app.edge.security import has_nul
from app.engines.contract import IllegalAction, Upload
from app.errors import ServiceError
from app.store.db import row_id
from app.store.models import ContentBank
from app.engines.text import N_

BANK_NAME_MAX = 80
BANKS_PER_TEACHER = 200   # per game and kind: enough for years of lessons
FILE_LINE = 0             # the line number of a problem with the file as a whole
LANGUAGE = "language"     # an item's language, when its Upload declares `languages`

log = logging.getLogger(__name__)


class UploadRefused(ServiceError):
    """A file refused whole; `errors` lists every problem as (line, reason)."""

    def __init__(self, errors: list[tuple[int, str]], message: str = N_("The file was not saved.")):
        super().__init__("bad_request", message)
        self.errors = sorted(((int(line), str(reason)) for line, reason in errors), key=lambda e: e[0])


def clean_bank_name(raw) -> str:
    """A bank's name: plain text on one line, 1 to BANK_NAME_MAX characters."""
    if not isinstance(raw, str):
        raise ServiceError("bad_request", N_("Give the bank a name."))
    if has_nul(raw):
        raise ServiceError("bad_request", N_("The name may not contain a NUL character."))
    name = unicodedata.normalize("NFC", " ".join(raw.split()))
    if any(unicodedata.category(ch)[0] == "C" for ch in name):
        raise ServiceError("bad_request", N_("The name may not contain control characters."))
    if "<" in name or ">" in name:
        raise ServiceError("bad_request", N_("The name may not contain < or > (HTML is not allowed)."))
    if not name:
        raise ServiceError("bad_request", N_("Give the bank a name."))
    if len(name) > BANK_NAME_MAX:
        raise ServiceError("bad_request", f"Names can be at most {BANK_NAME_MAX} characters.")
    return name


def decode(data: bytes, upload: Upload) -> str:
    """The file as text: UTF-8, a leading byte-order mark dropped. Anything else is refused."""
    if not isinstance(data, (bytes, bytearray)) or not data:
        raise UploadRefused([(FILE_LINE, "the file is empty (choose a file to upload)")])
    if len(data) > upload.max_bytes:
        raise UploadRefused([(FILE_LINE, f"the file is larger than {upload.max_bytes // 1000} kB")])
    try:
        text = bytes(data).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise UploadRefused([(FILE_LINE, "the file is not UTF-8 text (the first character that is not is on "
                                         f"line {line}): in your spreadsheet choose Save as \u2192 \u201cCSV UTF-8\u201d")])
    if "\x00" in text:
        raise UploadRefused([(FILE_LINE, "the file contains a NUL byte: it is not a text file")])
    return text


def upload_of(game: str, kind: str) -> Upload:
    try:
        spec = engines.spec(game)
    except IllegalAction as exc:
        raise ServiceError("bad_request", exc.message)
    upload = spec.upload(kind) if isinstance(kind, str) else None
    if upload is None:
        raise ServiceError("bad_request", f"{spec.title} takes no uploads of that kind.")
    return upload


def item_language(item) -> str | None:
    """An item's language (a base code), or None when it suits any language."""
    return item.get(LANGUAGE) if isinstance(item, dict) and isinstance(item.get(LANGUAGE), str) else None


def by_language(items) -> list[tuple[str | None, str, int]]:
    """How many items a bank holds per language: (code or None, the language's name, count),
    the app's languages first in their order, then any others, the language-less last."""
    counts: dict = {}
    for item in items or ():
        lang = item_language(item)
        counts[lang] = counts.get(lang, 0) + 1
    order = {lang: n for n, lang in enumerate(i18n.languages())}
    keys = sorted(counts, key=lambda lang: (lang is None, order.get(lang, len(order)), lang or ""))
    return [(lang, i18n.NAMES.get(lang, lang) if lang else "Any language", counts[lang]) for lang in keys]


def in_language(items: list, language: str | None, minimum: int = 1) -> tuple[list, bool]:
    """The items for a table in `language`: those in it plus the language-less ones,
    (items, True); or every item, (items, False), when that leaves fewer than `minimum`
    (or `language` is None: not known, so nothing is left out)."""
    items = list(items)
    if language is None:
        return items, True
    kept = [item for item in items if item_language(item) in (None, language)]
    if len(kept) < max(1, minimum):
        return items, False
    return kept, True


def uploads() -> list[tuple[dict, Upload]]:
    """Every game that takes uploads, with each of its Upload declarations."""
    return [(game, upload) for game in engines.games() for upload in engines.spec(game["key"]).uploads]


class BankService:
    def __init__(self, db):
        self.db = db

    def _session(self) -> Session:
        return Session(self.db, expire_on_commit=False)

    # ------------------------------------------------------------ reading
    def banks_of(self, facilitator_id: int, game: str | None = None, kind: str | None = None) -> list[ContentBank]:
        """A teacher's banks, newest first (optionally of one game and kind)."""
        query = select(ContentBank).where(ContentBank.facilitator_id == facilitator_id)
        if game is not None:
            query = query.where(ContentBank.game == game)
        if kind is not None:
            query = query.where(ContentBank.kind == kind)
        with self._session() as s:
            return list(s.exec(query.order_by(ContentBank.created_at.desc(), ContentBank.id.desc())).all())

    def owned(self, facilitator_id: int, bank_id) -> ContentBank:
        """The bank if it is this teacher's; another teacher's bank is as unknown as a missing one."""
        try:
            bank_id = int(bank_id)
        except (TypeError, ValueError):
            raise ServiceError("bad_request", N_("Choose one of your banks."))
        with self._session() as s:  # an id no row can have is as unknown as a missing one
            bank = s.get(ContentBank, bank_id) if row_id(bank_id) is not None else None
        if bank is None or bank.facilitator_id != facilitator_id:
            raise ServiceError("forbidden", N_("That bank does not exist or is not yours."))
        return bank

    # ------------------------------------------------------------ writing
    def create(self, facilitator_id: int, game: str, kind: str, name, data: bytes) -> ContentBank:
        """Decode, parse and store a file; UploadRefused (nothing stored) on any problem."""
        upload = upload_of(game, kind)
        name = clean_bank_name(name)
        text = decode(data, upload)
        try:
            items, errors = (upload.parse(text, languages=i18n.languages()) if upload.languages
                             else upload.parse(text))
        except Exception as exc:  # noqa: BLE001  (a parser bug must not store a half-read file)
            raise UploadRefused([(FILE_LINE, f"the file could not be read ({type(exc).__name__})")])
        if errors:
            raise UploadRefused(list(errors))
        if not items:
            raise UploadRefused([(FILE_LINE, f"the file holds no {upload.noun}")])
        if has_nul(items):
            raise UploadRefused([(FILE_LINE, "the file contains a NUL byte")])
        if len(self.banks_of(facilitator_id, game, kind)) >= BANKS_PER_TEACHER:
            raise ServiceError("bad_request", f"You have {BANKS_PER_TEACHER} banks for this game already: "
                                              "delete one first.")
        bank = ContentBank(facilitator_id=facilitator_id, game=game, kind=kind, name=name,
                           items=list(items), count=len(items))
        with self._session() as s:
            s.add(bank)
            s.commit()
            s.refresh(bank)
        return bank

    def delete(self, facilitator_id: int, bank_id) -> ContentBank:
        """Delete a teacher's bank. Tables already created with it keep their copy."""
        bank = self.owned(facilitator_id, bank_id)
        with self._session() as s:
            row = s.get(ContentBank, bank.id)
            if row is not None:
                s.delete(row)
                s.commit()
        return bank

    # ------------------------------------------------------------ using
    def with_banks(self, facilitator_id: int, game: str, options: dict, chosen: dict, *,
                   language: str | None = None, notes: list | None = None) -> dict:
        """`options` plus, for each of the game's uploads, the chosen bank's items.

        `chosen` maps an upload's kind to a bank id, or to None / "" for the game's
        own content (the option keeps its default). The bank must be this teacher's
        and made for this game and kind. `language` is the table's or class's board
        language: an upload whose items carry a language gives only those in it and
        the language-less ones, or the whole bank when too few are left, which is
        said in a sentence for the teacher appended to `notes` (and logged).
        """
        lang = i18n.known(language) if language else None
        options = dict(options or {})
        try:
            spec = engines.spec(game)
        except IllegalAction as exc:
            raise ServiceError("bad_request", exc.message)
        for kind, bank_id in (chosen or {}).items():
            upload = spec.upload(kind)
            if upload is None:
                raise ServiceError("bad_request", f"{spec.title} takes no uploads of that kind.")
            if bank_id in (None, ""):
                options.pop(upload.option, None)
                continue
            bank = self.owned(facilitator_id, bank_id)
            if bank.game != game or bank.kind != kind:
                raise ServiceError("bad_request", f"That bank is not made of {upload.title.lower()} "
                                                  f"for {spec.title}.")
            items = list(bank.items)
            if upload.languages:
                items, fits = in_language(items, lang, upload.min_items)
                if not fits:
                    note = (f"Too few {upload.noun} in \u201c{bank.name}\u201d are in "
                            f"{i18n.NAMES.get(lang, lang)} or have no language, so all {len(items)} "
                            f"of its {upload.noun} are used.")
                    log.info("bank %s for a %s table: %s", bank.id, lang, note)
                    if notes is not None:
                        notes.append(note)
            options[upload.option] = items
        return options
