"""`flask --app app facilitator add NAME --password PW` and friends."""
from __future__ import annotations

import click
from flask import current_app
from flask.cli import AppGroup

from app.accounts import AccountError

facilitator_cli = AppGroup("facilitator", help="Manage facilitator accounts.")


@facilitator_cli.command("add")
@click.argument("name")
@click.option("--password", prompt=True, hide_input=True, confirmation_prompt=True,
              help="At least 8 characters.")
def add_facilitator(name: str, password: str) -> None:
    """Create a facilitator account that can log in and run tables."""
    try:
        fac = current_app.extensions["accounts"].add(name, password)
    except AccountError as exc:
        raise click.ClickException(str(exc))
    click.echo(f"Facilitator {fac.name!r} created. Log in at /facilitator/login.")


def register(app) -> None:
    app.cli.add_command(facilitator_cli)
