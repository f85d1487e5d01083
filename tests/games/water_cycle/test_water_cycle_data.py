"""Water Cycle Challenge data: the shipped trivia, crises and card texts, their
validators, and the teacher's CSV upload parser (app/engines/water_cycle/trivia.py)."""
from __future__ import annotations

import copy
import json
from collections import Counter

import pytest

from app.engines.water_cycle import trivia

HEADER = "question,option_a,option_b,option_c,option_d,correct,explanation,topic"


def good_row(n: int, correct: str = "A") -> str:
    return f"Question number {n}?,Right {n},Wrong {n}b,Wrong {n}c,Wrong {n}d,{correct},Because {n}.,rivers"


def csv_of(*rows: str, header: str = HEADER) -> str:
    return "\n".join((header, *rows)) + "\n"


def write(tmp_path, name: str, data) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


# ------------------------------------------------------------ shipped files

def test_trivia_bank_meets_the_minimums():
    version, questions = trivia.load_builtin()
    assert version == "wcc-trivia-1"
    assert len(questions) >= 90
    ids = [q["id"] for q in questions]
    assert len(set(ids)) == len(ids)
    texts = [" ".join(q["question"].casefold().split()) for q in questions]
    assert len(set(texts)) == len(texts), "two questions have the same text"
    for q in questions:
        assert q["topic"] in trivia.TOPICS, q["id"]
        assert q["difficulty"] in trivia.DIFFICULTIES, q["id"]
        assert q["question"].endswith("?"), q["id"]
        assert len({o.casefold() for o in q["options"]}) == 4, q["id"]


def test_answer_positions_are_spread():
    _, questions = trivia.load_builtin()
    counts = Counter(q["answer"] for q in questions)
    for index in range(4):
        assert counts[index] >= 0.15 * len(questions), counts


def test_difficulty_and_topic_mix():
    _, questions = trivia.load_builtin()
    n = len(questions)
    by_difficulty = Counter(q["difficulty"] for q in questions)
    assert 0.3 * n <= by_difficulty["easy"] <= 0.5 * n
    assert 0.3 * n <= by_difficulty["medium"] <= 0.5 * n
    assert 0.1 * n <= by_difficulty["hard"] <= 0.3 * n
    by_topic = Counter(q["topic"] for q in questions)
    assert set(by_topic) == set(trivia.TOPICS)
    assert by_topic["management"] >= 15


def test_crises_meet_the_minimums():
    version, crises = trivia.load_crises()
    assert version == "wcc-crises-1"
    assert len(crises) >= 12
    ids = [c["id"] for c in crises]
    assert len(set(ids)) == len(ids)
    assert {"drought", "flash_flood", "heatwave", "storm_surge", "saltwater_intrusion"} <= set(ids)
    assert len({c["name"] for c in crises}) == len(crises)


def test_cards_have_every_kind():
    version, cards = trivia.load_cards()
    assert version == "wcc-cards-1"
    assert [c["kind"] for c in cards["resources"]] == list(trivia.RESOURCE_KINDS)
    assert sorted(c["kind"] for c in cards["weather"]) == sorted(trivia.WEATHER_KINDS)
    weather = {c["kind"]: c for c in cards["weather"]}
    assert "2 extra cards" in weather["monsoon"]["text"]
    assert "top 3 cards" in weather["forecast"]["text"]
    assert "skip their next turn" in weather["dry_spell"]["text"]
    assert "Emergency Response cards are kept" in weather["water_rationing"]["text"]
    assert cards["emergency"]["name"] == "Emergency Response"
    assert cards["collapse"]["name"] == "Reservoir Collapse"


def test_builtin_version_names_all_three_files():
    version = trivia.builtin_version()
    for part in ("wcc-trivia-1", "wcc-crises-1", "wcc-cards-1"):
        assert part in version


def test_no_html_anywhere_in_the_shipped_text():
    for path in (trivia.TRIVIA_PATH, trivia.CRISES_PATH, trivia.CARDS_PATH):
        text = path.read_text(encoding="utf-8")
        assert "<" not in text and ">" not in text, path.name


