"""The real server: `python -m app --host HOST --port PORT`.

This is the only module that touches eventlet: it monkey-patches before
anything else is imported, then runs eventlet's WSGI server with the configured
database and message queue, behind the door of app/edge/serving.py (a cap on each
address's connections, an accept that survives running out of descriptors, a
deadline on request headers).
"""
import os
import sys

ASYNC_MODE = os.environ.setdefault("ASYNC_MODE", "eventlet")
if ASYNC_MODE == "eventlet":
    import warnings

    with warnings.catch_warnings():
        # eventlet warns that it is in maintenance mode; DESIGN.md knows, and keeps
        # every other module free of it so that moving off is a one-setting change.
        warnings.simplefilter("ignore")
        import eventlet

    eventlet.monkey_patch()

import argparse  # noqa: E402


DEFAULT_PORT = 8000  # 5000 is taken by AirPlay on macOS
# eventlet's WSGI server serves at most this many connections at once, and every phone's
# WebSocket holds one for as long as it is open. Its default (1,024) stalled the 1,025th
# connection (a phone, the teacher's page, anything) until one closed; memory (about
# 0.1 MB a phone, bench/classroom_load.py) is the real limit of a worker.
MAX_CONNECTIONS = 10_000


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m app", description="Run the Classroom Games server.")
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all interfaces)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default: {DEFAULT_PORT})")
    args = parser.parse_args(argv)

    from app import create_app
    from app.extensions import services, socketio
    from app.edge.netaddr import lan_address, terminal_qr, where_phones_connect

    from app.edge import serving

    open_files = serving.raise_open_files_limit()
    app = create_app()
    serving.setup_logging()  # after create_app: engine.io's and Socket.IO's loggers exist then
    accounts = services(app).accounts
    base, unreachable = where_phones_connect(app.config["PUBLIC_URL"], args.host, args.port, lan_address())
    print(f"Classroom Games is running. Open {base}/ (students) or {base}/facilitator/ (teacher).", flush=True)
    if unreachable:
        print(f"WARNING: {unreachable}", flush=True)
    else:
        print(f"Phones open {base}/ or scan:", flush=True)
        print(terminal_qr(f"{base}/"), flush=True)
    if serving.open_files_warning(open_files):
        print(f"WARNING: {serving.open_files_warning(open_files)}", flush=True)
    setup = accounts.setup_link_token()
    if setup:
        print(f"No facilitator account yet. Create one (this link works once): {base}/facilitator/setup/{setup}",
              flush=True)
    elif not accounts.count():  # another process starting at the same time printed the one link
        print("No facilitator account yet. Another server process printed the one-time set-up link less than "
              "a minute ago (it still works): use that link, or start again in a minute for a new one.", flush=True)
    if setup or not accounts.count():
        print(f"  or run: {sys.executable} -m flask --app app facilitator add NAME --password PASSWORD",
              flush=True)
    sys.stdout.flush()
    # Timers (computer moves, deadlines) and presence run from the start, not from the
    # first connection: after a restart, or on a process the phones have not reached
    # yet, the timers other processes left must still fire and dead processes be noticed.
    services(app).notifier.scheduler.start()
    services(app).presence.start()
    serving.settle_garbage_collector()
    if app.config["ASYNC_MODE"] == "eventlet":
        serve_eventlet(app, args.host, args.port)
    else:
        socketio.run(app, host=args.host, port=args.port, use_reloader=False, log_output=False,
                     **server_options(app.config["ASYNC_MODE"]))


def server_options(async_mode: str) -> dict:
    """What socketio.run passes on to the WSGI server."""
    return {"max_size": MAX_CONNECTIONS} if async_mode == "eventlet" else {}


def serve_eventlet(app, host: str, port: int) -> None:
    """What socketio.run does for eventlet, with the door of app/edge/serving.py fitted."""
    import eventlet.wsgi

    from app.edge import serving
    from app.extensions import socketio

    # Behind a proxy every connection comes from the proxy: the cap would shut out the
    # school, so the proxy limits connections there (deploy/README.md).
    door = serving.Door(0 if app.config["PROXY_COUNT"] else app.config["CONNECTIONS_PER_ADDRESS"])
    listener = serving.GuardedListener(listen(host, port), door, sleep=eventlet.sleep)
    pool = serving.CountingPool(eventlet.GreenPool(server_options("eventlet")["max_size"]), door)
    protocol = door_protocol(socketio_path="/socket.io/",  # Flask-SocketIO's, which the app keeps
                             body_cap=socketio.server.eio.max_http_buffer_size,
                             header_seconds=app.config["HEADER_SECONDS"])
    eventlet.wsgi.server(listener, app, log_output=False, custom_pool=pool, protocol=protocol)


def listen(host: str, port: int):
    """The server's listening socket, without Nagle's algorithm: a view written while the
    phone has not yet acknowledged the previous one would otherwise wait for the phone's
    delayed ACK, 40 ms on Linux (bench/README.md, "Nagle's algorithm"). The connections it
    accepts inherit TCP_NODELAY (Linux, the BSDs); Node's and nginx's servers set it too.
    Without SO_REUSEPORT (eventlet's default sets it): a second server started on the same
    port would share it silently, the kernel handing each phone to one or the other, with
    two different sets of tables; it fails instead ("Address already in use")."""
    import socket
    import warnings

    with warnings.catch_warnings():  # its maintenance-mode warning, as at the top of this module
        warnings.simplefilter("ignore")
        import eventlet

    family, _type, _proto, _name, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = eventlet.listen(address, family, reuse_port=False)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def door_protocol(socketio_path: str, body_cap: int, header_seconds: float):
    """eventlet's HTTP protocol with a deadline of header_seconds on each request's line and headers, and
    a 413 for a Socket.IO POST longer than its cap (serving.body_too_large says why)."""
    import socket

    import eventlet.wsgi

    from app.edge import serving

    class DoorProtocol(eventlet.wsgi.HttpProtocol):
        _deadline = None

        def _read_request_line(self):
            # From here until the headers are in: the wait for a keep-alive connection's
            # next request counts too, so an idle connection is closed as well.
            self._end_deadline()
            # socket.timeout is what eventlet's server expects of a slow client: it closes quietly.
            self._deadline = eventlet.Timeout(header_seconds, socket.timeout("request headers too slow"))
            return super()._read_request_line()

        def parse_request(self):
            try:
                parsed = super().parse_request()
            finally:
                self._end_deadline()
            if parsed and serving.body_too_large(self.command, self.path, self.headers.get("Content-Length"),
                                                 socketio_path, body_cap):
                self.wfile.write(b"HTTP/1.1 413 Payload Too Large\r\n"
                                 b"Connection: close\r\nContent-Length: 0\r\n\r\n")
                self.close_connection = 1
                return False
            return parsed

        def finish(self):
            self._end_deadline()
            super().finish()

        def _end_deadline(self):
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

    return DoorProtocol


if __name__ == "__main__":
    main()
