"""Facilitator accounts: passwords, login sessions, API tokens and the first-run setup link.

Logins are braked (app/edge/limits.py) before any password is hashed, by counts of
failed attempts over LOGIN_WINDOW seconds, an address being its `subject` (an
IPv6 client's /64). The brakes must slow a class of students guessing their
teacher's password without ever locking the teacher out of the lesson:

* one name from one address (LOGIN_PER_ACCOUNT_ADDRESS, 5): the lock a guesser
  meets first. A correct password clears it, for that address only;
* one address, any names (LOGIN_PER_ADDRESS, 20): one guesser trying many names;
* one name, any addresses (LOGIN_PER_ACCOUNT, 50): many addresses on one name.
  It refuses only addresses that have already failed on that name in the window:
  the right password from an address that has not failed still gets in (so 50
  guesses from a classroom's phones lock the phones, not the teacher), while a
  guesser who moves to a fresh address has one try there before it is braked too;
* a *known browser*, one the teacher logged in with before (the signed
  `cg_device` cookie set at a successful login, KNOWN_DEVICE_DAYS long, naming the
  accounts that logged in with it), is braked only by its own failures on that name
  (LOGIN_PER_ACCOUNT_ADDRESS): students sharing the school's one address, or
  locking the name from anywhere, do not lock out the teacher's own laptop. Its
  failures still count towards the name's total.

Failures count whether or not the name exists (no oracle of names; the cookie
is checked by its signature alone, without reading the database). Every attempt
is counted before its password is checked, so that a burst of simultaneous
guesses cannot all slip in under the limit; a correct one is then taken back
from the counts (twenty teachers behind one school address may all log in)
and clears the failures of its name from its address (or browser). An attempt
refused by a brake counts nothing: the lock lifts as the window slides, however
often a guesser knocks.

Hashing runs through the Offload adapter (app/edge/offload.py): off the event loop,
a few at a time. An unknown name is checked against a dummy hash of the same
algorithm, so it takes as long as a known one.
"""
from __future__ import annotations

import math
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Mapping

from itsdangerous import BadSignature, URLSafeTimedSerializer
from sqlalchemy import func, insert, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select
from werkzeug.security import check_password_hash, generate_password_hash

from app.edge.limits import subject
from app.edge.security import has_nul, hash_token, new_token
from app.store.db import row_id
from app.store.models import ApiToken, Facilitator, SetupToken, utcnow

# A set-up link issued this recently by another process starting at the same time
# is the one to use: this process prints no second link.
SETUP_LINK_QUIET = 60.0
# last_used_at is written at most this often per token (not on every request).
TOKEN_TOUCH_EVERY = timedelta(minutes=1)
# The known-browser cookie (see the module's docstring): its name, how long it lasts
# (a school term and then some: the teacher's laptop stays known between holidays),
# and how many accounts one browser remembers (a shared classroom computer).
DEVICE_COOKIE = "cg_device"
KNOWN_DEVICE_DAYS = 180
KNOWN_DEVICE_ACCOUNTS = 8


class AccountError(ValueError):
    pass


class LoginLimited(AccountError):
    """Too many failed logins: refused without checking the password."""

    def __init__(self, message: str, retry_after: float):
        super().__init__(message)
        self.retry_after = max(1, math.ceil(retry_after))


def wait_words(seconds: float) -> str:
    minutes = math.ceil(seconds / 60)
    return f"{minutes} minute{'s' if minutes != 1 else ''}" if seconds > 60 else \
        f"{math.ceil(seconds)} second{'s' if math.ceil(seconds) != 1 else ''}"


def aware(moment: datetime | None) -> datetime | None:
    """SQLite gives back naive datetimes; every stored time is UTC."""
    return moment.replace(tzinfo=timezone.utc) if moment is not None and moment.tzinfo is None else moment


@dataclass(frozen=True)
class Brake:
    scope: str
    key: str
    limit: int
    message: str
    enforced: bool = True  # False: the attempt is counted here but this count refuses nothing


@dataclass(frozen=True)
class TokenInfo:
    id: int
    created_at: datetime
    last_used_at: datetime | None
    expires_at: datetime


