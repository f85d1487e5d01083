"""The table service on both databases: event sourcing, compare-and-swap, replay.

SQLite is the embedded default; PostgreSQL (127.0.0.1:5432, database `test`,
started on every machine of this kind) is the scaled configuration, used for
real here, never mocked.
"""
from __future__ import annotations

import threading
import time
import uuid
from pathlib import Path

import pytest
from sqlalchemy import text

from app import engines
from app.engines import war
from app.engines.contract import strip_label
from app.errors import ServiceError
from app.service.accounts import Accounts
from app.service.tables import TableService
from app.store.db import make_engine
from test_no_leak import set_seed

POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"


@pytest.fixture(params=["sqlite", "postgresql"])
def service(request, tmp_path):
    if request.param == "sqlite":
        db = make_engine(f"sqlite:///{tmp_path / 'service.db'}")
        yield TableService(db, bot_delay_scale=0)
        db.dispose()
        return
    # A private schema per test keeps parallel or leftover runs apart.
    schema = "t_" + uuid.uuid4().hex[:12]
    admin = make_engine(POSTGRES + "?options=-csearch_path%3Dpublic", migrate=False)  # it only makes schemas
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    db = make_engine(f"{POSTGRES}?options=-csearch_path%3D{schema}")
    yield TableService(db, bot_delay_scale=0)
    db.dispose()
    with admin.begin() as conn:
        conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    admin.dispose()


@pytest.fixture
def facilitator_id(service):
    return Accounts(service.db).add("teacher", "password-123").id


def seat_players(service, code, names):
    return [service.join(code, name) for name in names]


def play(service, code, seats, *, moves=None):
    """Reveal for every seat that may, until the game ends (or `moves` accepted)."""
    done = 0
    while service.get(code).status == "playing" and (moves is None or done < moves):
        table = service.get(code)
        for seat in range(seats):
            if any(a["type"] == "reveal" for a in war.actions(table.state, seat)):
                service.act(code, seat, table.version, {"type": "reveal"})
                done += 1
                break
    return done


def test_every_change_is_an_event_and_replay_equals_the_snapshot(service, facilitator_id):
    # A seeded deal that 80 reveals do not finish (a random race to 45 cards sometimes
    # ended first, and then there was no game for the teacher to end).
    table = service.create_table(facilitator_id, "war", {"length": "full_elimination"})
    set_seed(service, table.code, 7)
    seat_players(service, table.code, ["Ana", "Ben", "Cara"])
    service.act(table.code, 0, 3, {"type": "start"})
    play(service, table.code, 3, moves=40)
    # The deal is random: after 40 reveals a player may already be out (and so may not switch auto-play).
    state = service.get(table.code).state
    still_in = next(p for p in range(3) if {"type": "autoplay", "speed": 2} in
                    [strip_label(a) for a in war.actions(state, p)])
    service.act(table.code, still_in, service.get(table.code).version, {"type": "autoplay", "speed": 2})
    service.moderate(facilitator_id, table.code, service.get(table.code).version, {"type": "lock"})
    service.moderate(facilitator_id, table.code, service.get(table.code).version, {"type": "kick", "seat": 2})
    play(service, table.code, 3, moves=40)
    final = service.get(table.code)
    events = service.events(table.code)
    assert [e.version for e in events] == list(range(1, final.version + 1))
    assert service.replay(table.code) == final.state
    assert final.status == "playing"
    service.moderate(facilitator_id, table.code, final.version, {"type": "end"})
    ended = service.get(table.code)
    assert ended.status == "ended" and service.replay(table.code) == ended.state


def test_a_full_game_replays_exactly(service, facilitator_id):
    table = service.create_table(facilitator_id, "war", {})
    seat_players(service, table.code, ["Ana", "Ben"])
    service.act(table.code, 0, 2, {"type": "start"})
    play(service, table.code, 2)
    final = service.get(table.code)
    assert final.status == "ended" and war.result(final.state) is not None
    assert service.replay(table.code) == final.state


def _at_once(count, work):
    """Run work(i) for i in range(count) in threads released together; collect the outcomes."""
    barrier = threading.Barrier(count)
    outcomes = []

    def run(i):
        barrier.wait()
        try:
            outcomes.append(("ok", work(i)))
        except ServiceError as exc:
            outcomes.append((exc.code, None))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcomes


