"""Class-session seating (app/service/seating.py): pure rules, checked for every game's sizes."""
from __future__ import annotations

import random

import pytest

from app import engines
from app.service import seating
from app.service.seating import SOLO, SeatingError, Student, Table

# Every seating shape a game can declare (tables of N with or without a solo
# option, pairs), as pure data: seating knows no game, so these stand for any.
SHAPES = {
    "tables_with_solo": seating.SeatingRule("tables_with_solo", "Card battle", (2, 3, 4, 5, 6), 4, 2,
                                            solo_computers=1, solo_label="Solo against a computer"),
    "tables_with_demo": seating.SeatingRule("tables_with_demo", "Trainees", (2, 3, 4), 4, 2, solo_computers=1,
                                            solo_label="Guided demo with a practice rival"),
    "tables": seating.SeatingRule("tables", "Small tables", (2, 3, 4), 4, 2),
    "pairs": seating.SeatingRule("pairs", "Duel", (2,), 2, 2),
}
CASES = [(rule, size, fill) for rule in SHAPES.values() for size in rule.choices() for fill in (False, True)]


def case_id(case):
    rule, size, fill = case
    return f"{rule.game}-{size}-{'fill' if fill else 'nofill'}"


def arrive_all(rule, size, n, tables=None, start=0):
    tables = [] if tables is None else tables
    for k in range(start, start + n):
        seating.arrive(tables, rule, size, Student(f"s{k}"))
    return tables


def check_plan(tables, plan, rule, size, fill, everyone):
    """The invariants a balanced start must meet."""
    seated = [s.key for students in plan.final for s in students]
    assert sorted(seated) == sorted(everyone), "every student seated exactly once"
    cap = seating.seats_per_table(rule, size)
    free = [i for i, t in enumerate(tables) if not t.locked] + list(range(len(tables), len(plan.final)))
    sizes = [len(plan.final[i]) for i in free if plan.final[i]]
    for i, students in enumerate(plan.final):
        if not students:
            assert plan.computers[i] == 0, "an empty table gets no computer players"
            continue
        total = len(students) + plan.computers[i]
        assert total <= cap, "no table above the table size"
        assert total >= rule.minimum, "no table below the game's minimum, computers included"
        if len(students) < rule.minimum:
            assert plan.computers[i] > 0
        if size == SOLO:
            assert len(students) == 1 and plan.computers[i] == rule.solo_computers
        elif fill:
            assert total == size, "computer players fill every empty seat"
        else:
            # Without fill, computers only make up a shortfall below the minimum.
            hand_added = i < len(tables) and tables[i].computers
            assert plan.computers[i] == max(0, rule.minimum - len(students)) or hand_added
    if sizes:
        assert max(sizes) - min(sizes) <= 1, f"sizes differ by at most one: {sizes}"
        assert len(sizes) == len(seating.split(len(everyone), size)), "the fewest tables"
    moved = [key for key, _f, _t in plan.moves]
    assert len(moved) == len(set(moved))


# ------------------------------------------------------------------ rules
def test_every_game_has_a_rule_from_its_spec():
    engines.register("testgames.dicerace")
    r = {key: seating.rule_for(key) for key in engines.keys()}
    assert {"war", "dicerace"} <= set(r)
    assert r["war"].choices() == [2, 3, 4, 5, 6, SOLO] and r["war"].default == 4 and r["war"].solo_computers == 1
    assert r["dicerace"].choices() == [2, 3, 4, SOLO] and r["dicerace"].default == 2
    assert all(rule.minimum == 2 for rule in r.values())
    with pytest.raises(SeatingError, match="no class session"):
        seating.rule_for("chess")


@pytest.mark.parametrize("raw, expected", [(None, 4), ("", 4), (3, 3), ("5", 5), (" 6 ", 6), ("solo", SOLO),
                                           ("SOLO", SOLO)])
def test_table_size_accepts_ints_digit_strings_and_solo(raw, expected):
    assert seating.parse_table_size(seating.rule_for("war"), raw) == expected


@pytest.mark.parametrize("game, raw", [("war", 7), ("war", 1), ("war", True), ("war", "four"), ("war", 4.5),
                                       ("war", 8), ("war", "0"), ("war", [4])])
