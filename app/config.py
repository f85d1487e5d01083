"""Settings, read from the environment (12-factor) with embedded defaults.

| variable                | default                               |
|-------------------------|---------------------------------------|
| DATABASE_URL            | sqlite:///<instance>/classroom.db     |
| SECRET_KEY              | generated once into instance/secret_key |
| PUBLIC_URL              | (LAN address of this machine)         |
| SOCKETIO_MESSAGE_QUEUE  | (none: single process)                |
| REDIS_NAMESPACE         | cg:<hash of DATABASE_URL>: this deployment's Redis keys and channels |
| ASYNC_MODE              | threading (python -m app: eventlet)   |
| BOT_DELAY_SCALE         | 1.0 (0 makes computer moves instant)  |
| LESSON_MINUTE           | 60 seconds in a lesson clock's minute (tests shorten it) |
| DEAL_SEED               | (none: every table a random deal) fixes the deals of the tables opened after a start |
| SOCKET_RATE/SOCKET_BURST| 10 messages/s after a burst of 30     |
| GAME_MODULES            | (none) extra game packages, comma-separated |
| EXTRA_TRANSLATIONS      | (none) more translation roots, os.pathsep-separated (app/i18n) |
| DEMO_PER_CLIENT/_WINDOW | 5 guided demos per address per 600 s  |
| DEMO_GLOBAL_MAX         | 500 facilitator-less demos at once    |
| DEMO_MAX_AGE            | 86400 s before a demo is deleted      |
| DEMO_PLAY_MAX           | 7200 s after its creation a demo's game ends |
| IDLE_GRACE              | 30 s with nobody connected before a teacherless game pauses |
| RETENTION_DAYS          | 30 days after a table ends, its students' names are removed |
| CODE_GUESS_LIMIT/_WINDOW| 60 wrong codes per address per 60 s   |
| CODE_GUESS_HOURLY       | 600 wrong codes per address per hour  |
| SEATS_PER_ADDRESS/SEATS_WINDOW | 120 new seats per address per 60 s |
| CLASS_TABLES_MAX        | 200 tables per class session          |
| LOGIN_WINDOW            | 900 s over which failed logins count  |
| LOGIN_PER_ACCOUNT_ADDRESS | 5 failures for one name from one address |
| LOGIN_PER_ADDRESS       | 20 failures from one address (any names) |
| LOGIN_PER_ACCOUNT       | 50 failures for one name (any addresses) |
| API_TOKEN_DAYS          | 30 days before an API token expires   |
| HASH_CONCURRENCY        | password hashes at once: half the cores (at least 1) |
| PASSWORD_HASH_METHOD    | scrypt (Werkzeug's method string for new password hashes) |
| PROXY_COUNT             | 0; N: trust N reverse proxies' X-Forwarded-* |
| CONNECTIONS_PER_ADDRESS | 150 open connections per address (0: no cap; off behind a proxy) |
| HEADER_SECONDS          | 10 s for a request's line and headers (tests shorten it) |
| COOKIE_SECURE           | on when PUBLIC_URL is https://, else off |
| REPORT_JOBS_MAX         | playtest reports with a balance lab made at once: half the cores (at least 1) |
| LAB_DEFAULT             | 200 computer games per level and setting, the dashboard's balance lab |
"""
from __future__ import annotations

import hashlib
import os
import secrets
from pathlib import Path