# ------------------------------------------------------------ validators reject broken files

def shipped_trivia() -> dict:
    return json.loads(trivia.TRIVIA_PATH.read_text(encoding="utf-8"))


@pytest.mark.parametrize("breakage, message", [
    (lambda q: q.update(answer=4), "answer"),
    (lambda q: q.update(answer=True), "answer"),
    (lambda q: q.update(options=q["options"][:3]), "four options"),
    (lambda q: q["options"].__setitem__(1, q["options"][0]), "two options are the same"),
    (lambda q: q["options"].__setitem__(2, "  "), "option_c is empty"),
    (lambda q: q.update(explanation=""), "explanation is empty"),
    (lambda q: q.update(difficulty="custom"), "difficulty"),
    (lambda q: q.update(difficulty="tricky"), "difficulty"),
    (lambda q: q.update(topic=""), "topic is empty"),
    (lambda q: q.update(question="<b>What?</b>"), "HTML"),
    (lambda q: q.pop("explanation"), "missing explanation"),
    (lambda q: q.update(extra=1), "unexpected extra"),
])
def test_load_builtin_rejects_a_bad_question(tmp_path, breakage, message):
    data = shipped_trivia()
    bad = data["questions"][5]
    breakage(bad)
    with pytest.raises(ValueError) as err:
        trivia.load_builtin(write(tmp_path, "trivia.json", data))
    assert "t006" in str(err.value) and message in str(err.value)


def test_load_builtin_rejects_duplicate_ids_and_questions(tmp_path):
    data = shipped_trivia()
    data["questions"][3]["id"] = data["questions"][2]["id"]
    with pytest.raises(ValueError, match="t003.*used twice"):
        trivia.load_builtin(write(tmp_path, "a.json", data))
    data = shipped_trivia()
    data["questions"][3]["question"] = data["questions"][2]["question"].upper()
    with pytest.raises(ValueError, match="t004.*same question as t003"):
        trivia.load_builtin(write(tmp_path, "b.json", data))


def test_load_builtin_rejects_bad_files(tmp_path):
    bad_json = tmp_path / "broken.json"
    bad_json.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="cannot be read"):
        trivia.load_builtin(bad_json)
    with pytest.raises(ValueError, match="version"):
        trivia.load_builtin(write(tmp_path, "v.json", {"version": "", "questions": []}))
    with pytest.raises(ValueError, match="keys"):
        trivia.load_builtin(write(tmp_path, "k.json", {"questions": []}))
    with pytest.raises(ValueError, match="non-empty list"):
        trivia.load_builtin(write(tmp_path, "e.json", {"version": "x", "questions": []}))


def test_load_crises_rejects_broken_input(tmp_path):
    data = json.loads(trivia.CRISES_PATH.read_text(encoding="utf-8"))
    few = dict(data, crises=data["crises"][:7])
    with pytest.raises(ValueError, match="at least 8"):
        trivia.load_crises(write(tmp_path, "few.json", few))
    dup = copy.deepcopy(data)
    dup["crises"][1]["id"] = dup["crises"][0]["id"]
    with pytest.raises(ValueError, match="duplicate id"):
        trivia.load_crises(write(tmp_path, "dup.json", dup))
    caps = copy.deepcopy(data)
    caps["crises"][0]["id"] = "Flash-Flood"
    with pytest.raises(ValueError, match="snake_case"):
        trivia.load_crises(write(tmp_path, "caps.json", caps))
    ideas = copy.deepcopy(data)
    ideas["crises"][2]["ideas"] = ["only one"]
    with pytest.raises(ValueError, match="ideas"):
        trivia.load_crises(write(tmp_path, "ideas.json", ideas))
    empty = copy.deepcopy(data)
    empty["crises"][2]["scenario"] = ""
    with pytest.raises(ValueError, match="scenario is empty"):
        trivia.load_crises(write(tmp_path, "empty.json", empty))


