"""Facilitator accounts: passwords, API tokens and the first-run setup link."""
from __future__ import annotations

from sqlmodel import Session, select
from werkzeug.security import check_password_hash, generate_password_hash

from app.models import ApiToken, Facilitator, SetupToken
from app.security import has_nul, hash_token, new_token


class AccountError(ValueError):
    pass


class Accounts:
    def __init__(self, db):
        self.db = db

    def add(self, name: str, password: str) -> Facilitator:
        name = (name or "").strip()
        if has_nul([name, password]):
            raise AccountError("A name or password cannot contain a NUL character.")
        if not (1 <= len(name) <= 40):
            raise AccountError("A facilitator name has 1 to 40 characters.")
        if len(password or "") < 8:
            raise AccountError("Choose a password of at least 8 characters.")
        with Session(self.db, expire_on_commit=False) as s:
            if s.exec(select(Facilitator).where(Facilitator.name == name)).first():
                raise AccountError(f"A facilitator called {name!r} already exists.")
            fac = Facilitator(name=name, password_hash=generate_password_hash(password))
            s.add(fac)
            s.commit()
            return fac

    def count(self) -> int:
        with Session(self.db) as s:
            return len(s.exec(select(Facilitator.id)).all())

    def authenticate(self, name: str, password: str) -> Facilitator | None:
        if has_nul([name, password]):
            return None
        with Session(self.db, expire_on_commit=False) as s:
            fac = s.exec(select(Facilitator).where(Facilitator.name == (name or "").strip())).first()
            if fac and check_password_hash(fac.password_hash, password or ""):
                return fac
            return None

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

    def issue_token(self, facilitator_id: int) -> str:
        token = new_token()
        with Session(self.db) as s:
            s.add(ApiToken(facilitator_id=facilitator_id, token_hash=hash_token(token)))
            s.commit()
        return token

    def by_token(self, token) -> Facilitator | None:
        if not isinstance(token, str) or not token or "\x00" in token:
            return None
        with Session(self.db, expire_on_commit=False) as s:
            row = s.exec(select(ApiToken).where(ApiToken.token_hash == hash_token(token))).first()
            return s.get(Facilitator, row.facilitator_id) if row else None

    # --- first run -------------------------------------------------------
    def setup_link_token(self) -> str | None:
        """A fresh one-time setup token while no facilitator exists, else None."""
        if self.count():
            return None
        token = new_token()
        with Session(self.db) as s:
            s.add(SetupToken(token_hash=hash_token(token)))
            s.commit()
        return token

    def setup_token_valid(self, token: str) -> bool:
        if self.count():
            return False
        with Session(self.db) as s:
            row = s.exec(select(SetupToken).where(SetupToken.token_hash == hash_token(token or ""))).first()
            return bool(row and not row.used)

    def create_with_setup_token(self, token: str, name: str, password: str) -> Facilitator:
        if not self.setup_token_valid(token):
            raise AccountError("This set-up link has already been used.")
        fac = self.add(name, password)
        with Session(self.db) as s:
            for row in s.exec(select(SetupToken)).all():
                row.used = True
                s.add(row)
            s.commit()
        return fac
