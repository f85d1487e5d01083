"""The class overview from the tables' live copies (issue 19 item 6): a push reads no
table, seat or event row while the class itself is unchanged (the moves of a game in
play), and says what the overview built from the database says, in the lobby, in play,
after a player is removed, once a table has ended and once its students moved on."""
from __future__ import annotations

import re

import pytest
from sqlalchemy import event

from app.extensions import services
from app.service.tables import TableService

ROW_TABLES = re.compile(r"\b(game_table|seat|event)\b", re.IGNORECASE)


@pytest.fixture
def classes(app):
    return services(app).classes


@pytest.fixture
def statements(app):
    """Every SQL statement the app runs while the test looks (`statements.clear()` to start)."""
    seen: list[str] = []

    def record(conn, cursor, statement, parameters, context, executemany):
        seen.append(statement)

    db = services(app).db
    event.listen(db, "before_cursor_execute", record)
    yield seen
    event.remove(db, "before_cursor_execute", record)


def from_database(classes, code: str) -> tuple[dict, dict]:
    """(overview, public overview) as they were built before: every row read again."""
    klass = classes.get(code)
    rows = classes.rows.read(klass)
    moved = {x.id for r in rows for x in r["seats"] if x.moved_to is not None}
    return classes.overviews.overview_of(klass, rows, moved), classes.overviews.public_overview_of(klass, rows, moved)


def timeless(overview: dict) -> dict:
    """The overview without the clock's readings (the two builds run a moment apart)."""
    out = {k: v for k, v in overview.items() if k != "now"}
    if "tables" in out:
        out["tables"] = [{k: ([{**p, "away_seconds": None} for p in v] if k == "players" else v)
                          for k, v in t.items() if k != "idle_seconds"} for t in out["tables"]]
    return out


def same_as_database(classes, code: str) -> dict:
    overview, board = classes.overview(code), classes.public_overview(code)
    expected, expected_board = from_database(classes, code)
    assert timeless(overview) == timeless(expected)
    assert board == expected_board
    # The idle time (the clock aside) rests on when each table's last event was written.
    klass = classes.get(code)
    written = {r["table"].code: r["last_at"] for r in classes.rows.read(klass)}
    live = {r["table"].code: r["last_at"] for r in classes.overviews.live_rows(klass)[0]}
    assert live == written
    return overview


def play(tables, code: str, moves: int) -> None:
    """`moves` moves of whoever can move at the table (seats first, by their listed actions)."""
    for _ in range(moves):
        live = tables.live(code)
        for seat in live.seats:
            if seat.computer:
                continue
            actions = tables.view_for(code, seat.index)["actions"]
            if actions:
                tables.act(code, seat.index, live.version, actions[0])
                break
        else:
            return


def test_the_overview_comes_from_the_live_copies_and_matches_the_database(app, classes, teacher, statements):
    tables = services(app).tables
    code = classes.create(teacher.id, "war", table_size=2).code
    seats = {name: classes.join_any(code, name) for name in ("Ana", "Ben", "Cara", "Dev")}
    first, second = sorted({s["table"] for s in seats.values()})

    same_as_database(classes, code)  # the lobby
    classes.start(teacher.id, code)
    play(tables, first, 6)
    play(tables, second, 3)
    same_as_database(classes, code)  # in play

    # A push while the games go on: no table, seat or event row is read.
    play(tables, first, 2)
    statements.clear()
    overview, board = classes.overview(code), classes.public_overview(code)
    assert not [s for s in statements if ROW_TABLES.search(s)], statements
    assert len(statements) == 2  # the class row, once per overview
    assert {t["code"]: t["version"] for t in overview["tables"]}[first] == tables.live(first).version
    assert board["tables"] and overview["counts"]["playing"] == 2

    # The teacher removes a player in play: the computer takes the seat.
    live = tables.live(second)
    tables.moderate(teacher.id, second, live.version, {"type": "kick", "seat": 1})
    overview = same_as_database(classes, code)
    assert [p["computer"] for t in overview["tables"] if t["code"] == second for p in t["players"]] == [False, True]

    # One table ends; a student of it moves on to a new table (the ended table keeps the record).
    classes.moderate(teacher.id, code, "end", table_code=first)
    overview = same_as_database(classes, code)
    assert {t["code"]: t["status"] for t in overview["tables"]}[first] == "ended"
    classes.move(teacher.id, code, first, 0, "new")
    overview = same_as_database(classes, code)
    # Ana, re-seated, counts once; the removed player is the computer now
    assert sum(t["moved"] for t in overview["tables"]) == 1 and overview["counts"]["students"] == 3


def test_with_other_processes_a_push_catches_up_with_their_moves(app, classes, teacher, statements):
    """Another process (its own table service over the same database) plays a move: with
    `shared` (a message queue) the push checks the versions in one query and reloads
    that table; without it, this process's copy is trusted (it makes every write)."""
    code = classes.create(teacher.id, "war", table_size=2).code
    table = classes.join_any(code, "Ana")["table"]
    classes.join_any(code, "Ben")
    classes.start(teacher.id, code)
    classes.overview(code)
    other = TableService(services(app).db, bot_delay_scale=0)
    version = other.live(table).version
    actions = other.view_for(table, 0)["actions"]
    other.act(table, 0, version, actions[0])

    assert classes.overview(code)["tables"][0]["version"] == version  # this process's copy
    classes.overviews.shared = True
    statements.clear()
    overview = classes.overview(code)
    assert overview["tables"][0]["version"] == version + 1
    assert timeless(overview) == timeless(from_database(classes, code)[0])
    statements.clear()
    classes.overview(code)  # caught up: the versions agree, nothing reloads
    assert len([s for s in statements if ROW_TABLES.search(s)]) == 1, statements
