"""Class-session seating: which table each student sits at. Pure logic, no database.

A class session seats a whole class into as many tables as the game needs.
Each game's seating rule comes from its spec (`GAME.seating`); this module works on a small model of the class's *lobby*
tables (`Table`: its students, computer seats and lock), answering four
questions for app/service/classes/, which applies the answers to the database:

- `place`   where a student arriving now sits (lobby tables filled in order);
- `move`    whether the facilitator may move a student to another table;
- `leave`   a student left or was removed before the start;
- `balance` how to even the tables out when the facilitator starts the class
            (13 students at size 4 -> 4, 3, 3, 3), and how many computer
            players each table then needs.

Started tables are never part of the model: once a table plays, its players stay.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any
from app.engines.text import N_

SOLO = "solo"  # table size: every student alone against computer opponent(s)


class SeatingError(ValueError):
    """A seating request that cannot be met; the message is shown to the facilitator."""


@dataclass(frozen=True)
class SeatingRule:
    """How one game seats a class.

    `sizes` are the table sizes a facilitator may choose, `minimum` the fewest
    players a table may start with (below it, computer players make up the
    difference), `solo_computers` the computer opponents of a solo table.
    """

    game: str
    title: str
    sizes: tuple[int, ...]
    default: int | str
    minimum: int
    solo_computers: int = 0  # 0: the game has no solo seating (unless `alone`)
    solo_label: str = ""
    # Solo is the only seating, whatever size a form sends: a game played alone (no computer
    # seat), or the guided demo (each student with its `solo_computers`).
    alone: bool = False

    @property
    def solo(self) -> bool:
        return self.solo_computers > 0 or self.alone

    @property
    def pairs(self) -> bool:
        return self.sizes == (2,)

    def choices(self) -> list[int | str]:
        return list(self.sizes) + ([SOLO] if self.solo else [])

    def choice_labels(self) -> list[tuple[str, str]]:
        """(form value, label) for the dashboard's table-size menu."""
        out = [(str(n), f"{n} players per table") for n in self.sizes]
        if self.solo:
            out.append((SOLO, self.solo_label))
        return out

    def to_json(self) -> dict:
        return {"game": self.game, "sizes": list(self.sizes), "default": self.default,
                "minimum": self.minimum, "solo": self.solo, "solo_computers": self.solo_computers,
                "pairs": self.pairs}


ALONE_LABEL = "Solo: each student plays alone at their own table"
DEMO_LABEL = "Guided demo: each student at their own table with the computer"


def rule_for(game: str, options: dict | None = None) -> SeatingRule:
    """The game's seating rule, from its spec (`GAME.seating`), for a class with these
    options: a game whose options narrow the seats (GameSpec.seats_for) keeps only the
    table sizes within them, and when a table takes one player the class seats every
    student alone, without computer seats."""
    from app import engines
    from app.engines.contract import IllegalAction

    try:
        spec = engines.spec(game)
    except IllegalAction:
        raise SeatingError(f"There is no class session for the game {game!r}.")
    s = spec.seating
    lo, hi = spec.seat_range(options)
    if hi == 1:
        return SeatingRule(spec.key, spec.title, (), SOLO, 1, solo_label=ALONE_LABEL, alone=True)
    if spec.is_demo(options):
        # The guided demo is one trainee and its computer seats: a class plays it one student a table.
        computers = len(spec.demo.computers)
        return SeatingRule(spec.key, spec.title, (), SOLO, 1, solo_computers=computers,
                           solo_label=DEMO_LABEL, alone=True)
    sizes = tuple(n for n in s.sizes if lo <= n <= hi)
    default = s.default if s.default == SOLO or s.default in sizes else (sizes[-1] if sizes else SOLO)
    return SeatingRule(spec.key, spec.title, sizes, default, max(s.minimum, lo),
                       solo_computers=s.solo_computers, solo_label=s.solo_label)


