"""Two deployments sharing one Redis server (issue 18, item 10): each has its own
Socket.IO channel, limiter keys and presence keys, named by REDIS_NAMESPACE (by
default derived from DATABASE_URL), so one deployment's logout, brakes and phones
never reach the other; two workers of one deployment (one database) still share
all of them. Redis's pub/sub ignores the database number, so a channel must be
named apart: a different `redis://.../N` is no separation."""
from __future__ import annotations

import re
import threading
import time
import uuid

import pytest
import redis
import requests

from app.edge.guard import CODE_SCOPE
from app.extensions import services
from conftest import make_app, new_postgres_schema

REDIS = "redis://127.0.0.1:6379/0"


@pytest.fixture(params=["sqlite", "postgresql"])
def two_databases(request, tmp_path):
    """Two fresh databases: two SQLite files, or two schemas of the machine's PostgreSQL."""
    if request.param == "sqlite":
        yield [f"sqlite:///{tmp_path / name}.db" for name in ("first", "second")]
        return
    with new_postgres_schema() as first, new_postgres_schema() as second:
        yield [first, second]


@pytest.fixture
def deployments(tmp_path):
    """Make apps on the shared Redis; they are taken down afterwards."""
    made = []

    def make(database_url, **overrides):
        app = make_app(tmp_path / uuid.uuid4().hex, DATABASE_URL=database_url, SOCKETIO_MESSAGE_QUEUE=REDIS,
                       **overrides)
        made.append(app)
        return app

    yield make
    for app in made:
        services(app).stop()


def test_every_redis_name_of_a_deployment_carries_its_namespace(two_databases, deployments):
    from app.extensions import socketio

    first = deployments(two_databases[0])
    channel = socketio.server.manager.channel  # the app made last owns the Socket.IO server
    again = deployments(two_databases[0])
    assert socketio.server.manager.channel == channel  # same database: same deployment
    second = deployments(two_databases[1])
    ns = [app.config["REDIS_NAMESPACE"] for app in (first, again, second)]
    assert ns[0] == ns[1] != ns[2]
    assert socketio.server.manager.channel == f"{ns[2]}:socketio" != channel == f"{ns[0]}:socketio"
    for app in (first, second):
        namespace = app.config["REDIS_NAMESPACE"]
        assert services(app).presence.ns == f"{namespace}:presence"
        assert services(app).limits.counter.prefix == f"{namespace}:limit"
    # A deployment may name its own (two databases that are one, under two URLs).
    named = deployments(two_databases[1], REDIS_NAMESPACE="school-" + uuid.uuid4().hex[:6])
    assert services(named).limits.counter.prefix == named.config["REDIS_NAMESPACE"] + ":limit"
    assert socketio.server.manager.channel == named.config["REDIS_NAMESPACE"] + ":socketio"


def test_a_code_guesser_braked_in_one_deployment_is_not_braked_in_another(two_databases, deployments):
    address = f"10.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}.7"  # this run's own count
    brakes = {"CODE_GUESS_LIMIT": 3}
    first, worker, second = (deployments(two_databases[0], **brakes), deployments(two_databases[0], **brakes),
                             deployments(two_databases[1], **brakes))

    def guess(app, letter):
        return app.test_client().get(f"/join/ZZZZZ{letter}", environ_base={"REMOTE_ADDR": address}).status_code

    assert [guess(first, c) for c in "ABCD"] == [404, 404, 404, 429]
    assert guess(worker, "E") == 429  # another worker of the same deployment shares the count
    assert guess(second, "F") == 404  # another deployment does not
    for app in (first, second):  # this run's counts outlive its apps
        for scope in (CODE_SCOPE, CODE_SCOPE + "-hour"):
            services(app).limits.reset(scope, address)
    assert not redis.Redis.from_url(REDIS).keys(f"*{address}*")


@pytest.mark.live
def test_a_logout_in_one_deployment_ends_no_socket_of_another(tmp_path, two_databases):
    """Facilitator 1 exists in both deployments. Logging out in the first ends the
    socket of its teacher on the first's other worker (the two workers share one
    database, a SQLite file or a PostgreSQL schema), and none in the second."""
    from live import LivePhone, LiveServer

    common = {"SOCKETIO_MESSAGE_QUEUE": REDIS, "SECRET_KEY": "ns-" + uuid.uuid4().hex}
    one_a = LiveServer(tmp_path / "a1", DATABASE_URL=two_databases[0], **common)
    one_b = LiveServer(tmp_path / "a2", DATABASE_URL=two_databases[0], **common)
    other = LiveServer(tmp_path / "b", DATABASE_URL=two_databases[1], **common)
    servers, phones = [one_a, one_b, other], []
    try:
        one_a.add_facilitator()
        other.add_facilitator()
        for server in servers:
            server.start()
        drops = {}

        def socket_of(server):
            phone = LivePhone(server.url, auth={"token": server.api_token()})
            phones.append(phone)
            drops[phone] = threading.Event()
            phone.sio.on("disconnect", lambda *_: drops[phone].set())
            return phone

        same_deployment, other_deployment = socket_of(one_b), socket_of(other)
        # The teacher logs out of the first deployment's pages (on its first worker).
        browser = requests.Session()
        login = browser.get(one_a.url + "/facilitator/login", timeout=10).text
        dashboard = browser.post(one_a.url + "/facilitator/login", timeout=10, data={
            "name": "teacher", "password": "live-password-1", "csrf": csrf_in(login)})
        assert dashboard.url.endswith("/facilitator/"), dashboard.url
        assert browser.post(one_a.url + "/facilitator/logout", data={"csrf": csrf_in(dashboard.text)},
                            timeout=10).url.endswith("/facilitator/login")
        assert drops[same_deployment].wait(15), "the other worker of the same deployment kept the socket"
        time.sleep(1.0)  # what reached the first deployment's worker would have reached the second by now
        assert not drops[other_deployment].is_set(), "a logout in one deployment ended another's socket"
    finally:
        for phone in phones:
            phone.close()
        for server in servers:
            server.stop()


def csrf_in(page: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', page).group(1)
