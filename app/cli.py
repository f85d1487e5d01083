"""`flask --app app facilitator add NAME --password PW` and friends;
`flask --app app db upgrade|current|revision` for the schema migrations."""
from __future__ import annotations

import click
from flask.cli import AppGroup

from app.extensions import services
from app.service.accounts import AccountError

facilitator_cli = AppGroup("facilitator", help="Manage facilitator accounts.")


@facilitator_cli.command("add")
@click.argument("name")
@click.option("--password", prompt=True, hide_input=True, confirmation_prompt=True,
              help="At least 8 characters.")
def add_facilitator(name: str, password: str) -> None:
    """Create a facilitator account that can log in and run tables."""
    try:
        fac = services().accounts.add(name, password)
    except AccountError as exc:
        raise click.ClickException(str(exc))
    click.echo(f"Facilitator {fac.name!r} created. Log in at /facilitator/login.")


db_cli = AppGroup("db", help="Database schema migrations (the app also upgrades at every start).")


@db_cli.command("upgrade")
def upgrade_db() -> None:
    """Bring the database to the newest schema revision."""
    from app.store.db import migration_at_start
    from app.store.migrations import upgrade

    engine = services().db
    outcome = upgrade(engine)
    at_start = migration_at_start(engine)
    if outcome.action == "current" and at_start is not None:
        outcome = at_start  # loading the app for this command has just migrated: say what it did
    click.echo(outcome.describe())


@db_cli.command("current")
def current_db() -> None:
    """Print the database's schema revision."""
    from app.store.migrations import head, revision_of

    revision = revision_of(services().db)
    click.echo(f"{revision} (head)" if revision == head() else f"{revision} (head is {head()})")


@db_cli.command("revision")
@click.option("-m", "--message", required=True, help="What the revision changes, e.g. 'seat colour'.")
def new_revision_db(message: str) -> None:
    """For developers: write the next revision from what app/store/models.py adds."""
    from app.store.migrations import new_revision

    path = new_revision(message)
    click.echo(f"Wrote {path}. Review it (data to backfill? server defaults for NOT NULL columns?), "
               "then run the tests in tests/test_migrations.py.")


demos_cli = AppGroup("demos", help="Guided demo tables opened from the home page.")


@demos_cli.command("cleanup")
@click.option("--max-age", type=float, default=None,
              help="Delete demos older than this many seconds (default: DEMO_MAX_AGE, a day).")
def cleanup_demos(max_age: float | None) -> None:
    """Delete the guided demos opened without an account that are older than a day."""
    codes = services().demos.cleanup(max_age=max_age)
    click.echo(f"Deleted {len(codes)} guided demo table{'s' if len(codes) != 1 else ''}.")


matches_cli = AppGroup("matches", help="Online matches started from the home page.")


@matches_cli.command("expire")
@click.option("--now", type=float, default=None, help="The time to fire at (epoch seconds; default: now).")
def expire_matches(now: float | None) -> None:
    """End the online matches that waited longer than their game allows without a move
    (the game's deadline timers; a running server fires them too)."""
    codes = services().online.expire(now)
    click.echo(f"{len(codes)} online match{'es' if len(codes) != 1 else ''} expired"
               + (f": {', '.join(codes)}." if codes else "."))


privacy_cli = AppGroup("privacy", help="Student names: the retention clean-up.")


@privacy_cli.command("cleanup")
@click.option("--days", type=float, default=None,
              help="Remove names from tables ended more than this many days ago (default: RETENTION_DAYS, 30).")
def cleanup_privacy(days: float | None) -> None:
    """Replace students' names by "Player 1", "Player 2"... in ended tables past the retention
    period (a running server does this every few minutes too)."""
    privacy = services().privacy
    if days is not None:
        if days < 0:
            raise click.ClickException("--days cannot be negative.")
        privacy.config["RETENTION_DAYS"] = days
    codes = privacy.cleanup()
    click.echo(f"Removed the student names of {len(codes)} table{'s' if len(codes) != 1 else ''}"
               + (f": {', '.join(codes)}." if codes else "."))


def register(app) -> None:
    app.cli.add_command(facilitator_cli)
    app.cli.add_command(db_cli)
    app.cli.add_command(demos_cli)
    app.cli.add_command(matches_cli)
    app.cli.add_command(privacy_cli)
