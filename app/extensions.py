"""What create_app() builds once per app, and the one way to reach it.

`socketio` is the Socket.IO server object, bound to the app in create_app().
`Services` holds every long-lived part the factory wires (the database engine, the
services, the door's limiter and guard, the realtime notifier and presence); the
factory stores it once, and code reaches it through `services()`:

    from app.extensions import services
    services().tables.view_for(code, "board")      # inside a request or app context
    services(app).accounts.add(name, password)     # with an app in hand (CLI, tests)

A typed attribute, not a string key: a typo fails at once, and an editor finds
every user of a service.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from flask import current_app
from flask_socketio import SocketIO

if TYPE_CHECKING:  # the types only: importing the parts here would load them all with Flask-SocketIO
    from flask import Flask
    from sqlalchemy import Engine

    from app.edge.guard import Guard
    from app.edge.limits import Limiter
    from app.edge.outage import QueueHealth
    from app.realtime.notifier import Notifier
    from app.realtime.presence import LocalPresence
    from app.reports.jobs import ReportJobs
    from app.service.accounts import Accounts
    from app.service.banks import BankService
    from app.service.classes import ClassService
    from app.service.demo import DemoService
    from app.service.online import OnlineService
    from app.service.privacy import PrivacyService
    from app.service.tables import TableService

socketio = SocketIO()


@dataclass
class Services:
    """The app's parts, as create_app() wired them (see there for who gets what)."""

    db: Engine
    limits: Limiter
    accounts: Accounts
    tables: TableService
    classes: ClassService
    guard: Guard
    banks: BankService
    demos: DemoService
    online: OnlineService
    privacy: PrivacyService
    # The reports made in the background (the playtest report with a balance lab).
    reports: ReportJobs
    # Periodic clean-ups the timer loop runs (app/realtime/scheduler.py); each decides how often.
    housekeeping: list[Callable[[], object]] = field(default_factory=list)
    # Set only with a message queue: whether it answers (app/edge/outage.py).
    queue_health: QueueHealth | None = None
    # Set by app/realtime/__init__.py register(), once the Socket.IO server exists.
    presence: LocalPresence = None  # type: ignore[assignment]
    notifier: Notifier = None  # type: ignore[assignment]

    def stop(self) -> None:
        """Stop the work this app runs in the background (the timer loop, the delayed class
        pushes, presence) and close its database connections: an app that goes away (a
        test's) leaves no thread behind that would go on using its database."""
        if self.notifier is not None:
            self.notifier.stop()
        if self.presence is not None:
            self.presence.stop()
        self.db.dispose()


def services(app: Flask | None = None) -> Services:
    """This app's parts: `app`'s, else the current app's (inside a request or app context)."""
    return (current_app if app is None else app).extensions["services"]
