"""Run the real server (`python -m app`, eventlet) in a subprocess for tests."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import requests
import socketio

from phones import accept

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """One server process on a fixed port and database; can be killed and started again."""

    def __init__(self, tmp_path: Path, **env):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.instance = tmp_path / "instance"
        self.env = dict(os.environ, INSTANCE_PATH=str(self.instance),
                        DATABASE_URL=f"sqlite:///{self.instance / 'live.db'}", SECRET_KEY="live-secret",
                        PUBLIC_URL=self.url, BOT_DELAY_SCALE="0.01", SOCKET_RATE="1000", SOCKET_BURST="1000",
                        PYTHONUNBUFFERED="1", DEAL_SEED="live",  # the same deals every run
                        PASSWORD_HASH_METHOD="pbkdf2:sha256:1000")  # a cheap hash (tests/conftest.py)
        self.env.update(env)
        self.env.pop("ASYNC_MODE", None)  # the entry point's own default: eventlet
        self.proc: subprocess.Popen | None = None
        self.started = False   # it has served once (a restart keeps its port: phones come back to it)
        self.output: list[str] = []

    def cli(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "flask", "--app", "app", *args], cwd=ROOT, env=self.env,
                              capture_output=True, text=True, timeout=60)

    def start(self, timeout: float = 30.0, **popen) -> None:
        """Start and wait until it serves; `popen`: more of Popen's arguments (e.g. preexec_fn).

        It serves once this process listens on the port and answers there. (An answer alone
        proved nothing: a port free when it was picked can be taken by another worker's
        server before this one binds it; this one then exits, and the answers came from the
        other, which stopped with its module: ERR_CONNECTION_REFUSED in the next test. A
        server whose port was taken so, on its first start, gets another free port.)"""
        for attempt in range(3):
            self.proc = subprocess.Popen([sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(self.port)],
                                         cwd=ROOT, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                         text=True, **popen)
            threading.Thread(target=self._drain, args=(self.proc,), daemon=True).start()
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    break
                if self._listening():
                    try:
                        if requests.get(self.url + "/", timeout=1).status_code == 200:
                            self.started = True
                            return
                    except requests.RequestException:
                        pass
                time.sleep(0.05)
            else:
                raise RuntimeError("server did not start:\n" + "".join(self.output))
            self.proc.wait(timeout=10)
            if self.started or "already in use" not in "".join(self.output):
                raise RuntimeError("server exited:\n" + "".join(self.output))
            old_url, self.port = self.url, free_port()   # (see above: taken between free_port and the bind)
            self.url = f"http://127.0.0.1:{self.port}"
            if self.env.get("PUBLIC_URL") == old_url:
                self.env["PUBLIC_URL"] = self.url
            self.output.clear()
        raise RuntimeError("server found no free port:\n" + "".join(self.output))

    def _listening(self) -> bool:
        try:
            connections = psutil.Process(self.proc.pid).net_connections(kind="tcp")
        except psutil.Error:
            return False
        return any(c.status == psutil.CONN_LISTEN and c.laddr.port == self.port for c in connections)

    def _drain(self, proc) -> None:
        for line in proc.stdout:
            self.output.append(line)

    def kill(self) -> None:
        """SIGKILL: no clean shutdown, no flush — the crash we must survive."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def add_facilitator(self, name="teacher", password="live-password-1") -> None:
        """Through the CLI named in DESIGN.md (before the server starts, or while it runs), run
        in this process by Flask's CLI runner on the server's database: a second interpreter
        cost a second or two of a core for each of the run's fifty servers. (`cli` runs the
        real command line; tests/test_live_server.py checks it.)"""
        from app import create_app
        from app.extensions import services

        self.instance.mkdir(parents=True, exist_ok=True)
        app = create_app({"DATABASE_URL": self.env["DATABASE_URL"], "SECRET_KEY": self.env["SECRET_KEY"],
                          "PASSWORD_HASH_METHOD": self.env["PASSWORD_HASH_METHOD"], "TESTING": True})
        try:
            result = app.test_cli_runner().invoke(args=["facilitator", "add", name, "--password", password])
        finally:
            services(app).stop()
        assert result.exit_code == 0, result.output

    def api_token(self, name="teacher", password="live-password-1") -> str:
        return requests.post(self.url + "/api/login", json={"name": name, "password": password},
                             timeout=10).json()["token"]

    def create_table(self, token: str, game: str = "war", **body) -> str:
        """A table through the API; `body` adds fields (lesson_minutes=20, say)."""
        response = requests.post(self.url + "/api/tables", json=dict(body, game=game),
                                 headers={"Authorization": f"Bearer {token}"}, timeout=10)
        assert response.status_code == 201, response.text
        return response.json()["code"]


