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
difficulty "custom" (allowed only for uploaded questions).

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

Other columns are ignored. Blank rows are skipped. Every question needs four
different options. Text may not contain "<" or ">" (HTML is not allowed) or
a NUL byte. Options are at most 120 characters, explanations at most 400,
topics at most 40. A file may hold at most 500 questions and be at most
200 kB. The same question may not appear twice (capital letters and spacing
are ignored when comparing).

``parse_csv(text)`` returns (questions, errors). ``errors`` lists every
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
CSV_OPTIONAL = ("topic",)

CRISIS_FIELDS = ("id", "name", "scenario", "question", "ideas")
CRISES_MIN = 8
RESOURCE_KINDS = ("evap", "cond", "precip", "collect")
WEATHER_KINDS = (
    "monsoon", "forecast", "newater", "reservoir", "dry_spell",
    "diversion", "evaporation_surge", "pipe_burst", "pipe_leakage", "water_rationing",
)
CARD_FIELDS = ("kind", "name", "text", "fact")
SINGLE_CARD_FIELDS = ("name", "text", "fact")

CSV_COLUMNS_HELP = (
    "Upload a CSV file (save your spreadsheet as \"CSV UTF-8\"). The first row must name the "
    "columns: question, option_a, option_b, option_c, option_d, correct, explanation and, "
    "if you like, topic. Columns can be in any order. In the correct column write A, B, C or D, "
    "or 1 to 4, or copy the text of the right option. Each question needs four different options "
    "and a one-sentence explanation. Do not use < or >. Up to 500 questions. If any row has a "
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
        return ["the question is not an object"]
    if set(q) != set(QUESTION_FIELDS):
        missing = [f for f in QUESTION_FIELDS if f not in q]
        extra = sorted(str(k) for k in q if k not in QUESTION_FIELDS)
        parts = []
        if missing:
            parts.append("missing " + ", ".join(missing))
        if extra:
            parts.append("unexpected " + ", ".join(extra))
        return ["the fields are wrong: " + "; ".join(parts)]
    problems = []
    if not isinstance(q["id"], str) or not q["id"].strip():
        problems.append("id is not a non-empty string")
    problem = text_problem(q["question"], "question", QUESTION_MAX, strict=not uploaded)
    if problem:
        problems.append(problem)
    options = q["options"]
    if not isinstance(options, list) or len(options) != 4:
        problems.append("there must be exactly four options")
    else:
        for column, option in zip(OPTION_COLUMNS, options):
            problem = text_problem(option, column, OPTION_MAX, strict=not uploaded)
            if problem:
                problems.append(problem)
        texts = [_fold(o) for o in options if isinstance(o, str) and o.strip()]
        if len(set(texts)) != len(texts):
            problems.append("two options are the same")
    answer = q["answer"]
    if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer <= 3:
        problems.append("answer must be a whole number from 0 to 3")
    problem = text_problem(q["explanation"], "explanation", EXPLANATION_MAX, strict=not uploaded)
    if problem:
        problems.append(problem)
    allowed = DIFFICULTIES + ((UPLOAD_DIFFICULTY,) if uploaded else ())
    if q["difficulty"] not in allowed:
        problems.append(f"difficulty {q['difficulty']!r} is not one of {', '.join(allowed)}")
    problem = text_problem(q["topic"], "topic", TOPIC_MAX, strict=not uploaded)
    if problem:
        problems.append(problem)
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


def parse_csv(text: str) -> tuple[list[dict], list[tuple[int, str]]]:
    """A teacher's question file -> (questions, errors); see the module docstring for the columns.

    `errors` holds (line, reason) for every problem found, line 1 being the header
    and line 0 the file as a whole. The questions are only usable if errors is empty.
    """
    if not isinstance(text, str):
        return [], [(FILE_LINE, "the file is not text")]
    if len(text) > CSV_MAX_CHARS:
        return [], [(FILE_LINE, f"the file is larger than {CSV_MAX_CHARS // 1000} kB")]
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        return [], [(FILE_LINE, "the file is empty")]
    try:
        records = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as exc:
        return [], [(FILE_LINE, f"the file is not valid CSV ({exc})")]

    # Line numbers are spreadsheet rows: every record counts, blank ones too.
    rows = [(n, r) for n, r in enumerate(records, 1) if any(cell.strip() for cell in r)]
    if not rows:
        return [], [(FILE_LINE, "the file is empty")]
    header_line, header = rows[0]
    names = [h.strip().lower() for h in header]
    errors: list[tuple[int, str]] = []
    doubled = sorted({n for n in names if n and names.count(n) > 1})
    if doubled:
        errors.append((header_line, "the header names a column twice: " + ", ".join(doubled)))
    missing = [c for c in CSV_REQUIRED if c not in names]
    if missing:
        errors.append((header_line, "the header row is missing the column"
                       + ("s " if len(missing) > 1 else " ") + ", ".join(missing)))
    if errors:
        return [], errors
    body = rows[1:]
    if not body:
        return [], [(FILE_LINE, "the file has a header row but no questions")]
    if len(body) > CSV_MAX_ROWS:
        return [], [(FILE_LINE, f"the file has {len(body)} questions; the limit is {CSV_MAX_ROWS}")]

    col = {name: names.index(name) for name in (*CSV_REQUIRED, *CSV_OPTIONAL) if name in names}
    questions: list[dict] = []
    seen: dict[str, int] = {}
    for number, (line, record) in enumerate(body, 1):
        cells = {name: (record[i] if i < len(record) else "").strip() for name, i in col.items()}
        row_errors: list[str] = []
        extra = [c for c in record[len(names):] if c.strip()]
        if extra:
            row_errors.append(f"the row has more cells ({len(record)}) than the header has columns ({len(names)})")
        options = [cells[c] for c in OPTION_COLUMNS]
        answer = None
        if not cells["correct"]:
            row_errors.append("correct is empty")
        else:
            answer = _correct_index(cells["correct"], options)
            if answer is None:
                row_errors.append(f"the correct option \"{cells['correct']}\" is not A, B, C or D "
                                  "(or 1 to 4, or the exact text of one of the options)")
        q = {
            "id": f"u{number:03d}",
            "question": cells["question"],
            "options": options,
            "answer": answer if answer is not None else 0,
            "explanation": cells["explanation"],
            "difficulty": UPLOAD_DIFFICULTY,
            "topic": cells.get("topic") or "custom",
        }
        row_errors.extend(question_problems(q, uploaded=True))
        if cells["question"]:
            key = _fold(cells["question"])
            if key in seen:
                row_errors.append(f"the same question is already on line {seen[key]}")
            else:
                seen[key] = line
        if row_errors:
            errors.extend((line, reason) for reason in row_errors)
        else:
            questions.append(q)
    return questions, errors
