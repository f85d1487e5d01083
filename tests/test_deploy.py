"""Deployment: behind a reverse proxy (PROXY_COUNT, Secure cookies) and the nginx generator."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from flask import jsonify, request

from app import config as config_module
from conftest import make_app

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "deploy"))

import nginx_conf  # noqa: E402
import run_workers  # noqa: E402

FORWARDED = {"X-Forwarded-For": "203.0.113.7", "X-Forwarded-Proto": "https",
             "X-Forwarded-Host": "games.school.example", "X-Forwarded-Port": "443"}


def probe(app):
    """What a view function sees of the visitor."""
    @app.get("/_probe")
    def _probe():
        return jsonify(addr=request.remote_addr, scheme=request.scheme, host=request.host, url=request.url_root)

    return app.test_client().get("/_probe", headers=FORWARDED, environ_base={"REMOTE_ADDR": "127.0.0.1"}).json


def test_forwarded_headers_are_ignored_by_default(tmp_path):
    # Without a proxy in front, anyone could claim any address with a header.
    seen = probe(make_app(tmp_path))
    assert seen == {"addr": "127.0.0.1", "scheme": "http", "host": "localhost", "url": "http://localhost/"}


def test_proxy_count_makes_the_visitor_visible(tmp_path):
    seen = probe(make_app(tmp_path, PROXY_COUNT=1))
    assert seen == {"addr": "203.0.113.7", "scheme": "https", "host": "games.school.example",
                    "url": "https://games.school.example/"}


def test_proxy_count_trusts_only_the_last_hops(tmp_path):
    app = make_app(tmp_path, PROXY_COUNT=1)

    @app.get("/_addr")
    def _addr():
        return request.remote_addr

    # A visitor's own forged X-Forwarded-For comes first; nginx appends the real address.
    got = app.test_client().get("/_addr", headers={"X-Forwarded-For": "10.9.9.9, 198.51.100.4"})
    assert got.text == "198.51.100.4"


def test_sockets_see_the_visitor_behind_the_proxy(tmp_path):
    """The Socket.IO handshake goes through ProxyFix too: handlers' request.remote_addr is the visitor's."""
    from app.extensions import socketio

    app = make_app(tmp_path, PROXY_COUNT=1)
    before = set(socketio.server.environ)
    res = app.test_client().get("/socket.io/?EIO=4&transport=polling", headers=FORWARDED,
                                environ_base={"REMOTE_ADDR": "127.0.0.1"})
    assert res.status_code == 200
    new = [socketio.server.environ[k] for k in set(socketio.server.environ) - before]
    assert [(e["REMOTE_ADDR"], e["wsgi.url_scheme"]) for e in new] == [("203.0.113.7", "https")]


def session_cookie(app) -> str:
    res = app.test_client().get("/facilitator/login")  # the login form puts a CSRF token in the session
    assert res.status_code == 200
    cookies = [v for k, v in res.headers.items() if k == "Set-Cookie" and v.startswith("session=")]
    assert len(cookies) == 1
    return cookies[0]


def test_session_cookie_is_secure_when_phones_use_https(tmp_path):
    assert "; Secure" in session_cookie(make_app(tmp_path, PUBLIC_URL="https://games.school.example"))


def test_session_cookie_is_not_secure_over_plain_http(tmp_path):
    # A Secure cookie is never sent back over http: the teacher could not log in.
    assert "Secure" not in session_cookie(make_app(tmp_path, PUBLIC_URL="http://192.168.1.20:8000"))


def test_cookie_secure_setting_overrides_the_guess(tmp_path):
    assert "; Secure" in session_cookie(make_app(tmp_path, PUBLIC_URL="", COOKIE_SECURE=True))
    assert "Secure" not in session_cookie(make_app(tmp_path, PUBLIC_URL="https://x.example", COOKIE_SECURE=False))


def test_settings_come_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv("PROXY_COUNT", "2")
    monkeypatch.setenv("COOKIE_SECURE", "yes")
    settings = config_module.from_environment()
    assert (settings["PROXY_COUNT"], settings["COOKIE_SECURE"]) == (2, True)
    monkeypatch.setenv("COOKIE_SECURE", "sometimes")
    with pytest.raises(ValueError, match="COOKIE_SECURE is 1 or 0"):
        config_module.from_environment()


@pytest.mark.parametrize("sticky, rule", [("cookie", "hash $cg_lb_key consistent;"), ("ip", "ip_hash;")])
def test_nginx_config_has_sticky_sessions_and_websocket_upgrade(sticky, rule):
    text = nginx_conf.site_config([8001, 8002, 8003], listen=80, sticky=sticky)
    upstream = text[text.index("upstream classroom_games"):text.index("}", text.index("upstream classroom_games"))]
    assert rule in upstream
    assert [line.split()[1] for line in upstream.splitlines() if line.strip().startswith("server ")] == \
        ["127.0.0.1:8001", "127.0.0.1:8002", "127.0.0.1:8003"]
    for directive in ("proxy_http_version 1.1;", "proxy_set_header Upgrade $http_upgrade;",
                      "proxy_set_header Connection $cg_connection;",
                      "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;",
                      "proxy_set_header X-Forwarded-Proto $scheme;", "proxy_set_header Host $host;"):
        assert directive in text
    assert ("add_header Set-Cookie $cg_lb_set;" in text) == (sticky == "cookie")


def test_nginx_config_generator_refuses_bad_input():
    with pytest.raises(ValueError):
        nginx_conf.site_config([], listen=80)
    with pytest.raises(ValueError):
        nginx_conf.site_config([8001], listen=80, sticky="round-robin")


def test_standalone_nginx_config_keeps_its_files_in_its_folder(tmp_path):
    text = nginx_conf.standalone_config([8001, 8002], "127.0.0.1:18000", str(tmp_path))
    assert f"pid {tmp_path}/nginx.pid;" in text
    assert f"proxy_temp_path {tmp_path}/proxy;" in text
    assert "listen 127.0.0.1:18000;" in text
    nginx = run_workers.find_nginx()
    if nginx:  # where nginx is installed it must accept the file (CI need not have nginx)
        for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (tmp_path / name).mkdir()
        (tmp_path / "nginx.conf").write_text(text)
        check = subprocess.run([nginx, "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"),
                                "-e", str(tmp_path / "error.log")], capture_output=True, text=True)
        assert check.returncode == 0, check.stderr


def test_nginx_config_command_line():
    out = subprocess.run([sys.executable, str(ROOT / "deploy" / "nginx_conf.py"), "--ports", "9001,9002",
                          "--listen", "8080", "--sticky", "ip"], capture_output=True, text=True, check=True).stdout
    assert "ip_hash;" in out and "server 127.0.0.1:9002" in out and "listen 8080;" in out


def test_several_workers_need_postgresql_and_redis(monkeypatch, capsys):
    monkeypatch.setenv("DATABASE_URL", "sqlite:///x.db")
    monkeypatch.delenv("SOCKETIO_MESSAGE_QUEUE", raising=False)
    with pytest.raises(SystemExit) as exited:
        run_workers.main(["--workers", "2", "--no-nginx"])
    assert exited.value.code == 2
    assert "DATABASE_URL=postgresql" in capsys.readouterr().err



def test_server_serves_more_than_a_thousand_sockets_at_once(monkeypatch):
    """eventlet's WSGI server serves 1,024 connections at once unless told otherwise; every
    phone's WebSocket holds one, so a school-sized worker stalled its 1,025th visitor."""
    monkeypatch.setenv("ASYNC_MODE", "threading")  # importing the entry point must not monkey-patch the tests
    from app.__main__ import server_options

    assert server_options("eventlet")["max_size"] >= 5000
    assert server_options("threading") == {}  # werkzeug's server takes no such option