def test_simultaneous_reveals_from_one_version_are_all_accepted_in_one_battle(service, facilitator_id):
    table = service.create_table(facilitator_id, "war", {})
    seat_players(service, table.code, ["Ana", "Ben", "Cara", "Dan", "Eli", "Fay"])
    service.act(table.code, 0, 6, {"type": "start"})
    version = service.get(table.code).version
    # Each reveal as listed, naming its battle: order-free while that battle lasts.
    outcomes = _at_once(6, lambda seat: service.act(table.code, seat, version, {"type": "reveal", "battle": 1}))
    assert [code for code, _ in outcomes] == ["ok"] * 6
    after = service.get(table.code)
    assert after.version == version + 6 and len(service.events(table.code)) == version + 6
    assert after.state["battle"] >= 2 or after.state["stage"] > 0  # all six reveals made one battle
    assert service.replay(table.code) == after.state


def test_simultaneous_ordinary_actions_from_one_version_one_wins_one_is_stale(service, facilitator_id):
    table = service.create_table(facilitator_id, "war", {})
    seat_players(service, table.code, ["Ana", "Ben", "Cara"])
    service.act(table.code, 0, service.get(table.code).version, {"type": "start"})
    version = service.get(table.code).version
    # Removing a player depends on the seats the teacher saw: one removal wins, the other is stale.
    outcomes = _at_once(2, lambda i: service.moderate(facilitator_id, table.code, version,
                                                      {"type": "kick", "seat": 1 + i}))
    assert sorted(code for code, _ in outcomes) == ["ok", "stale"]
    assert service.get(table.code).version == version + 1


def test_pausing_locking_and_ending_are_accepted_from_an_old_version(service, facilitator_id):
    """Auto-play can move several times a second: the teacher's pause, lock and end
    mean the same whatever their screen showed, so they must not be refused as stale."""
    table = service.create_table(facilitator_id, "war", {})
    seat_players(service, table.code, ["Ana", "Ben"])
    service.act(table.code, 0, service.get(table.code).version, {"type": "start"})
    seen = service.get(table.code).version
    play(service, table.code, 2, moves=3)
    assert service.get(table.code).version > seen
    for kind in ("pause", "resume", "lock", "unlock"):
        assert service.moderate(facilitator_id, table.code, seen, {"type": kind}).version
    with pytest.raises(ServiceError) as again:   # still checked: it must make sense now
        service.moderate(facilitator_id, table.code, seen, {"type": "resume"})
    assert again.value.code == "illegal"
    service.moderate(facilitator_id, table.code, seen, {"type": "end"})
    assert service.get(table.code).status == "ended"


