"""Issue 22's leftovers: the playtest report reads the teacher's time zone the one way
every report does (?tz=, else the cg_tz cookie), and the balance lab drives the games'
timers as the service's scheduler does, so a game whose rules run on a clock ends in
the lab as it ends at a table."""
from __future__ import annotations

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest
from sqlmodel import Session, update

from app import engines
from app.extensions import services
from app.store.models import GameTable
from report_seed import play
from test_reports import flat, text_of

TOKYO = ZoneInfo("Asia/Tokyo")
# 20:30 UTC on 1 March is 05:30 on 2 March in Tokyo: the two zones name different days.
MADE_AT = datetime(2026, 3, 1, 20, 30, tzinfo=timezone.utc)


def made_at(app, code: str, moment: datetime) -> None:
    with Session(services(app).db) as s:
        s.execute(update(GameTable).where(GameTable.code == code).values(created_at=moment))
        s.commit()


# ------------------------------------------------------------------ the zone
def test_the_playtest_report_takes_the_teachers_days_and_clock_from_tz_or_the_cookie(app, tables, teacher, auth):
    code = play(tables, teacher.id, "war", ["Ana", "Ben"], moves=60, notes=(("Ana", "The pot rule is odd."),))
    made_at(app, code, MADE_AT)
    client = app.test_client()
    tokyo_day = "game=war&from=2026-03-02&to=2026-03-02"

    csv = client.get(f"/api/playtest.csv?{tokyo_day}&tz=Asia/Tokyo", headers=auth).data.decode("utf-8-sig")
    rows = csv.splitlines()[1:]
    assert len(rows) == 1 and code in rows[0] and "2026-03-02 05:30" in rows[0]
    # The same day in UTC is another day: the table was made on 1 March there.
    utc = client.get(f"/api/playtest.csv?{tokyo_day}&tz=UTC", headers=auth).data.decode("utf-8-sig")
    assert utc.splitlines()[1:] == []

    # No ?tz=: the zone the dashboard's browser stored in its cookie.
    client.set_cookie("cg_tz", "Asia/Tokyo")
    text = flat(text_of(client.get(f"/api/playtest.pdf?{tokyo_day}", headers=auth).data))
    assert "times in Asia/Tokyo" in text and "2026-03-02 05:30" in text
    note = next(n for n in tables.notes(code))
    written = next(e.at for e in tables.events(code) if e.version == note.version)
    tokyo_clock = written.replace(tzinfo=timezone.utc).astimezone(TOKYO).strftime("%H:%M")
    assert f"move {note.version} at {tokyo_clock}" in text

    bad = client.get(f"/api/playtest.pdf?{tokyo_day}&tz=Mars/Olympus", headers=auth)
    assert bad.status_code == 400 and "tz" in bad.get_json()["error"]["message"]


def test_the_teachers_debrief_link_without_tz_reads_the_cookie(app, tables, teacher):
    from test_classes import logged_in
    client, _ = logged_in(app)
    code = play(tables, teacher.id, "war", ["Ana", "Ben"], moves=40)
    started = next(e.at for e in tables.events(code) if e.kind == "table" and e.action.get("type") == "start")
    client.set_cookie("cg_tz", "Asia/Tokyo")
    text = flat(text_of(client.get(f"/facilitator/tables/{code}/debrief.pdf").data))
    tokyo = started.replace(tzinfo=timezone.utc).astimezone(TOKYO).strftime("%H:%M")
    assert f"started {tokyo} (Asia/Tokyo)" in text


# ------------------------------------------------------------------ the lab's clock
class VoteOnAClock:
    """A game whose only way on is its deadline: two seats vote, and the vote closes
    when its 30-second clock runs out (nobody is waited for meanwhile), as a Water
    Cycle Crisis vote closes on `vote_seconds` when the class has voted."""

    @staticmethod
    def new(options, seats, seed):
        return {"votes": [], "closed": False, "result": None}

    @staticmethod
    def view(state, viewer):
        waiting = [] if state["closed"] or len(state["votes"]) == 2 else [len(state["votes"])]
        return {"public": {}, "private": {}, "prompt": {"waiting_for": waiting, "text": ""}}

    @staticmethod
    def actions(state, viewer):
        return [{"type": "vote", "label": "Vote"}] if viewer in VoteOnAClock.view(state, "board")["prompt"][
            "waiting_for"] else []

    @staticmethod
    def bot(view, actions, rng):
        return actions[0] if actions else None

    @staticmethod
    def apply(state, actor, action):
        state = dict(state, votes=list(state["votes"]))
        if action["type"] == "vote":
            state["votes"].append(actor)
        else:   # time_up: the vote closes, and the first to vote wins
            state.update(closed=True, result={"winners": [state["votes"][0]], "ranking": [0, 1], "scores": [0, 0],
                                              "reason": "time_up"})
        return state, []

    @staticmethod
    def result(state):
        return state["result"]

    @staticmethod
    def timers(state):
        return [] if state["closed"] else [{"key": "vote", "after": 30, "actor": "system",
                                            "action": {"type": "time_up"}}]