def free_port_pair() -> int:
    """A port whose next port is free too (run_workers.py takes consecutive ports; a lone
    free port's neighbour may belong to another server of the run)."""
    import socket
    for _ in range(50):
        with socket.socket() as a:
            a.bind(("127.0.0.1", 0))
            port = a.getsockname()[1]
            with socket.socket() as b:
                try:
                    b.bind(("127.0.0.1", port + 1))
                except OSError:
                    continue
                return port
    raise RuntimeError("no two consecutive free ports")


@pytest.mark.live
def test_run_workers_starts_and_stops_two_workers_on_postgres_and_redis(tmp_path, postgres_schema):
    """deploy/run_workers.py: two workers on consecutive ports share the database (a table
    made through one is read through the other); Ctrl-C stops both."""
    import os
    import signal
    import time

    import requests

    first = free_port_pair()
    second = first + 1
    env = dict(os.environ, DATABASE_URL=postgres_schema, SOCKETIO_MESSAGE_QUEUE="redis://127.0.0.1:6379/0",
               SECRET_KEY="deploy-test", INSTANCE_PATH=str(tmp_path / "instance"), PUBLIC_URL="http://x.example")
    add = subprocess.run([sys.executable, "-m", "flask", "--app", "app", "facilitator", "add", "ops",
                          "--password", "ops-password-1"], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120)
    assert add.returncode == 0, add.stderr
    proc = subprocess.Popen([sys.executable, str(ROOT / "deploy" / "run_workers.py"), "--workers", "2",
                             "--first-port", str(first), "--no-nginx", "--run-dir", str(tmp_path / "run")],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert f"workers on {first}, {second}" in proc.stdout.readline()
        urls = [f"http://127.0.0.1:{p}" for p in (first, second)]
        token = requests.post(urls[0] + "/api/login", json={"name": "ops", "password": "ops-password-1"},
                              timeout=10).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        code = requests.post(urls[0] + "/api/tables", json={"game": "war"}, headers=auth, timeout=10).json()["code"]
        assert requests.get(f"{urls[1]}/api/tables/{code}", headers=auth, timeout=10).status_code == 200
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0
        time.sleep(0.5)
        for url in urls:
            with pytest.raises(requests.ConnectionError):
                requests.get(url + "/", timeout=2)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_nginx_config_keeps_the_door_per_visitor_address():
    """Behind nginx the workers' own cap is off (PROXY_COUNT): nginx caps each address."""
    text = nginx_conf.site_config([8001], listen=80)
    assert "limit_conn_zone $binary_remote_addr zone=cg_per_address:10m;" in text
    assert "limit_conn cg_per_address 150;" in text
    assert "client_header_timeout 10s;" in text and "client_body_timeout 10s;" in text
    shorter = nginx_conf.site_config([8001], listen=80, header_seconds=3)  # the live test's, to wait less
    assert "client_header_timeout 3s;" in shorter and "client_body_timeout 3s;" in shorter
    assert "limit_conn " not in nginx_conf.site_config([8001], listen=80, per_address=0)
    with pytest.raises(ValueError):
        nginx_conf.site_config([8001], listen=80, per_address=-1)