def test_simultaneous_joins_never_overfill_or_duplicate(service, facilitator_id):
    table = service.create_table(facilitator_id, "war", {})
    barrier = threading.Barrier(9)
    results = []

    def join(i):
        barrier.wait()
        try:
            results.append(service.join(table.code, f"P{i}")["seat"])
        except ServiceError as exc:
            results.append(exc.code)

    threads = [threading.Thread(target=join, args=(i,)) for i in range(9)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seats = sorted(r for r in results if isinstance(r, int))
    assert seats == list(range(6))
    assert sorted(r for r in results if isinstance(r, str)) == ["table_full"] * 3
    assert [s.seat_index for s in service.seats(table.code)] == list(range(6))


def test_an_illegal_or_stale_move_changes_nothing(service, facilitator_id):
    table = service.create_table(facilitator_id, "war", {})
    seat_players(service, table.code, ["Ana", "Ben"])
    service.act(table.code, 0, 2, {"type": "start"})
    before = service.get(table.code)
    ben_revealed = service.act(table.code, 1, before.version, {"type": "reveal"})
    before = service.get(table.code)
    assert ben_revealed.version == before.version
    for seat, version, action, code in [(1, before.version - 1, {"type": "reveal"}, "stale"),
                                        (0, before.version, {"type": "jump"}, "illegal"),
                                        (0, before.version, "reveal", "bad_request"),
                                        (5, before.version, {"type": "reveal"}, "forbidden")]:
        with pytest.raises(ServiceError) as err:
            service.act(table.code, seat, version, action)
        assert err.value.code == code
    after = service.get(table.code)
    assert (after.version, after.state) == (before.version, before.state)


def test_computer_seat_moves_through_the_same_path(service, facilitator_id):
    table = service.create_table(facilitator_id, "war", {})
    seat_players(service, table.code, ["Ana", "Ben"])
    service.act(table.code, 0, 2, {"type": "start"})
    kicked = service.moderate(facilitator_id, table.code, 3, {"type": "kick", "seat": 1})
    row = service.get(table.code)
    assert set(row.timers) == {"bot:1"} and row.next_due_at == kicked.next_due  # kept in the row
    outcomes = service.fire_due(table.code)
    assert [o.version for o in outcomes] == [5] and service.events(table.code)[-1].actor == "seat:1:auto"
    assert service.get(table.code).timers == {}  # Ana has not revealed yet: nothing for the computer
    assert service.fire_due(table.code) == []


def test_timers_live_in_the_row_survive_a_restart_and_fire_once_across_processes(service, facilitator_id):
    table = service.create_table(facilitator_id, "war", {})
    seat_players(service, table.code, ["Ana", "Ben"])
    service.act(table.code, 0, 2, {"type": "start"})
    service.moderate(facilitator_id, table.code, 3, {"type": "kick", "seat": 1})  # the computer plays Ben
    # Two more "processes" (services on the same database), started after the timer was set.
    first, second = TableService(service.db, bot_delay_scale=0), TableService(service.db, bot_delay_scale=0)
    assert [code for code, _due in second.due_tables()] == [table.code]
    outcomes = _at_once(2, lambda i: (first, second)[i].fire_due(table.code))
    fired = [o for _code, done in outcomes for o in done]
    assert len(fired) == 1 and fired[0].version == 5  # fired once
    assert [e.actor for e in service.events(table.code)][-1] == "seat:1:auto"
    assert second.due_tables() == [] and service.replay(table.code) == service.get(table.code).state


def test_pausing_freezes_the_timers_and_resuming_restarts_them(service, facilitator_id):
    service.bot_delay_scale = 1.0
    table = service.create_table(facilitator_id, "war", {})
    seat_players(service, table.code, ["Ana", "Ben"])
    service.act(table.code, 0, 2, {"type": "start"})
    service.moderate(facilitator_id, table.code, 3, {"type": "kick", "seat": 1})
    service.moderate(facilitator_id, table.code, 4, {"type": "pause"})
    paused = service.get(table.code)
    assert paused.next_due_at is None and paused.timers["bot:1"]["due"] is None
    assert 0 < paused.timers["bot:1"]["left"] <= 1.0
    assert service.fire_due(table.code, now=paused.timers["bot:1"]["left"] + 10**10) == []
    resumed = service.moderate(facilitator_id, table.code, 5, {"type": "resume"})
    assert resumed.next_due is not None and service.get(table.code).timers["bot:1"]["due"] == resumed.next_due


def test_replay_refuses_other_engine_or_data_versions(service, facilitator_id):
    table = service.create_table(facilitator_id, "war", {})
    seat_players(service, table.code, ["Ana", "Ben"])
    service.act(table.code, 0, 2, {"type": "start"})
    assert service.get(table.code).engine_version == war.GAME.version
    with service.db.begin() as conn:
        conn.execute(text("UPDATE game_table SET engine_version = 'war-classic-0' WHERE code = :c"),
                     {"c": table.code})
    with pytest.raises(ServiceError) as err:
        service.replay(table.code)
    assert "war-classic-0" in err.value.message and war.GAME.version in err.value.message


def test_a_deadline_is_a_system_action_fired_once_logged_and_replayed(service, facilitator_id):
    """The test game's vote closes after 30 s: `time_up` from "system", through the scheduler's path."""
    engines.register("testgames.dicerace")
    table = service.create_table(facilitator_id, "dicerace", {"goal": 30})
    seat_players(service, table.code, ["Ana", "Ben"])
    service.act(table.code, 0, 2, {"type": "start"})
    opened_at = None
    while "vote:1" not in service.get(table.code).timers:  # play rounds until the first vote opens
        live = service.live(table.code)
        seat, action = next((s, a) for s in (0, 1) for a in engines.get("dicerace").actions(live.state, s)
                            if a["type"] in ("start", "move"))
        before = time.time()
        service.act(table.code, seat, live.version, strip_label(action))
        opened_at = before
    row = service.get(table.code)
    due = row.timers["vote:1"]["due"]
    assert row.next_due_at == due and opened_at + 29 <= due <= time.time() + 30
    assert service.fire_due(table.code, now=due - 1) == []  # not yet
    service.act(table.code, 0, row.version, {"type": "vote", "choice": "sprint"})
    assert service.get(table.code).timers["vote:1"]["due"] == due  # a deadline does not move with the play
    fired = service.fire_due(table.code, now=due + 1)
    assert len(fired) == 1 and service.fire_due(table.code, now=due + 2) == []
    last = service.events(table.code)[-1]
    assert (last.kind, last.actor, last.action) == ("game", "system", {"type": "time_up"})
    assert service.get(table.code).state["phase"] != "vote"
    assert service.replay(table.code) == service.get(table.code).state


def test_a_timed_war_match_runs_its_clock_on_the_server(service, facilitator_id):
    """War's 3-minute clock: listed from the start, due 180 s after it, unmoved by play,
    frozen by a pause, shown to every viewer as a deadline, fired once as `time_up`."""
    table = service.create_table(facilitator_id, "war", {"length": "3_minutes"})
    seat_players(service, table.code, ["Ana", "Ben"])
    before = time.time()
    service.act(table.code, 0, 2, {"type": "start"})
    row = service.get(table.code)
    due = row.timers["clock:180"]["due"]
    assert before + 180 <= due <= time.time() + 180 and row.next_due_at == due
    service.act(table.code, 0, row.version, {"type": "reveal"})
    assert service.get(table.code).timers["clock:180"]["due"] == due   # play does not move it
    view = service.view_for(table.code, "board")
    assert view["deadlines"] == {"clock:180": {"due": due}}
    assert view["view"]["public"]["length"]["clock_key"] == "clock:180"
    paused_at = time.time()
    service.moderate(facilitator_id, table.code, service.get(table.code).version, {"type": "pause"})
    left = service.get(table.code).timers["clock:180"]["left"]
    assert due - time.time() <= left <= due - paused_at
    assert service.view_for(table.code, 0)["deadlines"] == {"clock:180": {"left": left}}
    assert service.fire_due(table.code, now=due + 1) == []              # paused: the clock stands still
    resumed = service.moderate(facilitator_id, table.code, service.get(table.code).version, {"type": "resume"})
    due = service.get(table.code).timers["clock:180"]["due"]
    assert resumed.next_due == due and service.view_for(table.code, "board")["deadlines"]["clock:180"] == {"due": due}
    assert service.fire_due(table.code, now=due - 1) == []
    fired = service.fire_due(table.code, now=due + 1)
    assert len(fired) == 1 and service.fire_due(table.code, now=due + 2) == []
    last = service.events(table.code)[-1]
    assert (last.kind, last.actor, last.action) == ("game", "system", {"type": "time_up"})
    row = service.get(table.code)
    assert row.status == "ended" and row.timers == {} and row.state["result"]["reason"] == "time_up"
    assert service.view_for(table.code, "board")["deadlines"] == {}
    assert service.replay(table.code) == row.state


def test_the_live_copies_are_bounded_and_a_forgotten_table_reloads(service, facilitator_id, monkeypatch):
    monkeypatch.setattr("app.service.tables.live.LIVE_TABLES", 2)
    codes = []
    for _ in range(3):
        table = service.create_table(facilitator_id, "war", {})
        seat_players(service, table.code, ["Ana", "Ben"])
        service.act(table.code, 0, 2, {"type": "start"})
        codes.append(table.code)
    assert len(service.cache) <= 2 and codes[0] not in service.cache
    outcome = service.act(codes[0], 0, 3, {"type": "reveal"})  # reloaded from the database
    assert outcome.version == 4 and service.replay(codes[0]) == service.get(codes[0]).state


def test_a_process_with_an_old_copy_fires_a_timer_another_process_set(service, facilitator_id):
    table = service.create_table(facilitator_id, "war", {})
    seat_players(service, table.code, ["Ana", "Ben"])
    service.act(table.code, 0, 2, {"type": "start"})
    other = TableService(service.db, bot_delay_scale=0)
    other.live(table.code)  # this "process" saw the table before the computer took Ben's seat
    service.moderate(facilitator_id, table.code, 3, {"type": "kick", "seat": 1})  # ...and then stopped
    assert other.fire_due(table.code) == []  # its own copy knows no timer
    fired = other.fire_due(table.code, check_db=True)  # the database says one is due
    assert [o.version for o in fired] == [5] and service.events(table.code)[-1].actor == "seat:1:auto"


def test_a_refusal_never_rests_on_a_change_another_process_undid(service, facilitator_id):
    """Process A saw the table paused; process B resumed it. A's cached "paused" must not
    refuse the next move: A checks the database before it refuses, then accepts."""
    table = service.create_table(facilitator_id, "war", {})
    seat_players(service, table.code, ["Ana", "Ben"])
    service.act(table.code, 0, 2, {"type": "start"})
    service.moderate(facilitator_id, table.code, 3, {"type": "pause"})
    other = TableService(service.db, bot_delay_scale=0)
    assert other.live(table.code).paused  # A's copy: paused
    service.moderate(facilitator_id, table.code, 4, {"type": "resume"})  # B resumes
    # Ana's phone had not yet seen the pause or the resume: reveal is order-free.
    outcome = other.act(table.code, 0, 3, {"type": "reveal", "battle": 1})
    assert outcome.version == 6 and not other.live(table.code).paused
    with pytest.raises(ServiceError) as refused:  # a refusal that is true stays a refusal
        other.act(table.code, 0, 6, {"type": "start"})
    assert refused.value.code == "illegal" and service.get(table.code).version == 6


def test_a_move_whose_event_clashes_writes_nothing_and_the_next_move_plays_on(service, facilitator_id):
    """A move's transaction runs on the driver's own pooled connection (MoveSQL.move). An
    event row already at the move's version (another writer's) is the database's unique
    clash: the swap before it is rolled back with it, the move is retried on a fresh copy
    and finally refused, nothing of it is stored, and the connection goes back to the
    pool clean: once the clash is gone, the same move is accepted."""
    from app.store.models import Event

    table = service.create_table(facilitator_id, "war", {})
    seat_players(service, table.code, ["Ana", "Ben"])
    service.act(table.code, 0, 2, {"type": "start"})
    before = service.get(table.code)
    with service.store.session() as s:
        s.add(Event(table_id=before.id, version=before.version + 1, kind="game", actor="seat:9", action={}, log=[]))
        s.commit()
    with pytest.raises(ServiceError) as refused:
        service.act(table.code, 0, before.version, {"type": "reveal"})
    assert refused.value.code == "rate_limited"  # every retry met the same clash
    after = service.get(table.code)
    assert (after.version, after.state, after.updated_at) == (before.version, before.state, before.updated_at)
    assert [e.actor for e in service.events(table.code)][-1] == "seat:9"  # only the clashing row
    with service.db.begin() as conn:
        conn.execute(text("DELETE FROM event WHERE table_id = :t AND actor = 'seat:9'"), {"t": before.id})
    outcome = service.act(table.code, 0, before.version, {"type": "reveal"})
    assert outcome.version == before.version + 1 == service.get(table.code).version
    assert [e.version for e in service.events(table.code)][-1] == outcome.version


def test_a_database_that_refuses_the_connection_is_an_outage_and_the_move_plays_after(service, facilitator_id,
                                                                                     monkeypatch):
    """The move's own driver connection: a database that refuses it (PostgreSQL restarting)
    is SQLAlchemy's OperationalError, which app/edge/outage.py answers `unavailable`, not a
    crash; nothing is written, and the move plays once the database is back."""
    from app.edge.outage import is_outage

    table = service.create_table(facilitator_id, "war", {})
    seat_players(service, table.code, ["Ana", "Ben"])
    service.act(table.code, 0, 2, {"type": "start"})
    before = service.get(table.code)

    def refused():
        raise service.db.dialect.loaded_dbapi.OperationalError("connection refused")

    service.db.dispose()  # as after a restart: no connection kept from the moves before (MoveSQL on SQLite)
    monkeypatch.setattr(service.db, "raw_connection", refused)
    with pytest.raises(Exception) as down:
        service.act(table.code, 0, before.version, {"type": "reveal"})
    assert is_outage(down.value), repr(down.value)
    monkeypatch.undo()
    assert service.get(table.code).version == before.version
    assert service.act(table.code, 0, before.version, {"type": "reveal"}).version == before.version + 1


def test_fixed_deals_depend_on_the_kind_of_table_not_on_what_was_opened_before():
    """With DEAL_SEED a table's deal is fixed by its game, options and language and by how
    many such tables came before it: a test sees its deals in any order of the suite."""
    from app.service.tables.common import Deals

    alone, crowded = Deals("base"), Deals("base")
    wizard = ("wizard", {"length": "short"}, "es")
    first = [alone.next(*wizard) for _ in range(3)]
    crowded.next("war", {"mode": "classic"}, "en")
    crowded.next("wizard", {"length": "short"}, "en")
    assert [crowded.next(*wizard) for _ in range(3)] == first
    assert len(set(first)) == 3 and all(0 <= seed < 2 ** 62 for seed in first)
    assert Deals("other").next(*wizard) != first[0]
    assert len({Deals().next(*wizard) for _ in range(3)}) == 3   # no base: random


def _reveal_or_fire(service, code: str, seats: range) -> tuple[float | None, float | None]:
    """One step of a game with a computer seat: a person's reveal when one may, else the
    computer's due move. Returns the row's due time (before, after)."""
    row = service.get(code)
    person = next((p for p in seats if any(a["type"] == "reveal" for a in war.actions(row.state, p))), None)
    if person is not None:
        service.act(code, person, row.version, {"type": "reveal"})
    else:
        assert service.fire_due(code), "the game waits for the computer, whose move is due"
    return row.next_due_at, service.get(code).next_due_at


def test_the_row_holds_its_timers_next_due_time_whether_or_not_a_move_assigns_it(service, facilitator_id):
    """A move assigns the row's `next_due_at` only when the due time changes (MoveSQL.move);
    either way the row says when its timers are next due, as the scheduler of any
    process reads it: a match clock that play does not move, and a computer's move, due
    at once, that comes and goes."""
    from app.service.tables.timers import next_due

    table = service.create_table(facilitator_id, "war", {"length": "3_minutes"})
    seat_players(service, table.code, ["Ana", "Ben", "Cy"])
    service.act(table.code, 0, 3, {"type": "start"})
    service.moderate(facilitator_id, table.code, 4, {"type": "kick", "seat": 2})  # a computer plays Cy
    kept = changed = 0
    while kept < 5 or changed < 5:
        before, after = _reveal_or_fire(service, table.code, range(2))
        row = service.get(table.code)
        assert row.next_due_at == next_due(row.timers) is not None
        kept, changed = kept + (before == after), changed + (before != after)
    # Another process reads the row, not this one's copy: the computer's move is due there.
    other = TableService(service.db, bot_delay_scale=0)
    due = service.get(table.code).next_due_at
    assert [code for code, _due in other.due_tables(now=due)] == [table.code]


def test_a_move_that_keeps_the_due_time_leaves_its_index_alone(tmp_path):
    """SQLite rewrites an index entry whenever its column is assigned, even to the value it
    holds: a page more in the WAL, and in the checkpoint's copy, for every move. A move
    that keeps the table's due time does not touch the `next_due_at` index's page; one
    that changes it does."""
    import sqlite3
    from app.store.db import sqlite_path

    db = make_engine(f"sqlite:///{tmp_path / 'moves.db'}")
    service = TableService(db, bot_delay_scale=0)
    facilitator = Accounts(db).add("teacher", "password-123").id
    table = service.create_table(facilitator, "war", {"length": "3_minutes"})
    seat_players(service, table.code, ["Ana", "Ben", "Cy"])
    service.act(table.code, 0, 3, {"type": "start"})
    service.moderate(facilitator, table.code, 4, {"type": "kick", "seat": 2})
    path = sqlite_path(db)
    with sqlite3.connect(path) as conn:
        index_page, = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'ix_game_table_next_due_at'").fetchone()

    def pages_written(step) -> tuple[set[int], bool]:
        conn = sqlite3.connect(path)
        busy, _logged, _copied = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        conn.close()
        assert busy == 0
        before, after = step()
        wal = Path(path + "-wal").read_bytes()
        page_size = int.from_bytes(wal[8:12], "big")
        frames = range(32, len(wal), 24 + page_size)  # each frame: its page number first
        return {int.from_bytes(wal[at:at + 4], "big") for at in frames}, before == after

    kept = changed = 0
    while kept < 3 or changed < 3:
        pages, same = pages_written(lambda: _reveal_or_fire(service, table.code, range(2)))
        assert pages, "the move wrote its pages to the WAL"
        assert (index_page in pages) is not same
        kept, changed = kept + same, changed + (not same)
    db.dispose()
