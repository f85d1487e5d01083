"""English texts into another language, from gettext catalogs and translated data files.

An engine's sentences are finished English strings built from marked templates
(app/engines/text.py). To translate one we find the catalog entry it was built from:
the whole text as a msgid, else a template whose literal parts match it, with its
{fields} taken from the text. Each field's value is translated in turn (a card's name
is a catalog or data text; a student's name is not, and stays as it is). A plural
entry ("{n} card" / "{n} cards") picks the language's form by its number field.

Content data: app/engines/<game>/data/<lang>/<file>.json is a copy of the English file
with its readable strings translated; walking both side by side gives English -> text
pairs for the exact look-up.

Results are cached: a game repeats its labels and names at every change.
"""
from __future__ import annotations

import gettext
import json
import re
from collections import OrderedDict
from pathlib import Path

from babel.messages.pofile import read_po

from app.engines.text import N_

FIELD = re.compile(r"\{(\w+)\}")
# A list an engine joined ("Ana, Ben and Cara", "Rain, Snow"): its items are translated
# one by one and joined with the language's word.
LIST_AND = N_("and")
LIST_SPLIT = re.compile(r", | and ")
IDENTIFIER = re.compile(r"^[a-z0-9_\-.]+$")
CACHE_MAX = 20_000
# Payload keys whose values a client sends back or matches on: never translated.
KEEP = frozenset({"t", "gender", "id", "key", "type", "kind", "code", "token", "game", "status", "seat", "phase", "op",
                  "risk", "tags", "tag", "power", "card", "cards", "value", "answer", "choice", "mode",
                  "lang", "cause", "result_key", "icon", "shape", "suit", "rank", "url", "href"})
# In an action, only these are for reading; the rest is the move itself.
# Fields that hold a number in every template (a count, a score, a die): matched as digits,
# so that "{name} {attack} against {villager} {defense}" splits a two-word name right.
NUMBER_FIELDS = frozenset({
    "n", "count", "defense", "attack", "willpower", "strength", "needed", "hp", "d1", "d2", "a1", "a2",
    "total", "other_total", "goal", "steps", "round", "days", "columns", "bonus", "max", "min", "number",
    "limit", "low", "high", "cells", "attacks", "up", "down", "voted", "voters", "value", "turn",
    "cost", "energy", "points", "chips", "battle", "minutes", "seconds", "target_n", "left", "most"})
# Log entries translated by exact match only: the designers' rulings, quoted word for word
# from rulings.json (a translated copy sits in data/<lang>/rulings.json).
EXACT_ONLY_ENTRIES = frozenset({"ruling"})
ACTION_TEXT = frozenset({"label", "detail", "help", "hint", "title", "blurb"})


def content_pairs(english: object, translated: object, out: dict[str, str]) -> None:
    """English -> translation for every readable string of a data file and its copy."""
    if isinstance(english, dict) and isinstance(translated, dict):
        for key, value in english.items():
            if key in translated:
                content_pairs(value, translated[key], out)
    elif isinstance(english, list) and isinstance(translated, list):
        for a, b in zip(english, translated):
            content_pairs(a, b, out)
    elif isinstance(english, str) and isinstance(translated, str):
        if english != translated and translated:  # ids are never translated, so they never differ
            out.setdefault(english, translated)


