"""Report jobs: a report that takes minutes, made in the background while the teacher
watches a gauge.

The playtest report with the dashboard's balance lab (200 computer games per level and
setting) takes minutes on a laptop: too long for a request a browser waits on. A job
makes it instead, off the event loop as every report is made (the lab's games and
WeasyPrint run in processes of their own under eventlet, `in_a_process` in
app/reports/__init__.py): the start answers at once with the job's id, the page polls
the job (what it is doing, how many of the lab's games are played, how long it has
run), then fetches the PDF. The routes are in app/api/reports.py.

- A job is its teacher's: to anyone else its id is unknown (the API answers 404).
- At most one running job per teacher, and `running_max` (REPORT_JOBS_MAX) running in
  this process, since each lab keeps a core busy; beyond that a start is refused with
  a sentence to show, and nothing is started.
- A finished job (its PDF, or why it failed) is kept KEEP_SECONDS (30 min), at most
  KEEP_PER_OWNER per teacher, in this process's memory; `cleanup_due` (a housekeeping
  chore) drops the older ones.
- A restart loses the jobs it was running: a report job is not acknowledged data (the
  games it reads are in the database, and the report can be made again), so the page
  says the server lost it and offers to start again. With several workers, the
  proxy's sticky cookie brings the dashboard's polls back to the worker that runs its job.
"""
from __future__ import annotations

import logging
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from app.errors import ServiceError

log = logging.getLogger(__name__)

KEEP_SECONDS = 30 * 60       # how long a finished job's PDF is kept
KEEP_PER_OWNER = 3           # finished jobs kept per teacher (the newest)
ESTIMATE_FROM = 0.1          # the share of the lab's games played before the time left is estimated
BUSY = "The balance lab is busy making other teachers' reports. Try again in a minute."
YOURS_RUNNING = "Your playtest report with a balance lab is still being made: wait for it, or stop it first."
FAILED = "The report could not be made. Try again; if it fails again, the server's log says why."

# What a running job is doing, in the order it does it.
STAGES = ("gathering", "lab", "drawing")


class Stopped(Exception):
    """Raised in a job's work when its teacher stopped it."""


class Refused(ServiceError):
    """A start refused; `running` is the teacher's own running job, when that is why."""

    def __init__(self, message: str, running: "Job | None" = None):
        super().__init__("rate_limited", message)
        self.running = running


@dataclass
class Job:
    id: str
    owner: int
    filename: str
    lab: int                      # the games per level and setting asked for
    began: float                  # on the jobs' clock
    state: str = "running"        # running | done | failed | stopped
    stage: str = "gathering"
    played: int = 0               # the lab's games played, of `games`
    games: int = 0
    lab_began: float | None = None
    ended: float | None = None
    stop: bool = False
    message: str = ""
    pdf: bytes | None = field(default=None, repr=False)


ProgressFn = Callable[..., None]
Work = Callable[[ProgressFn], bytes]


