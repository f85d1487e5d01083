"""Water Cycle Challenge: the trivia bank, the crisis cards and the card texts.

Pure Python (no Flask, no database). Three JSON files ship in ``data/``:

* ``trivia.json``  {"version": ..., "questions": [question, ...]}
* ``crises.json``  {"version": ..., "crises": [crisis, ...]}
* ``cards.json``   {"version": ..., "resources": [...], "weather": [...],
  "emergency": {...}, "collapse": {...}}

Each loader checks its file and raises ValueError naming the bad entry, so a
broken file fails loudly instead of reaching a table. ``builtin_version()``
combines the three versions for a table's data_versions.

A question is a dict with exactly these keys::

    {"id": "t001", "question": "...?", "options": [4 strings],
     "answer": 0-3 (index of the correct option), "explanation": "...",
     "difficulty": "easy" | "medium" | "hard", "topic": "processes"}

Uploaded questions have the same shape, with ids "u001", "u002", ... and
difficulty "custom" (allowed only for uploaded questions), plus a "language"
key: the base code of the language the question is written in ("en", "es"), or
None when it suits any language. (Banks uploaded before the key existed lack it:
an uploaded question may have it or not.)

Teacher's question file (CSV)
-----------------------------
A teacher may upload their own question bank as a CSV file (for example
saved from a spreadsheet as "CSV UTF-8"). The first row is the header row and
names the columns; names are not case-sensitive and the columns may come in
any order. Columns:

    question     the question text (required, at most 300 characters)
    option_a     the first answer option (required)
    option_b     the second answer option (required)
    option_c     the third answer option (required)
    option_d     the fourth answer option (required)
    correct      which option is right (required): a letter A, B, C or D,
                 a number 1, 2, 3 or 4, or the exact text of the right option
    explanation  one sentence shown after the question is answered (required)
    topic        a short label such as "rivers" (optional column; an empty
                 cell becomes "custom")
    language     the language the question is written in (optional column):
                 a code such as "en" or "es", not case-sensitive; "es-MX" counts
                 as "es". An empty cell means the question suits any language.
                 A table or class then asks the questions in its own language
                 plus the ones without a language (app/service/banks.py).

Other columns are ignored. Blank rows are skipped. Every question needs four
different options. Text may not contain "<" or ">" (HTML is not allowed) or
a NUL byte. Options are at most 120 characters, explanations at most 400,
topics at most 40. A file may hold at most 500 questions and be at most
200 kB. The same question may not appear twice (capital letters and spacing
are ignored when comparing).

``parse_csv(text, languages=...)`` returns (questions, errors); `languages` are the
codes the app has (the platform passes app.i18n.languages(); by default the
languages this game has a catalog for). ``errors`` lists every
problem as (line, reason), with the line as a spreadsheet shows it (the
header is line 1; line 0 means the file as a whole). If there is any error
the caller refuses the whole file.
"""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from ..datafile import read_json, text_problem
from ..text import N_, NP_

DATA = Path(__file__).with_name("data")
TRIVIA_PATH = DATA / "trivia.json"
CRISES_PATH = DATA / "crises.json"
CARDS_PATH = DATA / "cards.json"

QUESTION_FIELDS = ("id", "question", "options", "answer", "explanation", "difficulty", "topic")
DIFFICULTIES = ("easy", "medium", "hard")
UPLOAD_DIFFICULTY = "custom"
TOPICS = ("processes", "stores", "energy", "weather", "groundwater", "people", "management", "climate")
OPTION_COLUMNS = ("option_a", "option_b", "option_c", "option_d")
LETTERS = "ABCD"

QUESTION_MAX = 300
OPTION_MAX = 120
EXPLANATION_MAX = 400
TOPIC_MAX = 40
CSV_MAX_ROWS = 500
CSV_MAX_CHARS = 200_000
FILE_LINE = 0  # the line number used for problems with the whole file

CSV_REQUIRED = ("question", *OPTION_COLUMNS, "correct", "explanation")
CSV_OPTIONAL = ("topic", "language")
LANGUAGE_FIELD = "language"      # an uploaded question's optional key: a base code, or None
TRIVIA_MIN = 1                   # the fewest questions a bank needs (they are reshuffled when used up)
_LANGUAGE_CODE = re.compile(r"^[a-z]{2,3}$")

CRISIS_FIELDS = ("id", "name", "scenario", "question", "ideas")
CRISES_MIN = 8
RESOURCE_KINDS = ("evap", "cond", "precip", "collect")
WEATHER_KINDS = (
    "monsoon", "forecast", "newater", "reservoir", "dry_spell",
    "diversion", "evaporation_surge", "pipe_burst", "pipe_leakage", "water_rationing",
)
CARD_FIELDS = ("kind", "name", "text", "fact")
SINGLE_CARD_FIELDS = ("name", "text", "fact")