class Template:
    """One catalog entry with {fields}: a pattern over English, and the translation."""

    __slots__ = ("pattern", "forms", "plural", "literal", "texts", "names")

    def __init__(self, english: str, forms: list[str], plural):
        parts, seen, at = [], set(), 0
        self.texts, self.names = [], []   # the fixed parts and the fields between them
        for match in FIELD.finditer(english):
            parts.append(re.escape(english[at:match.start()]))
            self.texts.append(english[at:match.start()])
            name = match.group(1)
            self.names.append(name)
            if name in seen:
                parts.append(f"(?P={name})")
            else:  # a count is a number, never words a longer text happens to hold there
                parts.append(f"(?P<{name}>-?\\d+)" if name in NUMBER_FIELDS else f"(?P<{name}>.+?)")
            seen.add(name)
            at = match.end()
        parts.append(re.escape(english[at:]))
        self.texts.append(english[at:])
        self.pattern = re.compile("".join(parts), re.DOTALL)
        self.forms = forms            # one translation, or the plural forms
        self.plural = plural          # the language's plural rule (n -> form index) for plural entries
        self.literal = len(FIELD.sub("", english))  # the longer the fixed text, the surer the match

    def splits(self, english: str, limit: int = 24):
        """Every way `english` fills this template's fields, shortest first fields first (as
        the pattern matches): "Play {card} on {target}" reads "Play Downpour on Bare Soil on
        Stream" two ways, and only one names two known cards."""
        names, texts, out = self.names, self.texts, []
        budget = [limit * 20]  # steps: a long text never costs more than a few hundred

        def walk(i: int, at: int, got: dict) -> None:
            budget[0] -= 1
            if len(out) >= limit or budget[0] < 0:
                return
            if i == len(names):
                if at == len(english):
                    out.append(dict(got))
                return
            after = texts[i + 1]
            if i == len(names) - 1:
                ends = [len(english) - len(after)] if english.endswith(after) else []
            else:
                ends, start = [], at + 1
                while (found := english.find(after, start)) != -1 if after else start < len(english):
                    ends.append(found if after else start)
                    start = (found if after else start) + 1
            for end in ends:
                value = english[at:end]
                name = names[i]
                if not value or (name in got and got[name] != value) or (
                        name in NUMBER_FIELDS and not re.fullmatch(r"-?\d+", value)):
                    continue
                walk(i + 1, end + len(after), {**got, name: value})

        if english.startswith(texts[0]):
            walk(0, len(texts[0]), {})
        return out

    def fill(self, fields: dict[str, str]) -> str:
        form = self.forms[0]
        if self.plural is not None and len(self.forms) > 1:
            number = next((v for k, v in fields.items() if k in ("n", "count")), None)
            if number is None:
                number = next((v for v in fields.values() if re.fullmatch(r"-?\d+", v)), None)
            if number is not None and re.fullmatch(r"-?\d+", number):
                form = self.forms[min(self.plural(abs(int(number))), len(self.forms) - 1)]
        return FIELD.sub(lambda m: fields.get(m.group(1), m.group(0)), form)