def test_the_lab_fires_a_deadline_the_game_waits_for_as_the_scheduler_would():
    from app.reports import lab
    game = lab.play_one(VoteOnAClock, {}, 2, seed=0)
    assert game["finished"] and game["ending"] == "time_up" and game["winners"] == [0]
    assert game["seconds"] == 30    # the clock ran from the start, the votes (a second each) did not reset it
    assert game["moves"] == 3       # two votes, then the clock


def test_a_timed_war_match_ends_at_its_clock_in_the_lab_and_the_report_says_so(app, tables, teacher, auth):
    from app.reports import lab
    timed = {"id": "A", "options": {"length": "3_minutes"}, "players": 2}
    runs = lab.run("war", [timed], 4)
    assert [r["level"] for r in runs] == list(engines.spec("war").bot_levels)
    for r in runs:
        assert r["finished"] == 4
        endings = dict(r["endings"])
        # A computer reveals a second after it may: 180 s of two-player battles is not enough
        # for most full eliminations, which the lab without a clock played to the end.
        assert endings.get("time_up", 0) >= 1 and sum(endings.values()) == 4
    play(tables, teacher.id, "war", ["Ana", "Ben"], options={"length": "3_minutes"}, moves=40)
    text = flat(text_of(app.test_client().get("/api/playtest.pdf?game=war&lab=2", headers=auth).data))
    assert "ended by time up (" in text


@pytest.mark.parametrize("game, options, players", [
    ("war", {"mode": "power", "length": "5_minutes"}, 3),
    ("water_cycle", {"votes": "players", "vote_seconds": 30}, 3),
    ("water_cycle", {"votes": "teacher", "vote_seconds": 30}, 2),
    ("wizard", {"match": "online"}, 2),
    ("storm_war", {}, 2),
])
def test_every_games_lab_runs_end_with_their_clocks(game, options, players):
    from app.reports import lab
    for r in lab.run(game, [{"id": "A", "options": options, "players": players}], 2):
        assert r["finished"] == r["games"] == 2, (game, r["level"])


# ------------------------------------------------------------------ the dashboard's control
def test_the_dashboard_offers_the_balance_lab_within_the_labs_limits(app, tables, teacher):
    import re

    from app.reports.lab import LAB_MAX
    from test_classes import logged_in
    client, _ = logged_in(app)
    page = client.get("/facilitator/").data.decode()
    form = page[page.index('action="/api/playtest.pdf"'):]
    form = form[:form.index("</form>")]
    field = re.search(r'<input type="number" id="playtest-lab" name="lab"[^>]*>', form)
    assert field, "the playtest form has no number of lab games"
    # The lab at its default of 200, made as a background job (tests/test_report_jobs.py) by the form's script.
    assert 'min="0"' in field[0] and f'max="{LAB_MAX}"' in field[0] and 'value="200"' in field[0]
    assert "Simulate N computer games" in form and 'data-playtest-jobs="/api/playtest/jobs"' in form
    assert "js/playtest.js" in page and 'name="csrf-token"' in page
    play(tables, teacher.id, "wizard", ["Ana", "Ben"], moves=3000)
    # What the form sends: its fields as they are, the lab's number included.
    text = flat(text_of(client.get("/api/playtest.pdf?game=wizard&lab=3").data))
    assert "balance lab: 3 games per level and setting" in text


@pytest.mark.app_config(LAB_DEFAULT=3)
def test_the_dashboards_lab_default_is_a_setting(app, teacher):
    from test_classes import logged_in
    client, _ = logged_in(app)
    page = client.get("/facilitator/").data.decode()
    assert 'name="lab" value="3"' in page


def test_the_readme_documents_every_column_of_the_students_and_playtest_csv():
    from pathlib import Path

    from app.reports.classes import STUDENT_COLUMNS
    from app.reports.playtest import PLAYTEST_COLUMNS
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert "/api/classes/<CODE>/students.csv" in readme
    assert [c for c in STUDENT_COLUMNS + PLAYTEST_COLUMNS if f"`{c}`" not in readme] == []