class Accounts:
    _dummy_hashes: dict[str, str] = {}  # per hashing method, one per process, made at its first login

    def __init__(self, db, *, limiter=None, settings: Mapping | None = None, offload=None):
        from app.edge.limits import Limiter
        from app.edge.offload import Offload

        self.db = db
        self.limiter = limiter or Limiter()
        settings = settings or {}
        self.window = float(settings.get("LOGIN_WINDOW", 900))
        self.per_account_address = int(settings.get("LOGIN_PER_ACCOUNT_ADDRESS", 5))
        self.per_address = int(settings.get("LOGIN_PER_ADDRESS", 20))
        self.per_account = int(settings.get("LOGIN_PER_ACCOUNT", 50))
        self.token_days = float(settings.get("API_TOKEN_DAYS", 30))
        # Werkzeug's method for new password hashes: its default, scrypt, unless a deployment
        # (or the test suite, which makes thousands of accounts) names a cheaper or dearer one.
        self.hash_method = str(settings.get("PASSWORD_HASH_METHOD") or "scrypt")
        # Signs the known-browser cookie; without a secret no browser is known.
        secret = settings.get("SECRET_KEY")
        self._devices = URLSafeTimedSerializer(secret, salt="known-device") if secret else None
        self.offload = offload or Offload()
        # Called with a facilitator id when some of their credentials stop working (a
        # logout, a revoked token): the notifier ends their open sockets, which then
        # reconnect and are authenticated afresh.
        self.on_credentials_ended: list = []

    def _credentials_ended(self, facilitator_id: int) -> None:
        for callback in self.on_credentials_ended:
            callback(facilitator_id)

    # --- accounts ---------------------------------------------------------
    @staticmethod
    def _checked(name: str, password: str) -> str:
        name = (name or "").strip()
        if has_nul([name, password]):
            raise AccountError("A name or password cannot contain a NUL character.")
        if not (1 <= len(name) <= 40):
            raise AccountError("A facilitator name has 1 to 40 characters.")
        if len(password or "") < 8:
            raise AccountError("Choose a password of at least 8 characters.")
        return name

    def add(self, name: str, password: str) -> Facilitator:
        name = self._checked(name, password)
        if self._named(name):  # before hashing: a taken name costs no hash
            raise AccountError(f"A facilitator called {name!r} already exists.")
        fac = Facilitator(name=name, password_hash=self._hash(password))
        with Session(self.db, expire_on_commit=False) as s:
            s.add(fac)
            try:
                s.commit()
            except IntegrityError:  # added at the same moment by someone else
                raise AccountError(f"A facilitator called {name!r} already exists.") from None
            return fac

    def _named(self, name: str) -> Facilitator | None:
        with Session(self.db, expire_on_commit=False) as s:
            return s.exec(select(Facilitator).where(Facilitator.name == name)).first()

    def count(self) -> int:
        with Session(self.db) as s:
            return s.exec(select(func.count()).select_from(Facilitator)).one()

    def get(self, facilitator_id: int | None) -> Facilitator | None:
        if facilitator_id is None:
            return None
        with Session(self.db, expire_on_commit=False) as s:
            return s.get(Facilitator, facilitator_id)

    def set_paper(self, facilitator_id: int, paper: str) -> str:
        """Remember the teacher's paper size for printed reports ("a4" or "letter")."""
        if paper not in ("a4", "letter"):
            raise AccountError("Choose A4 or US Letter.")
        with Session(self.db, expire_on_commit=False) as s:
            fac = s.get(Facilitator, facilitator_id)
            if fac is not None:
                fac.paper = paper
                s.add(fac)
                s.commit()
        return paper

    # --- logging in ---------------------------------------------------------
    @staticmethod
    def _account_key(name: str) -> str:
        # The typed name is hashed into the key: it may be long, and it is only a key.
        return hash_token(name.strip().casefold())[:32]

    def _device(self, cookie) -> dict | None:
        """The known-browser cookie's content ({"id", "accounts"}) if its signature holds."""
        if self._devices is None or not isinstance(cookie, str) or not cookie or len(cookie) > 2000:
            return None
        try:
            data = self._devices.loads(cookie, max_age=KNOWN_DEVICE_DAYS * 86400)
        except BadSignature:
            return None
        if isinstance(data, dict) and isinstance(data.get("id"), str) and isinstance(data.get("accounts"), list):
            return data
        return None

    def device_cookie(self, name: str, cookie=None) -> str | None:
        """The known-browser cookie to set after `name` logged in with this browser (its
        earlier cookie, if any, keeps its id and its other accounts). None without a secret."""
        if self._devices is None:
            return None
        known = self._device(cookie) or {"id": new_token(), "accounts": []}
        account = self._account_key(name)
        accounts = [account] + [a for a in known["accounts"] if a != account]
        return self._devices.dumps({"id": known["id"], "accounts": accounts[:KNOWN_DEVICE_ACCOUNTS]})

    def remember_browser(self, response, name: str, cookie=None, *, secure: bool = False) -> None:
        """Set the known-browser cookie on the answer to a successful login (both logins,
        the form's and the JSON API's, call this)."""
        value = self.device_cookie(name, cookie)
        if value is not None:
            response.set_cookie(DEVICE_COOKIE, value, max_age=KNOWN_DEVICE_DAYS * 86400, httponly=True,
                                samesite="Lax", secure=secure)

    def _brakes(self, name: str, address: str, device) -> list[Brake]:
        """The counts this attempt goes into, its own (cleared by a correct password) first."""
        account, address = self._account_key(name), subject(address)
        total = Brake("login-account", account, self.per_account, "Too many failed logins for this name.")
        known = self._device(device)
        if known is not None and account in known["accounts"]:
            return [Brake("login-device", f"{account}:{hash_token(known['id'])[:32]}", self.per_account_address,
                          "Too many wrong passwords for this name from this browser."),
                    Brake(total.scope, total.key, total.limit, total.message, enforced=False)]
        own = Brake("login-account-address", f"{account}:{address}", self.per_account_address,
                    "Too many wrong passwords for this name from this device.")
        # The name's total refuses only an address that has failed on it itself: see the docstring.
        failed_here = not self.limiter.peek(own.scope, own.key, limit=1, window=self.window)
        return [own, Brake("login-address", address, self.per_address, "Too many failed logins from this device."),
                Brake(total.scope, total.key, total.limit, total.message, enforced=failed_here)]

    def _refuse(self, brake: Brake):
        wait = self.limiter.retry_after(brake.scope, brake.key, limit=brake.limit, window=self.window) or self.window
        raise LoginLimited(f"{brake.message} Try again in {wait_words(wait)}.", wait)

    def authenticate(self, name: str, password: str, address: str = "local", device=None) -> Facilitator | None:
        """The facilitator whose name and password these are, else None. Raises
        LoginLimited, without checking the password, while a brake is on. `device`:
        the browser's known-browser cookie, if it sent one (see `device_cookie`)."""
        name, password = str(name or ""), str(password or "")
        if has_nul([name, password]):
            return None
        brakes = self._brakes(name, address, device)
        for brake in brakes:  # a refused attempt counts nothing
            if brake.enforced and not self.limiter.peek(brake.scope, brake.key, limit=brake.limit,
                                                        window=self.window):
                self._refuse(brake)
        counted = [self.limiter.hit(b.scope, b.key, limit=b.limit, window=self.window) for b in brakes]
        for allowed, brake in zip(counted, brakes):
            if brake.enforced and not allowed:  # simultaneous attempts took the last places first
                self._refuse(brake)
        dummy = self._dummy()  # made at the first login of any name: the first is slow for every name
        fac = self._named(name.strip())
        if fac is None:
            self.offload(check_password_hash, dummy, password)  # the same time as a known name
            return None
        if not self.offload(check_password_hash, fac.password_hash, password):
            return None
        for brake in brakes[1:]:
            self.limiter.undo(brake.scope, brake.key, window=self.window)  # a correct login is no failure
        self.limiter.reset(brakes[0].scope, brakes[0].key)  # this name from this address (or browser) only
        return fac

    def _hash(self, password: str) -> str:
        return self.offload(generate_password_hash, password, method=self.hash_method)

    def _dummy(self) -> str:
        if self.hash_method not in Accounts._dummy_hashes:
            # The method of every account's hash: the same cost.
            Accounts._dummy_hashes[self.hash_method] = self._hash(secrets.token_urlsafe(16))
        return Accounts._dummy_hashes[self.hash_method]

    # --- the login cookie ---------------------------------------------------
    @staticmethod
    def session_claims(fac: Facilitator) -> dict:
        """What the signed session cookie holds for a logged-in facilitator."""
        return {"facilitator_id": fac.id, "epoch": fac.session_epoch}

    def from_session(self, data: Mapping) -> Facilitator | None:
        """The facilitator a session cookie logs in, unless they have logged out since."""
        fac = self.get(data.get("facilitator_id"))
        if fac is None or data.get("epoch") != fac.session_epoch:
            return None
        return fac

    def end_sessions(self, facilitator_id: int) -> None:
        """Log out: every cookie issued to this facilitator so far stops working. It
        logs out their other browsers too: a teacher logs out of a shared classroom
        computer to make sure nobody else can carry on as them, anywhere."""
        with Session(self.db) as s:
            s.exec(update(Facilitator).where(Facilitator.id == facilitator_id)
                   .values(session_epoch=Facilitator.session_epoch + 1))
            s.commit()
        self._credentials_ended(facilitator_id)

    # --- API tokens -----------------------------------------------------------
    def issue_token(self, facilitator_id: int) -> str:
        token = new_token()
        now = utcnow()
        with Session(self.db) as s:
            # Tokens past their date are of no use to anyone: forget this teacher's.
            for old in s.exec(select(ApiToken).where(ApiToken.facilitator_id == facilitator_id,
                                                     ApiToken.expires_at <= now)).all():
                s.delete(old)
            s.add(ApiToken(facilitator_id=facilitator_id, token_hash=hash_token(token), created_at=now,
                           expires_at=now + timedelta(days=self.token_days)))
            s.commit()
        return token

    def token_owner(self, token) -> tuple[Facilitator, int] | None:
        """(the facilitator, the token's id) for a valid unexpired token, else None."""
        if not isinstance(token, str) or not token or "\x00" in token:
            return None
        now = utcnow()
        with Session(self.db, expire_on_commit=False) as s:
            row = s.exec(select(ApiToken).where(ApiToken.token_hash == hash_token(token))).first()
            if row is None or row.expires_at is None or aware(row.expires_at) <= now:
                return None
            if row.last_used_at is None or now - aware(row.last_used_at) >= TOKEN_TOUCH_EVERY:
                row.last_used_at = now
                s.add(row)
                s.commit()
            fac = s.get(Facilitator, row.facilitator_id)
            return (fac, row.id) if fac else None

    def by_token(self, token) -> Facilitator | None:
        owner = self.token_owner(token)
        return owner[0] if owner else None

    def tokens_of(self, facilitator_id: int) -> list[TokenInfo]:
        """A facilitator's unexpired API tokens, newest first (never the tokens themselves)."""
        now = utcnow()
        with Session(self.db) as s:
            rows = s.exec(select(ApiToken).where(ApiToken.facilitator_id == facilitator_id)
                          .order_by(ApiToken.id.desc())).all()
            return [TokenInfo(r.id, aware(r.created_at), aware(r.last_used_at), aware(r.expires_at))
                    for r in rows if r.expires_at is not None and aware(r.expires_at) > now]

    def revoke_token(self, facilitator_id: int, token_id) -> bool:
        """Delete one of this facilitator's tokens; False if they have no such token."""
        if not isinstance(token_id, int) or row_id(token_id) is None:
            return False
        with Session(self.db) as s:
            row = s.get(ApiToken, token_id)
            if row is None or row.facilitator_id != facilitator_id:
                return False
            s.delete(row)
            s.commit()
        self._credentials_ended(facilitator_id)
        return True

    # --- first run ----------------------------------------------------------
    # Both steps run under app.store.migrations.locked: one transaction no other process
    # can interleave with (a PostgreSQL advisory lock, SQLite's write lock), so the
    # checks and the writes after them are one step for every process at once.
    def setup_link_token(self) -> str | None:
        """A fresh one-time setup token while no facilitator exists, else None: also
        None when another process issued one in the last SETUP_LINK_QUIET seconds
        (several processes starting at once print one link between them). Older
        unused links stay valid until an account is created."""
        from app.store.migrations import locked

        token = new_token()
        now = utcnow()
        with locked(self.db) as conn:
            if conn.execute(select(func.count()).select_from(Facilitator)).scalar():
                return None
            recent = conn.execute(select(func.count()).select_from(SetupToken).where(
                SetupToken.used == False, SetupToken.created_at > now - timedelta(seconds=SETUP_LINK_QUIET))  # noqa: E712
            ).scalar()
            if recent:
                return None
            conn.execute(insert(SetupToken).values(token_hash=hash_token(token), used=False, created_at=now))
        return token

    def setup_token_valid(self, token: str) -> bool:
        if not isinstance(token, str) or has_nul(token) or self.count():
            return False
        with Session(self.db) as s:
            row = s.exec(select(SetupToken).where(SetupToken.token_hash == hash_token(token or ""))).first()
            return bool(row and not row.used)

    def create_with_setup_token(self, token: str, name: str, password: str) -> Facilitator:
        """Exactly one account, however many set-up posts arrive at once, in however
        many processes: the claim of the link and the account are one locked step."""
        from app.store.migrations import locked

        name = self._checked(name, password)
        if not self.setup_token_valid(token):
            raise AccountError("This set-up link has already been used.")
        fac = Facilitator(name=name, password_hash=self._hash(password))
        with locked(self.db) as conn:
            claimed = conn.execute(update(SetupToken).where(SetupToken.token_hash == hash_token(token),
                                                            SetupToken.used == False)  # noqa: E712
                                   .values(used=True)).rowcount
            if claimed != 1 or conn.execute(select(func.count()).select_from(Facilitator)).scalar():
                raise AccountError("This set-up link has already been used.")  # rolls the claim back
            conn.execute(update(SetupToken).where(SetupToken.used == False).values(used=True))  # noqa: E712
            fac.id = conn.execute(insert(Facilitator).values(**fac.model_dump(exclude={"id"}))).inserted_primary_key[0]
        return fac
