"""The real server: `python -m app --host HOST --port PORT`.

This is the only module that touches eventlet: it monkey-patches before
anything else is imported, then runs Flask-SocketIO's eventlet server with the
configured database and message queue.
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
    from app.extensions import socketio
    from app.netaddr import lan_address, terminal_qr, where_phones_connect

    app = create_app()
    accounts = app.extensions["accounts"]
    base, unreachable = where_phones_connect(app.config["PUBLIC_URL"], args.host, args.port, lan_address())
    print(f"Classroom Games is running. Open {base}/ (students) or {base}/facilitator/ (teacher).", flush=True)
    if unreachable:
        print(f"WARNING: {unreachable}", flush=True)
    else:
        print(f"Phones open {base}/ or scan:", flush=True)
        print(terminal_qr(f"{base}/"), flush=True)
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
    app.extensions["notifier"].scheduler.start()
    app.extensions["presence"].start()
    socketio.run(app, host=args.host, port=args.port, use_reloader=False, log_output=False,
                 **server_options(app.config["ASYNC_MODE"]))


def server_options(async_mode: str) -> dict:
    """What socketio.run passes on to the WSGI server."""
    return {"max_size": MAX_CONNECTIONS} if async_mode == "eventlet" else {}


if __name__ == "__main__":
    main()
