"""What makes a student's name acceptable, and when two names are the same name.

A name is shown on a projected board and on every phone of its table, so:

* it must show something: invisible characters (zero-width and other format
  characters, Hangul fillers, the blank Braille pattern, variation selectors...)
  are dropped, and a name of nothing but those and spaces is refused;
* it must stay on its line: marks stacked on one letter ("Zalgo" text) are
  refused, while the accents of real names pass (Vietnamese "Nguyễn", typed
  composed or not, Yoruba "Ọ̀ṣọ́", Hebrew points, Thai vowels and tone marks,
  Tibetan stacks, Devanagari, Arabic harakat);
* two names that look alike are one name (`skeleton`): Cyrillic, Greek and other
  look-alikes of Latin letters, and fullwidth or styled letters, count as the
  Latin letter, so "Аnn" with a Cyrillic А is taken where "Ann" sits;
* it must not be rude (`rude`), unless the teacher switched that off for the table
  or class: the words are in rude_words.txt beside this file, matched on the
  skeleton with accents and simple leetspeak folded away.

Pure functions: nothing here knows Flask, the database or a game.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from pathlib import Path

# Characters that show nothing (or nothing but space) yet are not Unicode format/control
# characters: the Hangul fillers, the blank Braille pattern, the combining grapheme
# joiner, variation selectors, Khmer inherent vowels and Mongolian free variation selectors.
INVISIBLE = frozenset(
    "\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5\u180b\u180c\u180d\u180f"
    + "".join(map(chr, range(0xFE00, 0xFE10))) + "".join(map(chr, range(0xE0100, 0xE01F0))))

# Marks from the script-neutral combining blocks (the ones "Zalgo" text piles up): at
# most 2 on one letter (Vietnamese needs 2: ễ is e + circumflex + tilde).
GENERIC_MARKS = ((0x0300, 0x036F), (0x1AB0, 0x1AFF), (0x1DC0, 0x1DFF), (0x20D0, 0x20FF), (0xFE20, 0xFE2F))
GENERIC_MARKS_MAX = 2
# Any marks on one letter: Tibetan stacks 3 (sgro: U+0F66 U+0F92 U+0FB2 U+0F7C), Hebrew with
# points 3 (שָּׁ); more is a pile.
MARKS_MAX = 4

# Look-alikes of Latin letters, by case (a capital Greek Eta is an H, a small eta an n).
# Fullwidth and mathematical letters need no entry: NFKC makes them Latin already.
CONFUSABLES = str.maketrans({
    # Cyrillic
    "А": "A", "В": "B", "С": "C", "Е": "E", "Н": "H", "І": "I", "Ј": "J", "К": "K", "М": "M", "О": "O",
    "Р": "P", "Ѕ": "S", "Т": "T", "Х": "X", "У": "Y", "Ү": "Y", "Ԛ": "Q", "Ԝ": "W", "Ӏ": "I", "Ё": "Ë",
    "Ї": "Ï", "а": "a", "с": "c", "ԁ": "d", "е": "e", "һ": "h", "і": "i", "ј": "j", "ӏ": "l", "о": "o",
    "р": "p", "ԛ": "q", "ѕ": "s", "ԝ": "w", "х": "x", "у": "y", "ү": "y", "ё": "ë", "ї": "ï",
    # Greek
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "Ϲ": "C", "Ϳ": "J", "α": "a", "ϲ": "c", "η": "n", "ι": "i",
    "ϳ": "j", "ν": "v", "ο": "o", "ρ": "p", "υ": "u", "χ": "x", "γ": "y", "ω": "w",
    # Armenian
    "Օ": "O", "օ": "o", "Ս": "U", "ս": "u", "հ": "h", "ո": "n", "զ": "q",
    # Latin letters that pass for others
    "ı": "i", "ɩ": "i", "ɑ": "a", "ɡ": "g", "ʏ": "y",
})

RUDE_FILE = Path(__file__).with_name("rude_words.txt")
_LEET = {"0": "o", "1": "i", "!": "i", "3": "e", "4": "a", "@": "a", "5": "s", "$": "s", "7": "t", "+": "t",
         "8": "b", "9": "g", "6": "g", "|": "l"}
LEET = [str.maketrans(_LEET), str.maketrans(dict(_LEET, **{"1": "l"}))]  # a 1 reads as i or as l: both are checked


def visible_text(raw: str) -> str:
    """NFC, with invisible and control characters dropped and spaces collapsed."""
    text = unicodedata.normalize("NFC", raw)
    text = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C" and ch not in INVISIBLE)
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


def _latin(name: str) -> str:
    return visible_text(unicodedata.normalize("NFKC", name)).translate(CONFUSABLES)


def skeleton(name: str) -> str:
    """What a name looks like, for comparing: styled and look-alike letters made Latin,
    invisible characters dropped, case folded, spaces collapsed."""
    return " ".join(unicodedata.normalize("NFC", _latin(name)).casefold().split())


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


def _folded(name: str) -> list[str]:
    """The name's letters for the rude-word check, once per leetspeak reading: as its
    skeleton, with camelCase split (so "BigWord" reads as two words) and accents dropped."""
    text = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", _latin(name)).casefold()
    text = "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))
    return [text.translate(table) for table in LEET]


def rude(name: str) -> bool:
    anywhere, whole = _rude_patterns()
    for text in _folded(name):
        words = re.findall(r"[a-z]+", text)
        letters = "".join(words)
        if anywhere.search(letters) or whole.fullmatch(letters) or any(whole.fullmatch(w) for w in words):
            return True
    return False