class Localizer:
    def __init__(self, lang: str, catalogs: list[Path], data_folder: Path | None = None,
                 translated_folder: Path | None = None):
        self.lang = lang
        self.exact: dict[str, str] = {}
        self.words: dict[str, str] = {}      # catalog texts that look like identifiers (see _add)
        self.templates: dict[str, list[Template]] = {}   # by the first 3 characters of the fixed start
        self.wild: list[Template] = []                     # templates that start with a field
        self.cache: OrderedDict[str, str] = OrderedDict()
        for path in catalogs:  # the first catalog named wins (the game's before the platform's)
            self._read(path)
        translated_folder = translated_folder or (data_folder / lang if data_folder is not None else None)
        if data_folder is not None and translated_folder.is_dir():
            pairs: dict[str, str] = {}
            for translated in sorted(translated_folder.glob("*.json")):
                # Beside it in data/, or the package's own (rulings.json, the designers' catalogue).
                english = data_folder / translated.name
                if not english.is_file():
                    english = data_folder.parent / translated.name
                if english.is_file():
                    content_pairs(json.loads(english.read_text("utf-8")),
                                  json.loads(translated.read_text("utf-8")), pairs)
            for english, text in pairs.items():
                self.exact.setdefault(english, text)
        for bucket in self.templates.values():
            bucket.sort(key=lambda t: -t.literal)
        self.wild.sort(key=lambda t: -t.literal)

    def _read(self, path: Path) -> None:
        with path.open("rb") as f:
            catalog = read_po(f, locale=self.lang)
        rule = gettext.c2py(catalog.plural_expr) if catalog.plural_expr else None
        for message in catalog:
            if not message.id or message.fuzzy:
                continue
            if isinstance(message.id, (list, tuple)):
                forms = [s for s in message.string if s]
                if not forms:
                    continue
                for english in message.id:
                    self._add(english, forms, rule)
            elif message.string:
                self._add(message.id, [message.string], None)

    def _add(self, english: str, forms: list[str], rule) -> None:
        if not FIELD.search(english):
            # A lone lowercase word ("computer", "away") may be a value a page matches on:
            # it is translated inside a sentence's field, never as a payload's own value.
            (self.words if IDENTIFIER.match(english) else self.exact).setdefault(english, forms[0])
            return
        template = Template(english, forms, rule)
        start = english[:english.index("{")]
        if len(start) >= 3:
            self.templates.setdefault(start[:3], []).append(template)
        else:
            self.wild.append(template)

    def text(self, english: str, depth: int = 0) -> str:
        """`english` in this language, or unchanged when the catalogs do not hold it."""
        found = self.exact.get(english)
        if found is None and depth > 0:
            found = self.words.get(english)
        if found is not None:
            return found
        cached = self.cache.get(english)
        if cached is not None:
            return cached
        out = None
        if depth > 0 and LIST_SPLIT.search(english):  # a list of known texts, before any template
            items = LIST_SPLIT.split(english)
            if all(item in self.exact or item in self.words for item in items):
                out = self._list(english, depth)
        if out is None and english and not IDENTIFIER.match(english):
            out = self._match(english, depth)
        if out is None and depth > 0 and LIST_SPLIT.search(english):
            out = self._list(english, depth)
        out = english if out is None else out
        if depth == 0:
            self.cache[english] = out
            if len(self.cache) > CACHE_MAX:
                self.cache.popitem(last=False)
        return out

    def _match(self, english: str, depth: int) -> str | None:
        """`english` built from a template: the first (the longest fixed text) whose fields all
        translate. When one is left as it is (a name, or a card's name that holds a template's
        own words: "Play Downpour on Bare Soil"), another template or split whose every field
        is a catalog or content text wins; else the first."""
        if depth > 4:
            return None
        first = None
        matched = []
        for template in [*self.templates.get(english[:3], ()), *self.wild]:
            match = template.pattern.fullmatch(english)
            if match is None:
                continue
            if first is None:
                groups = match.groupdict()
                fields = {k: self.text(v, depth + 1) for k, v in groups.items()}
                if all(fields[k] != v for k, v in groups.items() if k not in NUMBER_FIELDS):
                    return template.fill(fields)
                first = template.fill(fields)
            matched.append(template)
        for template in matched:
            for groups in template.splits(english):
                if all(k in NUMBER_FIELDS or v in self.exact or v in self.words for k, v in groups.items()):
                    return template.fill({k: self.text(v, depth + 1) for k, v in groups.items()})
        return first

    def _list(self, english: str, depth: int) -> str | None:
        """A joined list of catalog texts, each translated; None when an item is not one
        (then it is a sentence with a comma, not a list)."""
        items = LIST_SPLIT.split(english)
        translated = [self.text(item, depth + 1) for item in items]
        if " and " in english:  # names too ("Ana and Ben"): the word is the language's
            return ", ".join(translated[:-1]) + f" {self.words.get(LIST_AND, LIST_AND)} " + translated[-1]
        return ", ".join(translated) if translated != items else None

    def payload(self, value, key: str | None = None, in_action: bool = False, keep: frozenset = frozenset()):
        """A payload (dicts, lists, texts) with its readable texts translated; the values of
        KEEP's keys and of `keep`'s (the caller's own) stay as they are."""
        if key is not None and key in keep:
            return value
        if isinstance(value, str):
            return value if key in KEEP else self.text(value)
        if isinstance(value, dict):
            if value.get("t") in EXACT_ONLY_ENTRIES:
                # A ruling quotes the catalogue word for word: its translation, or as it is
                # (never a template's guess at a sentence it was not built from).
                return {k: (self.exact.get(v, v) if k in ("text", "title") and isinstance(v, str) else v)
                        for k, v in value.items()}
            if in_action:
                return {k: (self.payload(v, k, keep=keep) if k in ACTION_TEXT else v) for k, v in value.items()}
            return {k: self.payload(v, k, in_action=(k == "actions"), keep=keep) for k, v in value.items()}
        if isinstance(value, list):
            if in_action:
                return [self.payload(v, key, in_action=True, keep=keep) if isinstance(v, dict) else v for v in value]
            return [self.payload(v, key, keep=keep) for v in value]
        return value