def test_table_size_refuses_what_the_game_cannot_seat(game, raw):
    with pytest.raises(SeatingError, match="must be one of"):
        seating.parse_table_size(seating.rule_for(game), raw)


def test_unknown_game_has_no_rule():
    with pytest.raises(SeatingError):
        seating.rule_for("chess")


# -------------------------------------------------------------- balancing
def test_thirteen_students_at_tables_of_four_become_four_three_three_three():
    rule = seating.rule_for("war")
    tables = arrive_all(rule, 4, 13)
    assert [len(t.students) for t in tables] == [4, 4, 4, 1]  # filled in order as they arrive
    plan = seating.balance(tables, rule, 4, fill=False)
    assert plan.sizes() == [4, 3, 3, 3] and plan.computers == [0, 0, 0, 0]
    assert len(plan.moves) == 2 and plan.new_tables == 0
    # The latest arrivals of the full tables move; the first players stay put.
    assert {key for key, _f, _t in plan.moves} == {"s7", "s11"}
    with_fill = seating.balance(tables, rule, 4, fill=True)
    assert with_fill.sizes() == [4, 3, 3, 3] and with_fill.computers == [0, 1, 1, 1]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_balance_for_every_size_and_1_to_40_students(case):
    rule, size, fill = case
    for n in range(1, 41):
        tables = arrive_all(rule, size, n)
        plan = seating.balance(tables, rule, size, fill)
        check_plan(tables, plan, rule, size, fill, [f"s{k}" for k in range(n)])


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_arrivals_fill_lobby_tables_in_order(case):
    rule, size, _fill = case
    tables = arrive_all(rule, size, 17)
    per = seating.students_per_table(size)
    assert [len(t.students) for t in tables] == [per] * (17 // per) + ([17 % per] if 17 % per else [])
    if size == SOLO:
        assert all(t.computers == rule.solo_computers for t in tables)


def test_pairs_with_an_odd_student_play_the_computer():
    rule = SHAPES["pairs"]
    for n in (1, 3, 5, 29):
        plan = seating.balance(arrive_all(rule, 2, n), rule, 2, fill=False)
        assert sorted(plan.sizes()) == [1] + [2] * (n // 2)
        lone = plan.sizes().index(1)
        assert plan.computers[lone] == 1 and sum(plan.computers) == 1


def test_a_class_of_one_plays_a_computer_even_without_fill():
    rule = seating.rule_for("war")
    plan = seating.balance(arrive_all(rule, 4, 1), rule, 4, fill=False)
    assert plan.sizes() == [1] and plan.computers == [1]


def test_solo_seats_each_student_alone_with_one_computer_opponent():
    rule = seating.rule_for("war")
    tables = arrive_all(rule, SOLO, 5)
    assert [(len(t.students), t.computers) for t in tables] == [(1, 1)] * 5
    plan = seating.balance(tables, rule, SOLO, fill=False)
    assert plan.moves == [] and plan.computers == [1] * 5


def test_balancing_already_even_tables_moves_nobody():
    rule = seating.rule_for("war")
    tables = arrive_all(rule, 3, 12)
    assert seating.balance(tables, rule, 3, fill=False).moves == []


# ----------------------------------------------------- late arrivals, moves
def test_a_late_arrival_joins_a_lobby_table_with_room_or_a_new_one():
    rule = seating.rule_for("war")
    tables = arrive_all(rule, 4, 6)  # 4 + 2
    assert seating.place(tables, rule, 4) == 1
    tables[1].locked = True  # e.g. the teacher locked it
    assert seating.place(tables, rule, 4) is None
    # Started tables are not in the model at all: with none left in the lobby, a new table.
    assert seating.place([], rule, 4) is None
    index = seating.arrive(tables, rule, 4, Student("late"))
    assert index == 2 and [s.key for s in tables[2].students] == ["late"]


def test_no_one_is_placed_where_a_computer_would_deal():
    rule = seating.rule_for("war")
    tables = [Table("A", [], computers=1, computer_first=True), Table("B", [Student("x")], computers=1,
                                                                        computer_first=True)]
    assert seating.place(tables, rule, 4) is None


def test_moves_respect_sizes_and_moved_students_stay_when_balancing():
    rule = seating.rule_for("war")
    tables = arrive_all(rule, 4, 10)  # 4, 4, 2
    with pytest.raises(SeatingError, match="full"):
        seating.move(tables, rule, 4, "s8", 0)
    with pytest.raises(SeatingError, match="already"):
        seating.move(tables, rule, 4, "s8", 2)
    with pytest.raises(SeatingError, match="not waiting"):
        seating.move(tables, rule, 4, "nobody", 0)
    # The teacher separates s7 from its friends: to the last table.
    assert seating.move(tables, rule, 4, "s7", 2) == 2
    assert [len(t.students) for t in tables] == [4, 3, 3]
    plan = seating.balance(tables, rule, 4, fill=False)
    assert plan.sizes() == [4, 3, 3] and plan.moves == []
    # After another change that needs balancing, the pinned student is not the one moved.
    seating.arrive(tables, rule, 4, Student("s10"))  # joins table 1 (3 -> 4)
    seating.leave(tables, "s8")
    seating.leave(tables, "s9")  # table 2 keeps s7 only
    plan = seating.balance(tables, rule, 4, fill=False)
    check_plan(tables, plan, rule, 4, False, ["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s10", "s7"])
    assert "s7" not in [key for key, _f, _t in plan.moves]


def test_move_to_a_new_table_and_solo_tables_take_one_student():
    rule = seating.rule_for("war")
    tables = arrive_all(rule, SOLO, 2)
    with pytest.raises(SeatingError, match="one student"):
        seating.move(tables, rule, SOLO, "s0", 1)
    assert seating.move(tables, rule, SOLO, "s0", None) == 2
    assert (len(tables[0].students), tables[0].computers) == (0, 0)  # the opponent left with the student
    assert (len(tables[2].students), tables[2].computers) == (1, 1)
    assert seating.place(tables, rule, SOLO) == 0  # the emptied table is reused


def test_a_student_leaving_before_the_start_keeps_the_tables_consistent():
    rule = seating.rule_for("war")
    tables = arrive_all(rule, 4, 9)  # 4, 4, 1
    seating.leave(tables, "s8")      # the only student of table 3 is removed in the lobby
    seating.leave(tables, "s1")
    assert [len(t.students) for t in tables] == [3, 4, 0]
    assert seating.place(tables, rule, 4) == 0  # the gap is filled first
    plan = seating.balance(tables, rule, 4, fill=False)
    everyone = [f"s{k}" for k in range(8) if k != 1]
    check_plan(tables, plan, rule, 4, False, everyone)
    assert plan.sizes()[2] == 0 and plan.computers[2] == 0  # the empty table does not start


def test_random_lobbies_with_moves_leaves_and_locks_always_balance_validly():
    rng = random.Random(20240611)
    for trial in range(300):
        rule = rng.choice(list(SHAPES.values()))
        size = rng.choice(rule.choices())
        fill = rng.random() < 0.5
        tables, everyone, k = [], [], 0
        for _ in range(rng.randint(1, 40)):
            roll = rng.random()
            if roll < 0.7 or not everyone:
                seating.arrive(tables, rule, size, Student(f"s{k}"))
                everyone.append(f"s{k}")
                k += 1
            elif roll < 0.85:
                who = rng.choice(everyone)
                to = rng.choice([None] + list(range(len(tables))))
                try:
                    seating.move(tables, rule, size, who, to)
                except SeatingError:
                    pass
            elif roll < 0.95:
                who = rng.choice(everyone)
                seating.leave(tables, who)
                everyone.remove(who)
            else:
                busy = [t for t in tables if t.students]
                if busy:
                    rng.choice(busy).locked = True
        for t in tables:  # the model never exceeds a table's chairs
            assert t.seats() <= seating.seats_per_table(rule, size), trial
        if not everyone:
            continue
        plan = seating.balance(tables, rule, size, fill)
        assert sorted(s.key for students in plan.final for s in students) == sorted(everyone), trial
        for i, students in enumerate(plan.final):
            if students:
                total = len(students) + plan.computers[i]
                assert rule.minimum <= total <= seating.seats_per_table(rule, size), (trial, i)
        free = [len(plan.final[i]) for i in range(len(plan.final))
                if (i >= len(tables) or not tables[i].locked) and plan.final[i]]
        if free:
            assert max(free) - min(free) <= 1, (trial, free)