from app.edge.serving import CONNECTIONS_PER_ADDRESS, HEADER_SECONDS

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def instance_dir() -> Path:
    path = Path(os.environ.get("INSTANCE_PATH", PROJECT_ROOT / "instance"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def _secret_key(instance: Path) -> str:
    """A stable random key kept in the instance folder, so sessions survive restarts."""
    key_file = instance / "secret_key"
    if not key_file.exists():
        key_file.write_text(secrets.token_hex(32))
        key_file.chmod(0o600)
    return key_file.read_text().strip()


def from_environment() -> dict:
    instance = instance_dir()
    return {
        "INSTANCE_PATH": str(instance),
        "DATABASE_URL": os.environ.get("DATABASE_URL") or f"sqlite:///{instance / 'classroom.db'}",
        "SECRET_KEY": os.environ.get("SECRET_KEY") or _secret_key(instance),
        "PUBLIC_URL": (os.environ.get("PUBLIC_URL") or "").rstrip("/"),
        "SOCKETIO_MESSAGE_QUEUE": os.environ.get("SOCKETIO_MESSAGE_QUEUE") or None,
        # None: derived from DATABASE_URL once the app's settings are final (see redis_namespace).
        "REDIS_NAMESPACE": os.environ.get("REDIS_NAMESPACE") or None,
        "ASYNC_MODE": os.environ.get("ASYNC_MODE") or "threading",
        "BOT_DELAY_SCALE": float(os.environ.get("BOT_DELAY_SCALE", "1.0")),
        # Seconds in a lesson clock's minute (app/service/tables/lesson.py): 60, shorter in browser tests.
        "LESSON_MINUTE": float(os.environ.get("LESSON_MINUTE", "60")),
        # Reproducible deals (app/service/tables/common.py Deals): the tests' live servers set it.
        "DEAL_SEED": os.environ.get("DEAL_SEED") or None,
        # Per-connection Socket.IO budget: a burst, then this many messages a second.
        "SOCKET_RATE": float(os.environ.get("SOCKET_RATE", "10")),
        "SOCKET_BURST": float(os.environ.get("SOCKET_BURST", "30")),
        # Extra game packages by dotted name, comma-separated (games under app/engines/ need none).
        "GAME_MODULES": [m for m in os.environ.get("GAME_MODULES", "").split(",") if m.strip()],
        # Languages kept outside the package, e.g. a pseudo-locale (bash scripts/i18n pseudo <dir>).
        "EXTRA_TRANSLATIONS": os.environ.get("EXTRA_TRANSLATIONS") or "",
        # Guided demos from the home page (app/service/demo.py): per address per window, at once, kept for,
        # played for, and the seconds nobody is connected before one pauses.
        **{key: float(os.environ[key]) for key in ("DEMO_PER_CLIENT", "DEMO_WINDOW", "DEMO_GLOBAL_MAX",
                                                   "DEMO_MAX_AGE", "DEMO_PLAY_MAX", "DEMO_CLEANUP_EVERY", "IDLE_GRACE")
           if os.environ.get(key)},
        # Student names in ended tables become "Player 1", "Player 2"... after this many days (app/service/privacy.py).
        "RETENTION_DAYS": float(os.environ.get("RETENTION_DAYS", "30")),
        # Brakes per client address (app/edge/guard.py says why these numbers) and per class session.
        "CODE_GUESS_LIMIT": int(os.environ.get("CODE_GUESS_LIMIT", "60")),
        "CODE_GUESS_WINDOW": float(os.environ.get("CODE_GUESS_WINDOW", "60")),
        "CODE_GUESS_HOURLY": int(os.environ.get("CODE_GUESS_HOURLY", "600")),
        "SEATS_PER_ADDRESS": int(os.environ.get("SEATS_PER_ADDRESS", "120")),
        "SEATS_WINDOW": float(os.environ.get("SEATS_WINDOW", "60")),
        "CLASS_TABLES_MAX": int(os.environ.get("CLASS_TABLES_MAX", "200")),
        # Login brakes (app/service/accounts.py): failures counted per window, refused before hashing.
        "LOGIN_WINDOW": float(os.environ.get("LOGIN_WINDOW", "900")),
        "LOGIN_PER_ACCOUNT_ADDRESS": int(os.environ.get("LOGIN_PER_ACCOUNT_ADDRESS", "5")),
        "LOGIN_PER_ADDRESS": int(os.environ.get("LOGIN_PER_ADDRESS", "20")),
        "LOGIN_PER_ACCOUNT": int(os.environ.get("LOGIN_PER_ACCOUNT", "50")),
        "API_TOKEN_DAYS": float(os.environ.get("API_TOKEN_DAYS", "30")),
        "PASSWORD_HASH_METHOD": os.environ.get("PASSWORD_HASH_METHOD") or "scrypt",
        "HASH_CONCURRENCY": int(os.environ.get("HASH_CONCURRENCY") or max(1, (os.cpu_count() or 2) // 2)),
        # Report jobs (app/reports/jobs.py): balance labs running at once in a process (each
        # keeps a core busy), and the games per level and setting the dashboard's lab offers.
        "REPORT_JOBS_MAX": int(os.environ.get("REPORT_JOBS_MAX") or max(1, (os.cpu_count() or 2) // 2)),
        "LAB_DEFAULT": int(os.environ.get("LAB_DEFAULT") or 200),
        # Behind N reverse proxies (deploy/): their X-Forwarded-For/-Proto/-Host/-Port are
        # believed, so remote_addr, scheme and host are the visitor's. 0 (default): a visitor
        # could forge them, so they are ignored.
        "PROXY_COUNT": int(os.environ.get("PROXY_COUNT") or 0),
        # Open connections one address may hold at once (app/edge/serving.py says why this number).
        # Behind a proxy every connection is the proxy's: the cap is off and the proxy limits.
        "CONNECTIONS_PER_ADDRESS": int(os.environ.get("CONNECTIONS_PER_ADDRESS") or CONNECTIONS_PER_ADDRESS),
        # A request's line and headers must be in this soon (app/edge/serving.py says why 10 s);
        # the tests of the deadline shorten it, rather than wait 10 s a socket.
        "HEADER_SECONDS": float(os.environ.get("HEADER_SECONDS") or HEADER_SECONDS),
        # None: Secure cookies exactly when PUBLIC_URL is https:// (see secure_cookies).
        "COOKIE_SECURE": _flag(os.environ.get("COOKIE_SECURE")),
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "MAX_CONTENT_LENGTH": 64 * 1024,
    }


def _flag(value: str | None) -> bool | None:
    if value is None or not value.strip():
        return None
    if value.strip().lower() in ("1", "true", "yes", "on"):
        return True
    if value.strip().lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"COOKIE_SECURE is 1 or 0, not {value!r}")


def secure_cookies(config) -> bool:
    """Whether the session cookie is marked Secure: COOKIE_SECURE if set, else whether phones
    reach the server over https (PUBLIC_URL). Never on plain http: the browser would not send
    it back and nobody could log in."""
    if config.get("COOKIE_SECURE") is not None:
        return bool(config["COOKIE_SECURE"])
    return str(config.get("PUBLIC_URL") or "").lower().startswith("https://")


def redis_namespace(config) -> str:
    """The prefix of every Redis key and channel of this deployment (the Socket.IO
    channel, the limiter's counts, presence), so that two deployments sharing one
    Redis server never hear each other's broadcasts nor share counts. Redis pub/sub
    ignores the database number in the URL, so only names keep channels apart.
    REDIS_NAMESPACE if set, else one derived from DATABASE_URL: the processes that
    share a database are one deployment (give them exactly the same URL, or the
    same REDIS_NAMESPACE)."""
    if config.get("REDIS_NAMESPACE"):
        return str(config["REDIS_NAMESPACE"])
    return "cg:" + hashlib.sha256(str(config["DATABASE_URL"]).encode()).hexdigest()[:12]