class ReportJobs:
    """The jobs of this process. `spawn(fn, *args)` runs a job's work off the request (a
    green thread under eventlet, a thread otherwise: Flask-SocketIO's
    start_background_task); `clock` is time.monotonic but for tests."""

    def __init__(self, spawn: Callable, running_max: int = 1, clock: Callable[[], float] = time.monotonic):
        self.spawn = spawn
        self.running_max = max(1, int(running_max))
        self.clock = clock
        self.jobs: dict[str, Job] = {}
        self.lock = threading.Lock()

    # ------------------------------------------------------------ the teacher's calls
    def start(self, owner: int, work: Work, *, filename: str, lab: int) -> Job:
        """Start `work(progress)`, which returns the PDF: `progress(stage)` says what it
        does now, `progress("lab", played, in_all)` how far the lab is (and raises
        Stopped once the teacher stopped the job)."""
        self.cleanup_due()
        with self.lock:
            running = [j for j in self.jobs.values() if j.state == "running"]
            mine = next((j for j in running if j.owner == owner), None)
            if mine is not None:
                raise Refused(YOURS_RUNNING, mine)
            if len(running) >= self.running_max:
                raise Refused(BUSY)
            job = Job(id=secrets.token_urlsafe(12), owner=owner, filename=filename, lab=lab, began=self.clock())
            self.jobs[job.id] = job
        self.spawn(self.run, job, work)
        return job

    def get(self, owner: int, job_id: str) -> Job | None:
        """The teacher's job, or None: unknown, another teacher's, or dropped."""
        self.cleanup_due()
        job = self.jobs.get(str(job_id))
        return job if job is not None and job.owner == owner else None

    def of(self, owner: int) -> list[Job]:
        """The teacher's jobs, newest first."""
        self.cleanup_due()
        return sorted((j for j in self.jobs.values() if j.owner == owner), key=lambda j: -j.began)

    def stop(self, owner: int, job_id: str) -> Job | None:
        """Stop the teacher's running job (its lab stops at its next game counted), or forget
        a finished one. None: there is no such job of theirs."""
        job = self.get(owner, job_id)
        if job is None:
            return None
        with self.lock:
            if job.state == "running":
                job.stop = True
            else:
                self.jobs.pop(job.id, None)
        return job

    def cleanup_due(self) -> int:
        """Drop finished jobs older than KEEP_SECONDS, and all but each teacher's
        KEEP_PER_OWNER newest finished ones. Returns how many were dropped."""
        now = self.clock()
        with self.lock:
            finished = sorted((j for j in self.jobs.values() if j.state != "running"), key=lambda j: -j.ended)
            kept: dict[int, int] = {}
            dropped = []
            for job in finished:
                kept[job.owner] = kept.get(job.owner, 0) + 1
                if now - job.ended > KEEP_SECONDS or kept[job.owner] > KEEP_PER_OWNER:
                    dropped.append(job.id)
            for job_id in dropped:
                del self.jobs[job_id]
        return len(dropped)

    # ------------------------------------------------------------ the job itself
    def run(self, job: Job, work: Work) -> None:
        def progress(stage: str, played: int | None = None, in_all: int | None = None) -> None:
            if job.stop:
                raise Stopped()
            if stage == "lab" and job.lab_began is None:
                job.lab_began = self.clock()
            job.stage = stage
            if played is not None:
                job.played, job.games = int(played), int(in_all or 0)

        try:
            pdf = work(progress)
            if job.stop:
                raise Stopped()
        except Stopped:
            self.finish(job, "stopped", message="Stopped.")
        except Exception:  # noqa: BLE001 - the job says it failed; the log says why
            log.exception("report job %s of facilitator %s failed", job.id, job.owner)
            self.finish(job, "failed", message=FAILED)
        else:
            self.finish(job, "done", pdf=pdf)

    def finish(self, job: Job, state: str, *, message: str = "", pdf: bytes | None = None) -> None:
        with self.lock:
            job.state, job.message, job.pdf, job.ended = state, message, pdf, self.clock()

    def describe(self, job: Job) -> dict:
        """The job as the page shows it: what it does, the lab's games played of all,
        the percent, the seconds it has run and (once a tenth of the lab is played)
        about how many are left; `lab_skipped` when no table of the period had players
        to compare, so the report has no lab."""
        now = job.ended if job.ended is not None else self.clock()
        percent = int(100 * job.played // job.games) if job.games else None
        left = None
        if job.state == "running" and job.stage == "lab" and job.games and job.lab_began is not None \
                and job.played >= ESTIMATE_FROM * job.games:
            left = round((now - job.lab_began) * (job.games - job.played) / job.played)
        return {"id": job.id, "state": job.state, "stage": job.stage if job.state == "running" else None,
                "lab": job.lab, "played": job.played, "games": job.games, "percent": percent,
                "elapsed": round(now - job.began, 1), "left": left, "message": job.message,
                "stopping": job.stop and job.state == "running",
                "lab_skipped": job.state == "done" and job.lab > 0 and not job.games, "filename": job.filename}
