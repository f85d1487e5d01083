"""Authentication against the real server (eventlet): a password check and the
event loop, and two processes starting at once on an empty database."""
from __future__ import annotations

import re
import sys
import threading
import time
from pathlib import Path

import pytest
import requests
from sqlalchemy import func, select, update
from werkzeug.security import generate_password_hash

from app.store.db import make_engine
from app.store.models import Facilitator

from live import LiveServer
from test_auth import add_setup_token, db_url  # noqa: F401  (db_url: the SQLite/PostgreSQL fixture)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from login_guessing import UNBRAKED, WarTable  # noqa: E402

pytestmark = pytest.mark.live


def test_a_slow_password_check_does_not_hold_up_a_tables_moves(tmp_path):
    """Password checks run off the event loop (app/edge/offload.py): while one runs, a table's
    moves go on being answered. The check is made slow on purpose (the account's stored hash
    asks for millions of PBKDF2 rounds: seconds of one core on any machine), and the test
    compares the moves' gaps with that check's own time in the same run, not with a fixed
    number, so a busy machine slows both alike. Hashing on the loop would stop the moves for
    the whole check. How much guessers slow a table: bench/login_guessing.py."""
    server = LiveServer(tmp_path, **UNBRAKED)
    table = None
    try:
        server.add_facilitator()
        server.add_facilitator("slow", "slow-password-1")
        engine = make_engine(server.env["DATABASE_URL"], migrate=False)
        with engine.begin() as conn:
            conn.execute(update(Facilitator).where(Facilitator.name == "slow").values(
                password_hash=generate_password_hash("slow-password-1", method="pbkdf2:sha256:1500000")))
        engine.dispose()
        server.start()
        table = WarTable(server)
        table.ack_times(5)  # warm-up
        answer = {}

        def guess():
            answer["status"] = requests.post(server.url + "/api/login", json={"name": "slow", "password": "wrong-1"},
                                             timeout=300).status_code
            answer["at"] = time.monotonic()

        guesser = threading.Thread(target=guess)
        sent = time.monotonic()
        guesser.start()
        acked = [sent]
        # At a pace, and at most 80: the table's game (its deal is fixed, tests/live.py) lasts 99 battles.
        while guesser.is_alive() and len(acked) <= 80:
            table.ack_times(1)
            acked.append(time.monotonic())
            time.sleep(0.02)
        guesser.join()
        check = answer["at"] - sent
        during = [t for t in acked if t <= answer["at"]]
        gaps = [b - a for a, b in zip(during, during[1:])]
        print(f"a {check:.1f} s password check; {len(during) - 1} moves answered meanwhile, "
              f"the longest wait {max(gaps) * 1000:.0f} ms")
        assert answer["status"] == 401
        assert len(during) > 5 and max(gaps) < check / 2, (check, gaps)  # on the loop: 0 moves, one gap
    finally:
        if table is not None:
            table.close()
        server.stop()


def setup_form(session: requests.Session, link: str) -> dict:
    page = session.get(link, timeout=10)
    assert page.status_code == 200, page.text
    return {"csrf": re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)}


def test_two_processes_starting_at_once_print_one_link_and_make_one_account(tmp_path, db_url):  # noqa: F811
    for attempt in range(2):
        url = db_url if db_url.startswith("postgresql") else f"sqlite:///{tmp_path / f'shared-{attempt}.db'}"
        servers = [LiveServer(tmp_path / f"{attempt}-{i}", DATABASE_URL=url) for i in range(2)]
        engine = None
        try:
            starting = [threading.Thread(target=s.start) for s in servers]
            for t in starting:
                t.start()
            for t in starting:
                t.join()
            outputs = ["".join(s.output) for s in servers]
            links = [re.search(r"(http://\S+/facilitator/setup/\S+)", text) for text in outputs]
            assert sum(bool(link) for link in links) == 1, outputs
            quiet = outputs[[bool(link) for link in links].index(False)]
            assert "Another server process printed the one-time set-up link less than a minute ago (it still works)" in quiet
            link = next(link.group(1) for link in links if link)
            printer = next(s for s, found in zip(servers, links) if found)
            other = next(s for s in servers if s is not printer)

            # The printed link posted to one process, an earlier start's link to the other, at once.
            engine = make_engine(url, migrate=False)
            earlier = f"{other.url}/facilitator/setup/{add_setup_token(engine)}"
            sessions = [requests.Session(), requests.Session()]
            posts = [(sessions[0], link, setup_form(sessions[0], link)),
                     (sessions[1], earlier, setup_form(sessions[1], earlier))]
            barrier, answers = threading.Barrier(2), {}

            def post(i, session, target, form):
                barrier.wait()
                answers[i] = session.post(target, data=dict(form, name=f"Teacher {i}", password="live-password-1"),
                                          allow_redirects=False, timeout=30).status_code

            threads = [threading.Thread(target=post, args=(i, *p)) for i, p in enumerate(posts)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert sorted(answers.values())[0] == 302 and sorted(answers.values())[1] in (400, 410), answers
            with engine.connect() as conn:
                names = conn.execute(select(Facilitator.name)).scalars().all()
                assert conn.execute(select(func.count()).select_from(Facilitator)).scalar() == 1
            winner = names[0]
            assert requests.post(other.url + "/api/login", json={"name": winner, "password": "live-password-1"},
                                 timeout=10).status_code == 200
            for s in sessions:
                s.close()
            if db_url.startswith("postgresql"):  # the next try starts from an empty schema again
                with engine.begin() as conn:
                    for table in ("setuptoken", "apitoken", "facilitator"):
                        conn.exec_driver_sql(f"DELETE FROM {table}")
        finally:
            for s in servers:
                s.stop()
            if engine is not None:
                engine.dispose()