def test_load_cards_rejects_broken_input(tmp_path):
    data = json.loads(trivia.CARDS_PATH.read_text(encoding="utf-8"))
    missing = copy.deepcopy(data)
    missing["weather"] = [c for c in missing["weather"] if c["kind"] != "pipe_burst"]
    with pytest.raises(ValueError, match="weather"):
        trivia.load_cards(write(tmp_path, "m.json", missing))
    renamed = copy.deepcopy(data)
    renamed["weather"][0]["kind"] = "tsunami"
    with pytest.raises(ValueError, match="exactly the kinds"):
        trivia.load_cards(write(tmp_path, "r.json", renamed))
    resource = copy.deepcopy(data)
    resource["resources"][3]["kind"] = "runoff"
    with pytest.raises(ValueError, match="resources"):
        trivia.load_cards(write(tmp_path, "res.json", resource))
    no_fact = copy.deepcopy(data)
    no_fact["collapse"]["fact"] = " "
    with pytest.raises(ValueError, match="collapse.*fact is empty"):
        trivia.load_cards(write(tmp_path, "f.json", no_fact))


def test_custom_difficulty_only_for_uploads():
    q = {"id": "u001", "question": "Q?", "options": ["a", "b", "c", "d"], "answer": 2,
         "explanation": "E.", "difficulty": "custom", "topic": "custom"}
    assert trivia.question_problems(q, uploaded=True) == []
    assert any("difficulty" in p for p in trivia.question_problems(q))


# ------------------------------------------------------------ CSV uploads: good files

def test_good_csv_with_bom_other_column_order_and_every_correct_form():
    text = (
        "\ufeffCorrect,Explanation,OPTION_D,Option_C,option_b,option_a,Question\n"
        "B,Clouds are made of droplets.,Rain,Ice,Droplets,Dust,What are clouds made of?\n"
        "\n"
        "4,Sleet is frozen rain.,Sleet,Dew,Fog,Mist,Which is precipitation?\n"
        "Brine,It is very salty.,NEWater,Runoff,Grey water,Brine,What is desalination waste called?\n"
        "\"grey water \",Used water from sinks.,NEWater,Runoff,\"Grey water\",Brine,\"What is used, non-toilet water called?\"\n"
    )
    questions, errors = trivia.parse_csv(text)
    assert errors == []
    assert [q["id"] for q in questions] == ["u001", "u002", "u003", "u004"]
    first = questions[0]
    assert first == {
        "id": "u001", "question": "What are clouds made of?",
        "options": ["Dust", "Droplets", "Ice", "Rain"], "answer": 1,
        "explanation": "Clouds are made of droplets.", "difficulty": "custom", "topic": "custom",
        "language": None,   # no language column: every question suits any language
    }
    assert questions[1]["answer"] == 3  # "4"
    assert questions[2]["answer"] == 0  # exact text "Brine"
    assert questions[3]["answer"] == 1  # text, different case and spaces
    assert questions[3]["question"] == "What is used, non-toilet water called?"
    for q in questions:
        assert trivia.question_problems(q, uploaded=True) == []


def test_csv_letters_and_numbers_all_map():
    rows = [good_row(i, c) for i, c in enumerate(["A", "b", "C", "d", "1", "2", "3", "4"], 1)]
    questions, errors = trivia.parse_csv(csv_of(*rows))
    assert errors == []
    assert [q["answer"] for q in questions] == [0, 1, 2, 3, 0, 1, 2, 3]
    assert all(q["topic"] == "rivers" for q in questions)


def test_csv_empty_topic_becomes_custom_and_extra_columns_are_ignored():
    text = csv_of("What is rain?,Water,Sand,Salt,Dust,A,Rain is water.,,my note",
                  header=HEADER + ",notes")
    questions, errors = trivia.parse_csv(text)
    assert errors == []
    assert questions[0]["topic"] == "custom"


def test_csv_exactly_500_rows_is_allowed():
    questions, errors = trivia.parse_csv(csv_of(*(good_row(i) for i in range(500))))
    assert errors == [] and len(questions) == 500
    assert questions[-1]["id"] == "u500"


