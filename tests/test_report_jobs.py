"""The playtest report with a balance lab, made as a background job (issue 22: the lab at
the dashboard's default of 200 without making the teacher wait; app/reports/jobs.py):
a start answers at once, the job's status says how far the lab has got, the PDF comes
from the job; jobs are their teacher's, one lab per teacher and REPORT_JOBS_MAX at
once, bad requests start nothing, finished jobs are dropped after 30 minutes.

The lab is held at its first game where a test needs a job still running (`gate`):
no test depends on how fast this machine plays."""
from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest

from app import engines
from app.extensions import services
from app.reports import jobs as report_jobs
from report_seed import play
from test_reports import flat, text_of

START = "/api/playtest/jobs?game=wizard&lab=3"


@pytest.fixture
def gate(monkeypatch):
    """Holds the lab's games until `open()`; `entered` is set once the lab has begun."""
    from app.reports import lab
    opened, entered = threading.Event(), threading.Event()
    real = lab.play_one

    def held(*args, **kwargs):
        entered.set()
        assert opened.wait(120), "the test never let the lab go on"
        return real(*args, **kwargs)

    monkeypatch.setattr(lab, "play_one", held)
    yield SimpleNamespace(open=opened.set, entered=entered)
    opened.set()


@pytest.fixture
def other_auth(app, other_teacher):
    return {"Authorization": f"Bearer {services(app).accounts.issue_token(other_teacher.id)}"}


@pytest.fixture
def wizard_game(tables, teacher):
    return play(tables, teacher.id, "wizard", ["Ana", "Ben"], moves=3000, seed=1)


def finished(client, url: str, headers: dict, seen: list | None = None) -> dict:
    """Ask the job's status until it is no longer running (as the dashboard does)."""
    for _ in range(6000):
        status = client.get(url, headers=headers).get_json()
        if seen is not None:
            seen.append(status)
        if status["state"] != "running":
            return status
        time.sleep(0.05)
    raise AssertionError(f"the job never finished: {status}")


def test_a_lab_report_starts_at_once_shows_its_progress_and_gives_the_pdf_with_the_lab(
        app, wizard_game, auth, gate):
    client = app.test_client()
    started = client.post(START, headers=auth)
    assert started.status_code == 202, started.get_json()
    job = started.get_json()
    assert job["state"] == "running" and job["lab"] == 3 and job["pdf_url"] is None
    assert started.headers["Location"] == job["status_url"] == f"/api/playtest/jobs/{job['id']}"

    assert gate.entered.wait(60)        # the lab is playing its first game, held there
    status = client.get(job["status_url"], headers=auth).get_json()
    levels = len(engines.spec("wizard").bot_levels)   # one setting (2 players), each level 3 games
    assert (status["state"], status["stage"], status["played"], status["games"], status["percent"]) == \
        ("running", "lab", 0, 3 * levels, 0)
    assert status["elapsed"] >= 0 and status["left"] is None    # no estimate before a tenth is played
    assert client.get(job["status_url"] + "/report.pdf", headers=auth).status_code == 409   # not ready yet
    mine = client.get("/api/playtest/jobs", headers=auth).get_json()["jobs"]
    assert [j["id"] for j in mine] == [job["id"]]

    gate.open()
    seen = []
    done = finished(client, job["status_url"], auth, seen)
    assert done["state"] == "done" and done["played"] == done["games"] == 3 * levels and done["percent"] == 100
    assert not done["lab_skipped"] and done["pdf_url"] == f"/api/playtest/jobs/{job['id']}/report.pdf"
    assert all(s["played"] <= t["played"] for s, t in zip(seen, seen[1:]))   # the gauge only goes forward
    pdf = client.get(done["pdf_url"], headers=auth)
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf"
    assert pdf.headers["Content-Disposition"] == f'attachment; filename="{done["filename"]}"'
    text = flat(text_of(pdf.data))
    assert "balance lab: 3 games per level and setting" in text
    for level in engines.spec("wizard").bot_levels:
        assert f"Balance lab, computer players at level “{level}”: 3 games" in text


