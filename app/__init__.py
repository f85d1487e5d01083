"""Classroom Games: the application factory.

create_app() wires configuration, the database, the table service, the
blueprints and the Socket.IO handlers. Nothing here imports eventlet: the
server entry point (app/__main__.py) chooses and monkey-patches it. Because
`python -m app` imports this package before __main__ runs, this module imports
nothing at the top: eventlet must patch before Flask and friends are loaded.
"""
from __future__ import annotations

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self' ws: wss:; font-src 'self'; object-src 'none'; base-uri 'none'; "
       "frame-ancestors 'none'; form-action 'self'")


def create_app(overrides: dict | None = None):
    from flask import Flask, render_template, request

    from app import config as config_module
    from app.extensions import socketio

    root = config_module.PROJECT_ROOT
    app = Flask(__name__, template_folder=str(root / "templates"), static_folder=str(root / "static"),
                instance_path=config_module.instance_dir().as_posix())
    app.config.update(config_module.from_environment())
    app.config.update(overrides or {})
    if "SESSION_COOKIE_SECURE" not in (overrides or {}):  # Flask's default (False) is not a choice
        app.config["SESSION_COOKIE_SECURE"] = config_module.secure_cookies(app.config)
    app.config["REDIS_NAMESPACE"] = config_module.redis_namespace(app.config)
    from app.wire import http_json_provider
    app.json = http_json_provider(app)

    from app import engines
    for module_name in app.config.get("GAME_MODULES", ()):  # games outside app/engines (e.g. tests')
        engines.register(module_name)

    from app.edge.guard import Guard
    from app.edge.limits import Limiter
    from app.edge.offload import Offload
    from app.extensions import Services
    from app.service.accounts import Accounts
    from app.service.banks import BankService
    from app.service.classes import ClassService
    from app.service.demo import DemoService
    from app.service.online import OnlineService
    from app.service.privacy import PrivacyService
    from app.reports.jobs import ReportJobs
    from app.service.tables import TableService
    from app.store.db import make_engine, sqlite_path

    # Every part is made here, once, and handed what it uses; code reaches them through
    # app.extensions.services() (the realtime part adds its notifier and presence below).
    # Under eventlet, SQLite's WAL is checkpointed in a real thread, not inside a move's
    # commit, where it held every table's acknowledgements (app/store/checkpoint.py).
    green = app.config["ASYNC_MODE"] == "eventlet"
    db = make_engine(app.config["DATABASE_URL"], autocheckpoint=not green)
    limits = Limiter(app.config["SOCKETIO_MESSAGE_QUEUE"], namespace=app.config["REDIS_NAMESPACE"])
    accounts = Accounts(db, limiter=limits, settings=app.config,
                        offload=Offload(app.config["ASYNC_MODE"], app.config["HASH_CONCURRENCY"]))
    tables = TableService(db, bot_delay_scale=app.config["BOT_DELAY_SCALE"], lesson_minute=app.config["LESSON_MINUTE"],
                          deal_seed=app.config.get("DEAL_SEED"))
    classes = ClassService(db, tables, tables_max=app.config["CLASS_TABLES_MAX"],
                           shared=bool(app.config["SOCKETIO_MESSAGE_QUEUE"]))
    demos = DemoService(tables, app.config, limits)
    online = OnlineService(tables, demos, app.config, limits)
    privacy = PrivacyService(tables, classes, limits, app.config)
    # A job's work runs as Socket.IO's background tasks do (a green thread under eventlet).
    reports = ReportJobs(spawn=socketio.start_background_task, running_max=app.config["REPORT_JOBS_MAX"])
    parts = Services(
        db=db, limits=limits, accounts=accounts, tables=tables, classes=classes, guard=Guard(limits, app.config),
        banks=BankService(db), demos=demos, online=online, privacy=privacy, reports=reports,
        # Periodic clean-ups the timer loop runs (app/realtime/scheduler.py); each decides how often.
        housekeeping=[demos.cleanup_due, privacy.cleanup_due, online.expire_due, reports.cleanup_due])
    if green and sqlite_path(db):
        from app.store.checkpoint import Checkpointer
        parts.housekeeping.append(Checkpointer(sqlite_path(db), offload=Offload(app.config["ASYNC_MODE"], 1),
                                               spawn=socketio.start_background_task).due)
    app.extensions["services"] = parts

    from app.api import bp as api_bp
    from app.facilitator import bp as facilitator_bp
    from app.player import bp as player_bp

    app.register_blueprint(player_bp)
    app.register_blueprint(facilitator_bp, url_prefix="/facilitator")
    app.register_blueprint(api_bp, url_prefix="/api")
    from app import i18n
    i18n.init_app(app)  # Flask-Babel, the pages' language, /i18n/<lang>.js

    from app.wire import packet_json, queue_json
    queue = app.config["SOCKETIO_MESSAGE_QUEUE"]
    # This deployment's own channel: a logout's "end facilitator 1's sockets" must not
    # reach another deployment's facilitator 1 on the same Redis (app/config.py).
    channel = app.config["REDIS_NAMESPACE"] + ":socketio"
    if queue and queue.startswith(("redis://", "rediss://")):  # one publish per change (app/realtime/fanout.py)
        from app.realtime.fanout import BatchingRedisManager
        manager = {"client_manager": BatchingRedisManager(queue, channel=channel)}
    elif queue:  # another kind of queue: Flask-SocketIO makes the manager, on this channel
        manager = {"channel": channel}
    else:  # none; said outright, since Flask-SocketIO would keep an earlier app's manager (a test's)
        manager = {"client_manager": None}
    socketio.init_app(app, async_mode=app.config["ASYNC_MODE"], json=packet_json, message_queue=queue,
                      max_http_buffer_size=64 * 1024, ping_interval=10, ping_timeout=20, **manager)
    from app.edge import outage
    if app.config["SOCKETIO_MESSAGE_QUEUE"]:  # pre-encoded payloads cross the queue intact
        socketio.server.manager.json = queue_json
        parts.queue_health = outage.QueueHealth(socketio.server.manager)
    outage.register(app)  # a database or queue outage answers 503, not 500
    if app.config.get("PROXY_COUNT"):
        # Wrapped outside Socket.IO's middleware so the sockets' requests see the visitor's
        # address too (ProxyFix rewrites the environ both share). See deploy/README.md.
        from werkzeug.middleware.proxy_fix import ProxyFix
        hops = int(app.config["PROXY_COUNT"])
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops, x_port=hops)
    from app import realtime
    realtime.register(app, socketio)

    from app.cli import register as register_cli
    register_cli(app)

    @app.errorhandler(400)
    @app.errorhandler(404)
    @app.errorhandler(405)
    @app.errorhandler(413)  # a form too big to read (werkzeug's limit): on /api too, a JSON answer
    def _error_page(error):
        from app.engines.text import N_  # marked for the catalogs; error.html translates them
        titles = {400: N_("Something was wrong with that request"), 404: N_("Not found"), 405: N_("Not allowed"),
                  413: N_("That was too much to send")}
        message = getattr(error, "description", "") if error.code in (400, 413) else (
            N_("There is nothing at this address. Check the code on the board.") if error.code == 404
            else N_("That page cannot be used this way."))
        if request.path.startswith("/api/"):
            return {"ok": False, "error": {"code": "bad_request" if error.code != 404 else "unknown_table",
                                           "message": message}}, error.code
        return render_template("error.html", title=titles[error.code], message=message), error.code

    @app.before_request
    def _refuse_nul():
        # PostgreSQL refuses NUL in text: turn it away as bad input at the door, everywhere.
        from flask import abort
        from app.edge.security import has_nul

        if has_nul([request.path, list(request.args.items(multi=True)),
                    list(request.form.items(multi=True)) if request.mimetype != "application/json" else []]):
            abort(400, "The request contains a NUL character.")

    @app.after_request
    def _security_headers(response):
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response

    return app