CSV_COLUMNS_HELP = N_(
    "Upload a CSV file (save your spreadsheet as \"CSV UTF-8\"). The first row must name the "
    "columns: question, option_a, option_b, option_c, option_d, correct, explanation and, "
    "if you like, topic. Columns can be in any order. In the correct column write A, B, C or D, "
    "or 1 to 4, or copy the text of the right option. Each question needs four different options "
    "and a one-sentence explanation. If you like, add a language column with the language of each question "
    "(a code such as en or es): a table asks the questions in its own language and those with no language. "
    "Do not use < or >. Up to 500 questions. If any row has a "
    "problem, nothing is saved and every problem is listed with its line number."
)

_SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")


# ---------------------------------------------------------------- shared checks

def _fold(text: str) -> str:
    """Text compared without case or extra spaces."""
    return " ".join(text.casefold().split())


def question_problems(q: dict, *, uploaded: bool = False) -> list[str]:
    """Every reason `q` is not a valid question ([] when it is valid).

    `uploaded` allows the difficulty "custom" (teacher uploads only).
    """
    if not isinstance(q, dict):
        return [N_("the question is not an object")]
    fields = set(q) - ({LANGUAGE_FIELD} if uploaded else set())
    if fields != set(QUESTION_FIELDS):
        missing = [f for f in QUESTION_FIELDS if f not in q]
        extra = sorted(str(k) for k in fields if k not in QUESTION_FIELDS)
        parts = []
        if missing:
            parts.append(N_("missing {fields}").format(fields=", ".join(missing)))
        if extra:
            parts.append(N_("unexpected {fields}").format(fields=", ".join(extra)))
        return [N_("the fields are wrong: {problems}").format(problems="; ".join(parts))]
    problems = []
    if not isinstance(q["id"], str) or not q["id"].strip():
        problems.append(N_("id is not a non-empty string"))
    problem = text_problem(q["question"], "question", QUESTION_MAX, strict=not uploaded)
    if problem:
        problems.append(problem)
    options = q["options"]
    if not isinstance(options, list) or len(options) != 4:
        problems.append(N_("there must be exactly four options"))
    else:
        for column, option in zip(OPTION_COLUMNS, options):
            problem = text_problem(option, column, OPTION_MAX, strict=not uploaded)
            if problem:
                problems.append(problem)
        texts = [_fold(o) for o in options if isinstance(o, str) and o.strip()]
        if len(set(texts)) != len(texts):
            problems.append(N_("two options are the same"))
    answer = q["answer"]
    if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer <= 3:
        problems.append(N_("answer must be a whole number from 0 to 3"))
    problem = text_problem(q["explanation"], "explanation", EXPLANATION_MAX, strict=not uploaded)
    if problem:
        problems.append(problem)
    allowed = DIFFICULTIES + ((UPLOAD_DIFFICULTY,) if uploaded else ())
    if q["difficulty"] not in allowed:
        problems.append(N_("difficulty {value} is not one of {allowed}").format(value=repr(q["difficulty"]),
                                                                               allowed=", ".join(allowed)))
    problem = text_problem(q["topic"], "topic", TOPIC_MAX, strict=not uploaded)
    if problem:
        problems.append(problem)
    language = q.get(LANGUAGE_FIELD)
    if language is not None and not (isinstance(language, str) and _LANGUAGE_CODE.match(language)):
        problems.append(N_("language {value} is not a language code such as en or es").format(value=repr(language)))
    return problems


def _check_entries(name: str, items, fields: tuple[str, ...], *, minimum: int = 1, label: str) -> None:
    """A non-empty list of objects with exactly `fields` and unique, well-formed ids if they have one."""
    if not isinstance(items, list) or len(items) < minimum:
        raise ValueError(f"{name}: expected a list of at least {minimum} {label}")
    seen = set()
    for n, item in enumerate(items, 1):
        where = item.get("id", f"#{n}") if isinstance(item, dict) else f"#{n}"
        if not isinstance(item, dict) or set(item) != set(fields):
            raise ValueError(f"{name}: {label} {where} needs exactly the fields {', '.join(fields)}")
        if "id" in fields:
            if item["id"] in seen:
                raise ValueError(f"{name}: duplicate id {item['id']!r}")
            seen.add(item["id"])