class LivePhone:
    """A python-socketio client acting like a phone or a board: on reconnect it resumes
    its seat, or watches its table again, by itself (as play.js and board.js do)."""

    def __init__(self, url: str, auth: dict | None = None, token: str | None = None):
        self.sio = socketio.Client(reconnection=True, reconnection_delay=0.2, reconnection_delay_max=1)
        self.view = None
        self.token = token  # a seat to resume as soon as it connects (a phone sent to another worker)
        self.watching = None  # the last `watch` payload, sent again after a reconnect
        self.resumed = threading.Event()
        self.updated = threading.Condition()
        self.sio.on("view", self._on_view)
        self.sio.on("connect", self._on_connect)
        self.sio.connect(url, transports=["websocket"], wait_timeout=10, auth=auth)

    def _on_view(self, payload):
        with self.updated:
            # As a phone does: a newer view of the same table, or any view of another
            # table (a class may move a student), with the running log kept.
            self.view = accept(self.view, payload)
            self.updated.notify_all()

    def _on_connect(self):
        if self.token:
            threading.Thread(target=self._resume, daemon=True).start()
        elif self.watching:
            threading.Thread(target=self.call, args=("watch", self.watching), daemon=True).start()

    def _resume(self):
        try:
            ack = self.sio.call("resume", {"token": self.token}, timeout=30)  # as `call`: a busy machine's answer
        except (socketio.exceptions.TimeoutError, socketio.exceptions.BadNamespaceError):
            return   # the connection dropped again before the answer: its next connect resumes anew
        if ack.get("ok"):
            self.resumed.set()

    def call(self, event, payload):
        if event == "watch":
            self.watching = payload
        return self.sio.call(event, payload, timeout=30)  # a busy machine's answer, not a hang

    def join(self, code, name):
        ack = self.call("join", {"code": code, "name": name})
        assert ack["ok"], ack
        self.token = ack["token"]
        return ack

    def wait_for(self, predicate, timeout=60.0):
        deadline = time.monotonic() + timeout
        with self.updated:
            while not (self.view and predicate(self.view)):
                left = deadline - time.monotonic()
                assert left > 0, f"timed out; last view version {self.view and self.view['version']}"
                self.updated.wait(left)
        return self.view

    def can(self, kind):
        return bool(self.view) and any(a["type"] == kind for a in self.view["actions"])

    def listed(self, kind) -> dict:
        """The action of that kind as the view lists it, label dropped: what a phone sends
        (a War reveal names its battle, so it counts even if another seat moved meanwhile)."""
        action = next(a for a in self.view["actions"] if a["type"] == kind)
        return {k: v for k, v in action.items() if k != "label"}

    def close(self):
        self.sio.disconnect()


def by_hand(actions: list) -> list:
    """The moves a walk picks from at random: not auto-play, which makes a seat move on its
    own. Once every seat had picked it, a War game went on by itself while the boards were
    measured, and they never came to rest (CI: test_board_layout[war-en], settle timed out)."""
    return [a for a in actions if a["type"] != "autoplay"]


def play_live(phones, until=lambda v: v["status"] == "ended", limit=20000):
    """Reveal from every phone whenever it may; returns the acked versions in order."""
    acked = []
    for _ in range(limit):
        if until(phones[0].view):
            return acked
        moved = False
        for phone in phones:
            view = phone.view  # one view: the reveal it lists (naming its battle) and its version
            reveal = next((a for a in view["actions"] if a["type"] == "reveal"), None) if view else None
            if reveal is not None:
                # As a phone sends it: a reveal naming its battle counts even when a tablemate's
                # move got in first (a bare one counts only from the current version, and four
                # phones on a loaded machine could keep one another stale).
                action = {k: v for k, v in reveal.items() if k != "label"}
                ack = phone.call("act", {"version": view["version"], "action": action})
                if ack["ok"]:
                    acked.append(ack["version"])
                    moved = True
                else:
                    assert ack["error"]["code"] in ("stale", "not_your_turn"), ack
        if not moved:
            time.sleep(0.02)  # wait for the broadcast of the other phones' moves
    raise AssertionError("the game did not reach its goal")


def autoplay_to_end(phones, speed=4, timeout=240.0):
    """Switch every phone to server-side auto-play and wait for the end."""
    for phone in phones:
        for _ in range(20):
            ack = phone.call("act", {"version": phone.view["version"], "action": {"type": "autoplay", "speed": speed}})
            if ack["ok"] or ack["error"]["code"] != "stale":
                break
            time.sleep(0.02)
        assert ack["ok"] or ack["error"]["code"] in ("game_over", "not_your_turn"), ack  # out already
    return phones[0].wait_for(lambda v: v["status"] == "ended", timeout=timeout)


def end_table(url, token, code, timeout=30.0):
    """The teacher ends a table's game, as the table page's End button does (again
    if a move got in first: auto-play may be running). Returns the final view."""
    teacher = LivePhone(url, auth={"token": token})
    try:
        teacher.call("watch", {"code": code, "role": "facilitator"})
        view = teacher.wait_for(lambda v: v["code"] == code and v["status"] != "lobby", timeout=timeout)
        version = view["version"]
        for _ in range(100):
            ack = teacher.call("moderate", {"code": code, "version": version, "action": {"type": "end"}})
            if ack["ok"] or ack["error"]["code"] != "stale":
                break
            version = ack["version"]  # a stale answer carries the table's version now
        if not ack["ok"] and ack["error"]["code"] == "game_over":  # it ended by itself first
            return teacher.wait_for(lambda v: v["status"] == "ended", timeout=timeout)
        assert ack["ok"], ack
        return teacher.wait_for(lambda v: v["status"] == "ended" and v["result"], timeout=timeout)
    finally:
        teacher.close()