def test_csv_language_column_codes_any_case_regions_and_blanks():
    header = HEADER + ",Language"
    text = csv_of(good_row(1) + ",es", good_row(2) + ",EN", good_row(3) + ",es-MX", good_row(4) + ",",
                  good_row(5) + ", Es_ar ", header=header)
    questions, errors = trivia.parse_csv(text, languages=("en", "es"))
    assert errors == []
    assert [q["language"] for q in questions] == ["es", "en", "es", None, "es"]
    for q in questions:
        assert trivia.question_problems(q, uploaded=True) == []
    # By default the parser knows the languages the game has a catalog for.
    assert trivia.parse_csv(text) == (questions, [])


def test_csv_unknown_language_is_a_row_error_naming_the_line_and_the_codes():
    text = csv_of(good_row(1) + ",es", good_row(2) + ",fr", good_row(3) + ",", good_row(4) + ",-",
                  header=HEADER + ",language")
    questions, errors = trivia.parse_csv(text, languages=("en", "es"))
    assert [line for line, _ in errors] == [3, 5]
    assert errors[0][1] == ('the language "fr" is not one the app has: write en, es, '
                            'or leave the cell empty for any language')
    assert '"-"' in errors[1][1]
    assert [q["id"] for q in questions] == ["u001", "u003"]
    # The same file is good when the app speaks French too.
    questions, errors = trivia.parse_csv(csv_of(good_row(2) + ",FR-ca", header=HEADER + ",language"),
                                         languages=("en", "es", "fr"))
    assert errors == [] and questions[0]["language"] == "fr"


def test_a_question_language_is_checked_and_only_uploads_may_carry_it():
    q = {"id": "u001", "question": "Q?", "options": ["a", "b", "c", "d"], "answer": 2,
         "explanation": "E.", "difficulty": "custom", "topic": "custom"}
    assert trivia.question_problems(q, uploaded=True) == []            # a bank from before the column
    for good in (None, "es", "en"):
        assert trivia.question_problems(dict(q, language=good), uploaded=True) == []
    for bad in ("", "ES", "es-MX", 7, "<b>"):
        assert any("language" in p for p in trivia.question_problems(dict(q, language=bad), uploaded=True)), bad
    builtin = dict(q, difficulty="easy", language="en")
    assert any("unexpected language" in p for p in trivia.question_problems(builtin))


# ------------------------------------------------------------ CSV uploads: problems

@pytest.mark.parametrize("row, reason", [
    (good_row(1, "E"), 'the correct option "E" is not A, B, C or D'),
    (good_row(1, "5"), 'the correct option "5" is not A, B, C or D'),
    (good_row(1, ""), "correct is empty"),
    ("What?,a,b,,d,A,Because.,", "option_c is empty"),
    (",a,b,c,d,A,Because.,", "question is empty"),
    ("What?,a,b,c,d,A,,", "explanation is empty"),
    ("What?,Same,b,c,same,A,Because.,", "two options are the same"),
    ("W" * 301 + "?,a,b,c,d,A,Because.,", "question is longer than 300 characters"),
    ("What <b>now</b>?,a,b,c,d,A,Because.,", "question contains HTML (< or >)"),
    ("What?,a,b,c,d>,A,Because.,", "option_d contains HTML (< or >)"),
    ("What?,a\x00,b,c,d,A,Because.,", "option_a contains a NUL byte"),
    ("What?,a,b,c,d,A,Because.,rivers,surprise", "more cells"),
])
def test_csv_each_reason_with_its_line(row, reason):
    text = csv_of(good_row(1), good_row(2), row)
    questions, errors = trivia.parse_csv(text)
    assert len(errors) >= 1
    assert all(line == 4 for line, _ in errors), errors
    assert any(reason in message for _, message in errors), errors