def _check_texts(name: str, where: str, item: dict, fields, max_len: int = 600) -> None:
    for field in fields:
        problem = text_problem(item[field], field, max_len)
        if problem:
            raise ValueError(f"{name}: {where}: {problem}")


# ---------------------------------------------------------------- built-in data

def load_builtin(path: Path | str | None = None) -> tuple[str, list[dict]]:
    """The shipped trivia bank: (version, questions). Raises ValueError naming a bad question."""
    path = Path(path or TRIVIA_PATH)
    data = read_json(path, ("version", "questions"))
    questions = data["questions"]
    if not isinstance(questions, list) or not questions:
        raise ValueError(f"{path.name}: expected a non-empty list of questions")
    seen_ids, seen_text = set(), {}
    for n, q in enumerate(questions, 1):
        where = q.get("id", f"#{n}") if isinstance(q, dict) else f"#{n}"
        problems = question_problems(q)
        if problems:
            raise ValueError(f"{path.name}: question {where}: " + "; ".join(problems))
        if q["id"] in seen_ids:
            raise ValueError(f"{path.name}: question {where}: the id is used twice")
        seen_ids.add(q["id"])
        key = _fold(q["question"])
        if key in seen_text:
            raise ValueError(f"{path.name}: question {where}: the same question as {seen_text[key]}")
        seen_text[key] = q["id"]
    return data["version"], questions


def load_crises(path: Path | str | None = None) -> tuple[str, list[dict]]:
    """The Crisis cards: (version, crises). Raises ValueError naming a bad crisis."""
    path = Path(path or CRISES_PATH)
    data = read_json(path, ("version", "crises"))
    crises = data["crises"]
    _check_entries(path.name, crises, CRISIS_FIELDS, minimum=CRISES_MIN, label="crises")
    for crisis in crises:
        cid = crisis["id"]
        if not isinstance(cid, str) or not _SNAKE.match(cid):
            raise ValueError(f"{path.name}: crisis id {cid!r} is not lowercase snake_case")
        _check_texts(path.name, f"crisis {cid}", crisis, ("name", "scenario", "question"))
        ideas = crisis["ideas"]
        if not isinstance(ideas, list) or not 2 <= len(ideas) <= 3:
            raise ValueError(f"{path.name}: crisis {cid}: ideas must be a list of 2 or 3 sentences")
        for idea in ideas:
            problem = text_problem(idea, "an idea", 300)
            if problem:
                raise ValueError(f"{path.name}: crisis {cid}: {problem}")
    return data["version"], crises


def load_cards(path: Path | str | None = None) -> tuple[str, dict]:
    """The card texts: (version, {"resources", "weather", "emergency", "collapse"})."""
    path = Path(path or CARDS_PATH)
    data = read_json(path, ("version", "resources", "weather", "emergency", "collapse"))
    for group, kinds in (("resources", RESOURCE_KINDS), ("weather", WEATHER_KINDS)):
        cards = data[group]
        _check_entries(path.name, cards, CARD_FIELDS, minimum=len(kinds), label=f"{group} cards")
        found = [c["kind"] for c in cards]
        if sorted(map(str, found)) != sorted(kinds):
            raise ValueError(f"{path.name}: {group} must have exactly the kinds {', '.join(kinds)}; found {found}")
        for card in cards:
            _check_texts(path.name, f"{group} card {card['kind']}", card, SINGLE_CARD_FIELDS)
    for single in ("emergency", "collapse"):
        card = data[single]
        if not isinstance(card, dict) or set(card) != set(SINGLE_CARD_FIELDS):
            raise ValueError(f"{path.name}: {single} needs exactly the fields {', '.join(SINGLE_CARD_FIELDS)}")
        _check_texts(path.name, single, card, SINGLE_CARD_FIELDS)
    return data["version"], {k: data[k] for k in ("resources", "weather", "emergency", "collapse")}


def builtin_version() -> str:
    """One string naming the versions of all three shipped files (for data_versions)."""
    return "+".join((load_builtin()[0], load_crises()[0], load_cards()[0]))


# ---------------------------------------------------------------- teacher uploads

def _correct_index(value: str, options: list[str]) -> int | None:
    """A / 1 / the text of an option -> 0..3; None when it matches nothing."""
    v = value.strip()
    if len(v) == 1 and v.upper() in LETTERS:
        return LETTERS.index(v.upper())
    if v in ("1", "2", "3", "4"):
        return int(v) - 1
    matches = [i for i, o in enumerate(options) if o.strip() and _fold(o) == _fold(v)]
    return matches[0] if len(matches) == 1 else None