def test_another_teacher_can_neither_see_nor_fetch_nor_stop_a_job(app, wizard_game, auth, other_auth):
    client = app.test_client()
    job = client.post(START, headers=auth).get_json()
    done = finished(client, job["status_url"], auth)
    assert done["state"] == "done"
    for method, url in (("get", job["status_url"]), ("get", done["pdf_url"]), ("delete", job["status_url"])):
        response = getattr(client, method)(url, headers=other_auth)
        assert response.status_code == 404, (method, url)
        assert "no report with that id" in response.get_json()["error"]["message"]
    assert client.get("/api/playtest/jobs", headers=other_auth).get_json()["jobs"] == []
    assert client.get(done["pdf_url"], headers=auth).status_code == 200   # still the owner's


@pytest.mark.app_config(REPORT_JOBS_MAX=1)
def test_one_lab_per_teacher_and_a_cap_on_labs_at_once_refuse_with_nothing_started(
        app, wizard_game, auth, other_auth, gate):
    client = app.test_client()
    first = client.post(START, headers=auth).get_json()
    assert gate.entered.wait(60)
    again = client.post("/api/playtest/jobs?game=wizard&lab=5", headers=auth)
    assert again.status_code == 409
    body = again.get_json()
    assert body["job"]["id"] == first["id"] and body["job"]["state"] == "running"   # the page follows that one
    assert "still being made" in body["error"]["message"]
    busy = client.post(START, headers=other_auth)      # another teacher: the one lab this process runs is busy
    assert busy.status_code == 429 and busy.headers["Retry-After"] == "60"
    assert "Try again in a minute" in busy.get_json()["error"]["message"]
    assert client.get("/api/playtest/jobs", headers=other_auth).get_json()["jobs"] == []
    assert [j["id"] for j in client.get("/api/playtest/jobs", headers=auth).get_json()["jobs"]] == [first["id"]]

    gate.open()
    assert finished(client, first["status_url"], auth)["state"] == "done"
    later = client.post(START, headers=other_auth)      # the lab is free again
    assert later.status_code == 202
    assert finished(client, later.get_json()["status_url"], other_auth)["state"] == "done"


def test_a_bad_request_is_refused_with_a_clear_error_and_starts_nothing(app, wizard_game, auth):
    client = app.test_client()
    for query, word in (("game=wizard&lab=abc", "lab"), ("game=wizard&lab=-1", "lab"),
                        ("game=wizard&lab=0", "lab"), ("game=wizard&lab=1001", "lab"),
                        ("game=wizard", "lab"), ("game=chess&lab=3", "game"),
                        ("game=wizard&lab=3&tz=Mars/Olympus", "tz")):
        response = client.post(f"/api/playtest/jobs?{query}", headers=auth)
        assert response.status_code == 400, query
        assert word in response.get_json()["error"]["message"].lower(), (query, response.get_json())
    assert client.get("/api/playtest/jobs", headers=auth).get_json()["jobs"] == []
    assert services(app).reports.jobs == {}
    assert client.get("/api/playtest/jobs/no-such-id", headers=auth).status_code == 404
    # Nothing half-started blocks the next start.
    started = client.post(START, headers=auth)
    assert started.status_code == 202
    assert finished(client, started.get_json()["status_url"], auth)["state"] == "done"


def test_the_dashboards_session_must_send_its_csrf_token(app, wizard_game):
    from test_classes import logged_in
    client, csrf = logged_in(app)
    assert client.post(START).status_code == 400
    assert services(app).reports.jobs == {}
    started = client.post(START, headers={"X-CSRF-Token": csrf})
    assert started.status_code == 202
    assert finished(client, started.get_json()["status_url"], {})["state"] == "done"


def test_a_period_without_games_to_compare_skips_the_lab(app, wizard_game, auth):
    client = app.test_client()
    job = client.post("/api/playtest/jobs?game=wizard&lab=3&from=2020-01-01&to=2020-01-31", headers=auth).get_json()
    done = finished(client, job["status_url"], auth)
    assert done["state"] == "done" and done["lab_skipped"] and done["games"] == 0
    text = flat(text_of(client.get(done["pdf_url"], headers=auth).data))
    assert "Balance lab" not in text and "balance lab:" not in text