def test_csv_every_bad_row_is_listed():
    text = csv_of(
        good_row(1),                       # line 2
        good_row(2, "Z"),                  # line 3
        "",                                # line 4: blank, skipped but counted
        good_row(3),                       # line 5
        "What?,a,b,,d,A,Because.,",        # line 6
        "Who?,a,a,c,d,A,<i>x</i>,",        # line 7: two problems
    )
    questions, errors = trivia.parse_csv(text)
    assert [line for line, _ in errors] == [3, 6, 7, 7]
    assert 'the correct option "Z"' in errors[0][1]
    assert errors[1][1] == "option_c is empty"
    assert errors[2][1] == "two options are the same"
    assert errors[3][1] == "explanation contains HTML (< or >)"
    assert [q["question"] for q in questions] == ["Question number 1?", "Question number 3?"]


def test_csv_line_numbers_count_rows_not_physical_lines():
    text = csv_of('"A question\nover two lines?",a,b,c,d,A,Because.,', good_row(2, "X"))
    _, errors = trivia.parse_csv(text)
    assert [line for line, _ in errors] == [3]


def test_csv_duplicate_question_names_the_repeat_line():
    text = csv_of(good_row(1), good_row(2), good_row(1).replace("Question number 1?", "  question NUMBER 1? "))
    questions, errors = trivia.parse_csv(text)
    assert errors == [(4, "the same question is already on line 2")]


def test_csv_header_missing_columns():
    text = "question,option_a,option_b,answer,explanation\nWhat?,a,b,A,Because.\n"
    questions, errors = trivia.parse_csv(text)
    assert questions == []
    assert len(errors) == 1
    line, reason = errors[0]
    assert line == 1
    for column in ("option_c", "option_d", "correct"):
        assert column in reason
    assert "explanation" not in reason


def test_csv_header_naming_a_column_twice():
    _, errors = trivia.parse_csv(csv_of(good_row(1), header=HEADER + ",Question"))
    assert errors == [(1, "the header names a column twice: question")]


@pytest.mark.parametrize("text", ["", "   \n\n", "\ufeff", ",,,\n"])
def test_csv_empty_file(text):
    assert trivia.parse_csv(text) == ([], [(0, "the file is empty")])


def test_csv_header_only():
    questions, errors = trivia.parse_csv(HEADER + "\n\n")
    assert questions == []
    assert errors == [(0, "the file has a header row but no questions")]


def test_csv_more_than_500_rows():
    questions, errors = trivia.parse_csv(csv_of(*(good_row(i) for i in range(501))))
    assert questions == []
    assert errors == [(0, "the file has 501 questions; the limit is 500")]


def test_csv_file_too_large():
    text = csv_of(good_row(1)) + " " * 200_001
    assert trivia.parse_csv(text) == ([], [(0, "the file is larger than 200 kB")])


def test_csv_not_valid_csv():
    questions, errors = trivia.parse_csv(HEADER + '\n"an unfinished quote,a,b,c,d,A,x\n')
    assert questions == []
    assert len(errors) == 1 and errors[0][0] == 0
    assert "not valid CSV" in errors[0][1]


def test_csv_help_and_docstring_name_every_column():
    for column in (*trivia.CSV_REQUIRED, *trivia.CSV_OPTIONAL):
        assert column in trivia.CSV_COLUMNS_HELP
        assert column in trivia.__doc__
    assert "<" not in trivia.CSV_COLUMNS_HELP.replace("< or >", "")


def test_the_engine_plays_a_bank_whose_questions_carry_a_language():
    from app.engines.contract import IllegalAction
    from app.engines.water_cycle import engine
    text = csv_of(good_row(1) + ",es", good_row(2) + ",", header=HEADER + ",language")
    bank, errors = trivia.parse_csv(text, languages=("en", "es"))
    assert errors == []
    old = {k: v for k, v in bank[1].items() if k != "language"}   # a bank saved before the column
    state = engine.new({"trivia": [bank[0], old]}, ["Ana", "Ben"], 7)
    assert state["custom_trivia"] == [bank[0], old]
    with pytest.raises(IllegalAction, match="language"):
        engine.new({"trivia": [dict(bank[0], language="Spanish")]}, ["Ana", "Ben"], 7)