def game_languages() -> tuple[str, ...]:
    """English and every language this game has a catalog for (the default for parse_csv)."""
    found = sorted(p.name for p in (Path(__file__).with_name("translations")).glob("*")
                   if p.is_dir() and p.name != "en")
    return ("en", *found)


def _language(value: str, languages) -> tuple[str | None, bool]:
    """A language cell -> (base code or None when blank, whether the app has it)."""
    if not value:
        return None, True
    base = value.lower().replace("_", "-").split("-")[0].strip()
    return base, base in languages


def parse_csv(text: str, languages=None) -> tuple[list[dict], list[tuple[int, str]]]:
    """A teacher's question file -> (questions, errors); see the module docstring for the columns.

    `errors` holds (line, reason) for every problem found, line 1 being the header
    and line 0 the file as a whole. The questions are only usable if errors is empty.
    `languages` are the codes a language cell may name (default: game_languages()).
    """
    languages = tuple(languages) if languages else game_languages()
    if not isinstance(text, str):
        return [], [(FILE_LINE, N_("the file is not text"))]
    if len(text) > CSV_MAX_CHARS:
        return [], [(FILE_LINE, N_("the file is larger than {n} kB").format(n=CSV_MAX_CHARS // 1000))]
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        return [], [(FILE_LINE, N_("the file is empty"))]
    try:
        records = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as exc:
        return [], [(FILE_LINE, N_("the file is not valid CSV ({error})").format(error=exc))]

    # Line numbers are spreadsheet rows: every record counts, blank ones too.
    rows = [(n, r) for n, r in enumerate(records, 1) if any(cell.strip() for cell in r)]
    if not rows:
        return [], [(FILE_LINE, N_("the file is empty"))]
    header_line, header = rows[0]
    names = [h.strip().lower() for h in header]
    errors: list[tuple[int, str]] = []
    doubled = sorted({n for n in names if n and names.count(n) > 1})
    if doubled:
        errors.append((header_line,
                       N_("the header names a column twice: {columns}").format(columns=", ".join(doubled))))
    missing = [c for c in CSV_REQUIRED if c not in names]
    if missing:
        errors.append((header_line, NP_("the header row is missing the column {columns}",
                                        "the header row is missing the columns {columns}",
                                        len(missing)).format(columns=", ".join(missing))))
    if errors:
        return [], errors
    body = rows[1:]
    if not body:
        return [], [(FILE_LINE, N_("the file has a header row but no questions"))]
    if len(body) > CSV_MAX_ROWS:
        return [], [(FILE_LINE, N_("the file has {n} questions; the limit is {limit}").format(n=len(body),
                                                                                         limit=CSV_MAX_ROWS))]

    col = {name: names.index(name) for name in (*CSV_REQUIRED, *CSV_OPTIONAL) if name in names}
    questions: list[dict] = []
    seen: dict[str, int] = {}
    for number, (line, record) in enumerate(body, 1):
        cells = {name: (record[i] if i < len(record) else "").strip() for name, i in col.items()}
        row_errors: list[str] = []
        extra = [c for c in record[len(names):] if c.strip()]
        if extra:
            row_errors.append(N_("the row has more cells ({cells}) than the header has columns ({columns})").format(
                cells=len(record), columns=len(names)))
        options = [cells[c] for c in OPTION_COLUMNS]
        answer = None
        if not cells["correct"]:
            row_errors.append(N_("correct is empty"))
        else:
            answer = _correct_index(cells["correct"], options)
            if answer is None:
                row_errors.append(N_("the correct option \"{value}\" is not A, B, C or D "
                                     "(or 1 to 4, or the exact text of one of the options)").format(
                    value=cells["correct"]))
        language, known = _language(cells.get(LANGUAGE_FIELD, ""), languages)
        if not known:
            row_errors.append(N_("the language \"{value}\" is not one the app has: write {codes}, "
                                 "or leave the cell empty for any language").format(
                value=cells[LANGUAGE_FIELD], codes=", ".join(languages)))
        q = {
            "id": f"u{number:03d}",
            "question": cells["question"],
            "options": options,
            "answer": answer if answer is not None else 0,
            "explanation": cells["explanation"],
            "difficulty": UPLOAD_DIFFICULTY,
            "topic": cells.get("topic") or "custom",
            LANGUAGE_FIELD: language if known else None,
        }
        row_errors.extend(question_problems(q, uploaded=True))
        if cells["question"]:
            key = _fold(cells["question"])
            if key in seen:
                row_errors.append(N_("the same question is already on line {line}").format(line=seen[key]))
            else:
                seen[key] = line
        if row_errors:
            errors.extend((line, reason) for reason in row_errors)
        else:
            questions.append(q)
    return questions, errors