def parse_table_size(rule: SeatingRule, raw: Any = None) -> int | str:
    """The facilitator's table size: an int, a digit string from a form, or "solo"."""
    if raw is None or raw == "" or rule.alone:
        return rule.default  # a game played alone has one table size, whatever the form said
    value: Any = raw
    if isinstance(raw, str):
        text = raw.strip().lower()
        value = int(text) if text.isdigit() else text
    if isinstance(value, bool) or value not in rule.choices():
        allowed = ", ".join(str(c) for c in rule.choices())
        raise SeatingError(f"The table size for {rule.title} must be one of: {allowed}.")
    return value


def students_per_table(table_size: int | str) -> int:
    return 1 if table_size == SOLO else int(table_size)


def seats_per_table(rule: SeatingRule, table_size: int | str) -> int:
    """All chairs of one table, computer players included."""
    return 1 + rule.solo_computers if table_size == SOLO else int(table_size)


def computers_needed(rule: SeatingRule, table_size: int | str, fill: bool, students: int) -> int:
    """Computer players a table of `students` starts with (in total, not in addition).

    Solo tables get the game's computer opponents; with `fill` every empty
    chair up to the table size gets one; otherwise only a table below the
    game's minimum does (a lone leftover student in a pairs game plays the
    computer, and so does a class of one).
    """
    if students <= 0:
        return 0
    if table_size == SOLO:
        return rule.solo_computers
    if fill:
        return max(0, int(table_size) - students)
    return max(0, rule.minimum - students)


def split(students: int, table_size: int | str) -> list[int]:
    """Balanced table sizes for `students`: the fewest tables that respect the
    size, sizes differing by at most one, largest first."""
    if students <= 0:
        return []
    if table_size == SOLO:
        return [1] * students
    count = math.ceil(students / int(table_size))
    base, extra = divmod(students, count)
    return [base + 1] * extra + [base] * (count - extra)


# --------------------------------------------------------------------------- model
@dataclass
class Student:
    key: Any
    pinned: bool = False  # the facilitator put this student here: balancing moves others first


@dataclass
class Table:
    """A lobby table: its students in seat order, its computer seats, its lock.

    `computer_first` is True when seat 0 (whoever may press the start button)
    is a computer: no arriving student is placed there.
    """

    key: Any
    students: list[Student] = field(default_factory=list)
    computers: int = 0
    locked: bool = False
    computer_first: bool = False

    def seats(self) -> int:
        return len(self.students) + self.computers


def _index_of(tables: list[Table], student_key) -> tuple[int, int]:
    for ti, table in enumerate(tables):
        for si, student in enumerate(table.students):
            if student.key == student_key:
                return ti, si
    raise SeatingError(N_("That student is not waiting at a table of this class."))


def place(tables: list[Table], rule: SeatingRule, table_size: int | str) -> int | None:
    """The lobby table an arriving student joins (the first with a free chair,
    in order), or None for a new table. Locked tables take no one."""
    for i, table in enumerate(tables):
        if table.locked:
            continue
        if table_size == SOLO:
            if table.seats() == 0:  # a solo table left empty by a move can be reused
                return i
            continue
        if table.computer_first or (not table.students and table.computers):
            continue
        if table.seats() < seats_per_table(rule, table_size):
            return i
    return None


def arrive(tables: list[Table], rule: SeatingRule, table_size: int | str, student: Student) -> int:
    """`place` and seat the student in the model; returns the table's index (appending a new table)."""
    index = place(tables, rule, table_size)
    if index is None:
        tables.append(Table(key=None))
        index = len(tables) - 1
    tables[index].students.append(student)
    if table_size == SOLO and tables[index].computers == 0:
        tables[index].computers = rule.solo_computers
    return index


def check_move(tables: list[Table], rule: SeatingRule, table_size: int | str, student_key,
               to: int | None) -> int:
    """Validate moving a student to table `to` (None: a new table); returns the source index."""
    source, _ = _index_of(tables, student_key)
    if to is None:
        return source
    if not 0 <= to < len(tables):
        raise SeatingError(N_("Choose a table that is still waiting to start."))
    if to == source:
        raise SeatingError(N_("The student is already at that table."))
    target = tables[to]
    if table_size == SOLO and target.students:
        raise SeatingError(N_("Solo tables seat one student each; move the student to a new table instead."))
    limit = seats_per_table(rule, table_size)
    extra = rule.solo_computers if table_size == SOLO and not target.computers else 0
    if target.seats() + 1 + extra > limit:
        raise SeatingError(f"That table is full ({limit} players). Move someone away first, "
                           "or move the student to a new table.")
    return source


