"""Spanish content files (issue 23): every app/engines/<game>/data/es/<name>.json
is an exact copy of the English data/<name>.json with the person-readable
strings translated.

The translation layer maps a finished English text to its Spanish one, so for
each file beside an English one this checks that:

* the structure is identical: same keys, same list lengths and order, the same
  numbers, booleans and nulls;
* every identifier-like string (ids, kinds, tags, ops, risks: ^[a-z0-9_\\-.]+$)
  is unchanged, except under the keys in TEXT_KEYS, whose values are always
  text even when they are one lowercase word (the Wizard's "occupation": "weaver");
* no person-readable English string is left as it was, unless it is a proper
  name listed in SAME_ALLOWED (a string with no run of two lowercase letters,
  such as "0 °C", "2" or "BMP", needs no translation);
* a translated string keeps every {field} of the English one and has no common
  English word left in it;
* within a game, one English string never gets two different Spanish strings.

The files are discovered, so a game's Spanish data is covered as soon as it is
added. Pure file checks: no app, no database.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ENGINES = Path(__file__).resolve().parents[1] / "app" / "engines"

IDENT = re.compile(r"^[a-z0-9_\-.]+$")
NEEDS_WORDS = re.compile(r"[a-z]{2}")        # a run of two lowercase letters: a word to translate
FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
# Common English words that a Spanish text never contains (whole words, any case).
ENGLISH_WORDS = frozenset({"the", "and", "with", "your", "you", "of", "is", "are", "this", "that",
                           "from", "when", "which", "what", "about", "into", "their", "they"})

# Keys whose values are person-readable even when they look like an identifier.
TEXT_KEYS = frozenset({"occupation"})

# Proper names and the like that read the same in Spanish, by game ("*" = any game).
SAME_ALLOWED: dict[str, frozenset[str]] = {
    "*": frozenset(),
    "water_cycle": frozenset({"NEWater", "Hong Kong", "Johor", "Tuas", "Bedok", "Kranji"}),
    "wizard": frozenset({"Apa Nochis", "Sarapion"}),
    # War's computer opponents are player names, which are never translated (glossary-es.md).
    "war": frozenset({"Moss", "Nova", "Pip", "Quill", "Rook", "Vale"}),
}


def _pairs() -> list[tuple[str, Path, Path]]:
    pairs = []
    for es in sorted(ENGINES.glob("*/data/es/*.json")):
        game = es.parents[2].name
        english = es.parents[1] / es.name
        if not english.is_file():  # the package's own file: its ruling catalogue (rulings.json)
            english = es.parents[2] / es.name
        pairs.append((game, english, es))
    return pairs


PAIRS = _pairs()


def _ids(pairs):
    return [f"{game}/{es.name}" for game, _, es in pairs]


def _load(path: Path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def _walk(en, es, where: str, out: list, problems: list, key: str = "") -> None:
    """Compare en and es recursively; collect (where, key, en, es) for every string."""
    if isinstance(en, dict):
        if not isinstance(es, dict):
            problems.append(f"{where}: an object in English, {type(es).__name__} in Spanish")
            return
        if list(en) != list(es):
            missing = [k for k in en if k not in es]
            extra = [k for k in es if k not in en]
            if missing or extra:
                problems.append(f"{where}: keys differ (missing {missing}, extra {extra})")
                return
            problems.append(f"{where}: keys in a different order")
        for key in en:
            _walk(en[key], es[key], f"{where}.{key}", out, problems, key)
    elif isinstance(en, list):
        if not isinstance(es, list):
            problems.append(f"{where}: a list in English, {type(es).__name__} in Spanish")
            return
        if len(en) != len(es):
            problems.append(f"{where}: {len(en)} items in English, {len(es)} in Spanish")
            return
        for i, (a, b) in enumerate(zip(en, es)):
            _walk(a, b, f"{where}[{i}]", out, problems, key)
    elif isinstance(en, str):
        if not isinstance(es, str):
            problems.append(f"{where}: a string in English, {es!r} in Spanish")
            return
        out.append((where, key, en, es))
    elif type(en) is not type(es) or en != es:
        problems.append(f"{where}: {en!r} in English, {es!r} in Spanish")


def _is_identifier(key: str, text: str) -> bool:
    return bool(IDENT.match(text)) and key not in TEXT_KEYS


def _string_problems(game: str, where: str, key: str, en: str, es: str) -> list[str]:
    allowed = SAME_ALLOWED["*"] | SAME_ALLOWED.get(game, frozenset())
    if _is_identifier(key, en):
        return [] if es == en else [f"{where}: the identifier {en!r} became {es!r}"]
    if es == en:
        if NEEDS_WORDS.search(en) and en not in allowed:
            return [f"{where}: not translated: {en!r}"]
        return []
    problems = []
    if not es.strip():
        problems.append(f"{where}: empty translation of {en!r}")
    if sorted(FIELD.findall(en)) != sorted(FIELD.findall(es)):
        problems.append(f"{where}: the fields of {en!r} are not kept in {es!r}")
    left = sorted({w for w in re.findall(r"[A-Za-z]+", es) if w.lower() in ENGLISH_WORDS})
    if left:
        problems.append(f"{where}: English word(s) {left} left in {es!r}")
    return problems


def test_spanish_files_are_found():
    assert PAIRS, "no app/engines/*/data/es/*.json found"


@pytest.mark.parametrize(("game", "en_path", "es_path"), PAIRS, ids=_ids(PAIRS))
def test_spanish_file_mirrors_the_english_one(game, en_path, es_path):
    assert en_path.exists(), f"{es_path} has no English file {en_path.name} beside it"
    strings, problems = [], []
    _walk(_load(en_path), _load(es_path), es_path.name, strings, problems)
    for where, key, en, es in strings:
        problems.extend(_string_problems(game, where, key, en, es))
    assert not problems, f"{len(problems)} problem(s):\n" + "\n".join(problems[:40])


@pytest.mark.parametrize("game", sorted({g for g, _, _ in PAIRS}))
def test_one_english_string_one_spanish_string_per_game(game):
    seen: dict[str, tuple[str, str]] = {}
    problems = []
    for g, en_path, es_path in PAIRS:
        if g != game or not en_path.exists():
            continue
        strings = []
        _walk(_load(en_path), _load(es_path), es_path.name, strings, [])
        for where, key, en, es in strings:
            if _is_identifier(key, en):
                continue
            if en in seen and seen[en][1] != es:
                problems.append(f"{en!r}: {seen[en][1]!r} at {seen[en][0]}, {es!r} at {where}")
            seen.setdefault(en, (where, es))
    assert not problems, f"{len(problems)} English string(s) with two translations:\n" + "\n".join(problems[:40])
