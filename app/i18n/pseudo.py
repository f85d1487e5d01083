"""A pseudo-locale: every text of every catalog and content file, accented, about a third
longer and bracketed ("[Ŵåîţîñĝ ƒöŕ {name}. ·····]"), its {fields}, %(x)s and markup
kept as they are. Run against the app it shows at a glance (and tests/test_pseudo_locale.py
finds) any English a reader still gets: a string never marked, a field not translated,
a page that builds a sentence itself; the longer texts show where a layout breaks.

It is written into a root of its own, never into the package (the pickers would list it):

    <root>/translations/<lang>/LC_MESSAGES/messages.po|.mo       the platform's
    <root>/<key>/translations/<lang>/LC_MESSAGES/<key>.po|.mo    each game's
    <root>/<key>/data/<lang>/<file>.json                         each game's content

and the app reads it when told to (EXTRA_TRANSLATIONS, app/i18n `set_extra_roots`).
That is exactly what a real language is made of: catalogs and data files, nothing else.

The msgids are read from the catalogs of a language the package already has (Spanish):
`bash scripts/i18n` keeps every catalog up to date with the code before this runs. The
code is "eo" (Babel knows no private-use code such as "qps"; Esperanto is one we do not ship).

    python -m app.i18n.pseudo <root> [--lang eo]     (bash scripts/i18n pseudo <root>)
"""
from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

PSEUDO_LANG = "eo"
ACCENTS = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "åƀçðéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÅƁÇÐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ")
# What a translation must keep as it is: {fields}, printf fields, markup, entities.
VERBATIM = re.compile(r"\{\w*\}|%\(\w+\)[sdifr]|%[sdif%]|<[^>]*>|&#?\w+;")
PAD = "·"
# Content strings that are not texts: ids, kinds, tags (as tests/test_content_es.py sees them).
IDENT = re.compile(r"^[a-z0-9_\-.]+$")
TEXT_KEYS = frozenset({"occupation"})


def pseudo(text: str) -> str:
    """`text` accented, padded to ~135 % and bracketed; its fields and markup verbatim."""
    if not text:
        return text
    out, at = [], 0
    for match in VERBATIM.finditer(text):
        out.append(text[at:match.start()].translate(ACCENTS))
        out.append(match.group(0))
        at = match.end()
    out.append(text[at:].translate(ACCENTS))
    # The padding comes as words of up to 8 (a long text's padding in one piece would be a
    # word no language has, which no layout can wrap).
    pad = max(1, math.ceil(len(text) * 0.35) - 3)
    words = [PAD * min(8, pad - at) for at in range(0, pad, 9)]
    return "[" + "".join(out) + " " + " ".join(words) + "]"


def is_pseudo(text: str) -> bool:
    return "[" in text and PAD in text


def _catalogs() -> list[tuple[Path, str]]:
    """(translations folder, domain) of the platform and every game in the package."""
    from app import engines
    from app.i18n import PLATFORM_TRANSLATIONS

    found = [(PLATFORM_TRANSLATIONS, "messages")]
    for key in engines.keys():
        folder = Path(engines.get(key).__file__).resolve().parent / "translations"
        if folder.is_dir():
            found.append((folder, key))
    return found


def _source(folder: Path, domain: str, lang: str) -> Path | None:
    """A catalog of `domain` in some language other than English and `lang`: its msgids."""
    for po in sorted(folder.glob(f"*/LC_MESSAGES/{domain}.po")):
        if po.parents[1].name not in ("en", lang):
            return po
    return None


def pseudo_catalog(source: Path, lang: str) -> Catalog:
    with source.open("rb") as f:
        template = read_po(f)
    catalog = Catalog(locale=lang, domain=template.domain, project=template.project, fuzzy=False)
    forms = catalog.num_plurals
    for message in template:
        if not message.id:
            continue
        if isinstance(message.id, (list, tuple)):
            string = tuple(pseudo(message.id[min(i, 1)]) for i in range(forms))
        else:
            string = pseudo(message.id)
        catalog.add(message.id, string, locations=message.locations, flags=set(message.flags) - {"fuzzy"},
                    auto_comments=message.auto_comments, context=message.context)
    return catalog


def pseudo_content(value, key: str | None = None):
    """A content file's copy: every text pseudo, its ids, keys and numbers as they are."""
    if isinstance(value, dict):
        return {k: pseudo_content(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [pseudo_content(v, key) for v in value]
    if isinstance(value, str) and (key in TEXT_KEYS or not IDENT.match(value)):
        return pseudo(value)
    return value


def write(root, lang: str = PSEUDO_LANG) -> list[Path]:
    """Write the pseudo-locale `lang` into `root`; the files written."""
    root = Path(root)
    written = []
    for folder, domain in _catalogs():
        source = _source(folder, domain, lang)
        if source is None:
            continue
        target = (root / "translations" if domain == "messages" else root / domain / "translations")
        target = target / lang / "LC_MESSAGES"
        target.mkdir(parents=True, exist_ok=True)
        catalog = pseudo_catalog(source, lang)
        with (target / f"{domain}.po").open("wb") as f:
            write_po(f, catalog, width=0)
        with (target / f"{domain}.mo").open("wb") as f:
            write_mo(f, catalog)
        written += [target / f"{domain}.po", target / f"{domain}.mo"]
        if domain == "messages":
            continue
        # The game's content: the same files a translated language copies (those in data/<other>/).
        data = folder.parent / "data"
        model = source.parents[1].name
        for copy in sorted((data / model).glob("*.json")) if (data / model).is_dir() else []:
            english = data / copy.name if (data / copy.name).is_file() else folder.parent / copy.name
            out = root / domain / "data" / lang / copy.name
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(pseudo_content(json.loads(english.read_text("utf-8"))),
                                      ensure_ascii=False, indent=1) + "\n", "utf-8")
            written.append(out)
    return written


def main(argv: list[str]) -> int:
    args = list(argv)
    lang = PSEUDO_LANG
    if "--lang" in args:
        at = args.index("--lang")
        lang = args[at + 1]
        del args[at:at + 2]
    if len(args) != 1:
        print("usage: python -m app.i18n.pseudo <root> [--lang eo]", file=sys.stderr)
        return 2
    files = write(args[0], lang)
    print(f"pseudo-locale {lang!r}: {len(files)} files in {args[0]}; run the app with "
          f"EXTRA_TRANSLATIONS={Path(args[0]).resolve()} and pick {lang!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