def test_a_stopped_job_stops_its_lab_and_gives_no_pdf(app, wizard_game, auth, gate):
    client = app.test_client()
    job = client.post(START, headers=auth).get_json()
    assert gate.entered.wait(60)
    stopping = client.delete(job["status_url"], headers=auth).get_json()
    assert stopping["state"] == "running" and stopping["stopping"]
    gate.open()
    stopped = finished(client, job["status_url"], auth)
    assert stopped["state"] == "stopped" and stopped["played"] < stopped["games"]
    assert client.get(f"{job['status_url']}/report.pdf", headers=auth).status_code == 409
    # A finished job is forgotten on DELETE; and a new lab may start.
    assert client.delete(job["status_url"], headers=auth).status_code == 200
    assert client.get(job["status_url"], headers=auth).status_code == 404
    restarted = client.post(START, headers=auth)
    assert restarted.status_code == 202
    assert finished(client, restarted.get_json()["status_url"], auth)["state"] == "done"


def test_a_finished_job_is_kept_30_minutes_then_dropped_by_housekeeping(app, wizard_game, auth):
    jobs = services(app).reports
    now = [1000.0]
    jobs.clock = lambda: now[0]
    client = app.test_client()
    job = client.post(START, headers=auth).get_json()
    assert finished(client, job["status_url"], auth)["state"] == "done"
    now[0] += report_jobs.KEEP_SECONDS - 60
    assert jobs.cleanup_due() == 0
    assert client.get(f"{job['status_url']}/report.pdf", headers=auth).status_code == 200
    now[0] += 120
    assert jobs.cleanup_due in services(app).housekeeping
    assert jobs.cleanup_due() == 1
    assert client.get(job["status_url"], headers=auth).status_code == 404


def test_a_teacher_keeps_only_the_newest_finished_jobs():
    ticks = iter(range(1000))
    jobs = report_jobs.ReportJobs(spawn=lambda fn, *args: fn(*args), clock=lambda: float(next(ticks)))   # at once
    made = [jobs.start(7, lambda progress: b"%PDF", filename="x.pdf", lab=1) for _ in range(5)]
    kept = jobs.of(7)
    assert len(kept) == report_jobs.KEEP_PER_OWNER
    assert {j.id for j in kept} == {j.id for j in made[-report_jobs.KEEP_PER_OWNER:]}


def test_a_failed_job_says_so_and_frees_the_teachers_lab():
    jobs = report_jobs.ReportJobs(spawn=lambda fn, *args: fn(*args))

    def broken(progress):
        progress("lab", 0, 10)
        raise RuntimeError("The balance lab failed: boom")

    job = jobs.start(7, broken, filename="x.pdf", lab=5)
    said = jobs.describe(job)
    assert said["state"] == "failed" and "could not be made" in said["message"] and "boom" not in said["message"]
    assert jobs.start(7, lambda progress: b"%PDF", filename="x.pdf", lab=5).state == "done"


# ------------------------------------------------------------------ the lab's gauge out of process
def test_under_eventlet_the_labs_process_reports_its_progress_and_stops_when_told(monkeypatch):
    import app.reports.playtest as playtest
    from app.reports import lab
    settings = [{"id": "A", "options": {}, "players": 2}]
    here = lab.run("wizard", settings, 2)
    monkeypatch.setattr(playtest, "on_eventlet", lambda: True)
    monkeypatch.setattr(lab, "run", lambda *a, **k: pytest.fail("the lab ran in the server's process"))
    ticks = []
    assert playtest.balance_lab("wizard", settings, 2, progress=lambda *t: ticks.append(t)) == here
    games = 2 * len(engines.spec("wizard").bot_levels)
    assert ticks[0] == (0, games) and ticks[-1] == (games, games) and ticks == sorted(ticks)

    def stop(played, in_all):
        if played:
            raise report_jobs.Stopped()

    with pytest.raises(report_jobs.Stopped):
        playtest.balance_lab("wizard", settings, 50, progress=stop)
