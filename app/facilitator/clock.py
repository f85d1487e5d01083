"""The teacher's own time zone: the browser names it (static/js/timezone.js keeps
`Intl.DateTimeFormat().resolvedOptions().timeZone` in the `cg_tz` cookie) and the
pages show every time in it. The cookie is only a hint from the browser: a name
`zoneinfo` does not know is ignored (times then show in UTC, and say so).

Reports (PDF and CSV, from the teacher's pages or the API) read their zone one way,
`report_zone()`: the `?tz=` the dashboard's links and forms carry, else the cookie."""
from __future__ import annotations

import re
from urllib.parse import quote, unquote
from datetime import datetime, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from flask import request
from markupsafe import Markup, escape

from app.facilitator import bp

TZ_COOKIE = "cg_tz"
# An IANA name: "Europe/Paris", "America/Argentina/Buenos_Aires", "Etc/GMT+5", "UTC".
# Checked before zoneinfo sees it, so no path or odd byte ever reaches the file look-up.
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+){0,2}")


def valid_zone(name: str | None) -> str | None:
    """`name` if it is a time zone zoneinfo knows, else None."""
    if not name or len(name) > 64 or not _NAME.fullmatch(name):
        return None
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None
    return name


def zone_name() -> str | None:
    """The zone the teacher's browser stored, if it is a real one."""
    return valid_zone(unquote(request.cookies.get(TZ_COOKIE, "")))


def local(moment: datetime) -> datetime:
    """A stored moment (UTC, naive or aware) in the teacher's zone (UTC until the browser said)."""
    aware = moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
    name = zone_name()
    return aware.astimezone(ZoneInfo(name) if name else timezone.utc)


def report_zone() -> ZoneInfo:
    """The zone a report's times are in: `?tz=` when the request names one (a link from
    the dashboard, or a script on the API; an unknown name is a ValueError, which the
    caller answers with a 400), else the browser's cookie, else UTC."""
    asked = request.args.get("tz", "")
    if asked and not valid_zone(asked):
        raise ValueError(f"Unknown time zone {asked[:60]!r}: use an IANA name such as Europe/Berlin.")
    return ZoneInfo(asked or zone_name() or "UTC")


@bp.app_template_filter("local_time")
def local_time(moment: datetime | None) -> Markup:
    """A <time> element: "today 14:05", "Mon 1 Dec 14:05", or with the year when it is
    not this year's, in the teacher's zone; its datetime attribute is the exact UTC moment."""
    if moment is None:
        return Markup("")
    when = local(moment)
    now = local(datetime.now(timezone.utc))
    if when.date() == now.date():
        text = f"today {when:%H:%M}"
    elif when.year == now.year:
        text = f"{when:%a} {when.day} {when:%b} {when:%H:%M}"
    else:
        text = f"{when.day} {when:%b %Y} {when:%H:%M}"
    if zone_name() is None:
        text += " UTC"
    stamp = when.astimezone(timezone.utc).isoformat(timespec="seconds")
    return Markup('<time datetime="{}">{}</time>').format(stamp, escape(text))


@bp.app_context_processor
def _zone_helpers():
    def with_zone(url: str) -> str:
        """A report link with the teacher's zone (?tz=...), so its times read as on the page."""
        name = zone_name()
        if not name:
            return url
        return f"{url}{'&' if '?' in url else '?'}tz={quote(name, safe='/')}"

    return {"with_zone": with_zone, "teacher_zone": zone_name}