def move(tables: list[Table], rule: SeatingRule, table_size: int | str, student_key, to: int | None,
         *, pinned: bool = True) -> int:
    """Move a student (the facilitator's choice: pinned by default); returns the target's index."""
    source = check_move(tables, rule, table_size, student_key, to)
    _, si = _index_of(tables, student_key)
    student = tables[source].students.pop(si)
    student.pinned = pinned
    if to is None:
        tables.append(Table(key=None))
        to = len(tables) - 1
    tables[to].students.append(student)
    _tidy(tables[source])
    if table_size == SOLO and tables[to].computers == 0:
        tables[to].computers = rule.solo_computers
    return to


def leave(tables: list[Table], student_key) -> None:
    """A student left (or was removed) before the start."""
    ti, si = _index_of(tables, student_key)
    tables[ti].students.pop(si)
    _tidy(tables[ti])


def _tidy(table: Table) -> None:
    # A lobby table with no student left needs no computer opponents either.
    if not table.students:
        table.computers = 0
        table.computer_first = False


@dataclass
class Plan:
    """What `balance` decided.

    `moves` are (student key, from table index, to table index); an index at
    or beyond the number of given tables names a table to create. `final[i]`
    are the students of table i after the moves, `computers[i]` how many
    computer seats table i has when it starts (the caller adds or removes
    computer seats to match; an empty table has none and does not start).
    """

    moves: list[tuple[Any, int, int]]
    final: list[list[Student]]
    computers: list[int]
    new_tables: int

    def sizes(self) -> list[int]:
        return [len(students) for students in self.final]


def balance(tables: list[Table], rule: SeatingRule, table_size: int | str, fill: bool) -> Plan:
    """Even the unlocked lobby tables out before the start, moving as few students as possible.

    Locked tables keep their students (a lock is the facilitator saying "leave
    this table alone"). The others are re-split into the fewest tables that
    respect the size, differing by at most one; the tables holding most
    students keep the largest targets, so few students move, and the students
    who move are those who arrived last and were not placed by the facilitator.
    """
    free = [i for i, t in enumerate(tables) if not t.locked]
    total = sum(len(tables[i].students) for i in free)
    targets_sorted = split(total, table_size)
    pinned = {i: sum(s.pinned for s in tables[i].students) for i in free}
    order = sorted(free, key=lambda i: (-len(tables[i].students), -pinned[i], i))
    target = {i: 0 for i in free}
    for i, want in zip(order, targets_sorted):
        target[i] = want
    new = targets_sorted[len(order):]
    for k, want in enumerate(new):
        target[len(tables) + k] = want

    final = [list(t.students) for t in tables] + [[] for _ in new]
    pool: list[tuple[Student, int]] = []
    for i in free:
        surplus = len(final[i]) - target[i]
        if surplus <= 0:
            continue
        # Unpinned before pinned, latest arrival first.
        ranked = sorted(range(len(final[i])), key=lambda si: (final[i][si].pinned, -si))
        leaving = sorted(ranked[:surplus])
        pool += [(final[i][si], i) for si in leaving]
        final[i] = [s for si, s in enumerate(final[i]) if si not in set(leaving)]
    moves = []
    for i in free + list(range(len(tables), len(tables) + len(new))):
        while len(final[i]) < target[i]:
            student, source = pool.pop(0)
            final[i].append(student)
            moves.append((student.key, source, i))
    assert not pool, "every surplus student has a table"

    computers = []
    for i, students in enumerate(final):
        needed = computers_needed(rule, table_size, fill, len(students))
        if i < len(tables) and students:
            # Computers the facilitator added by hand stay while the table has room for them.
            needed = max(needed, min(tables[i].computers, seats_per_table(rule, table_size) - len(students)))
        computers.append(needed)
    return Plan(moves=moves, final=final, computers=computers, new_tables=len(new))
