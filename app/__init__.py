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
    from app.wire import http_json_provider
    app.json = http_json_provider(app)

    from app import engines
    for module_name in app.config.get("GAME_MODULES", ()):  # games outside app/engines (e.g. tests')
        engines.register(module_name)

    from app.accounts import Accounts
    from app.classes import ClassService
    from app.db import make_engine
    from app.tables import TableService

    db = make_engine(app.config["DATABASE_URL"])
    app.extensions["db"] = db
    from app.limits import Limiter
    app.extensions["limits"] = Limiter(app.config["SOCKETIO_MESSAGE_QUEUE"])
    from app.offload import Offload
    app.extensions["accounts"] = Accounts(db, limiter=app.extensions["limits"], settings=app.config,
                                          offload=Offload(app.config["ASYNC_MODE"], app.config["HASH_CONCURRENCY"]))
    tables = TableService(db, bot_delay_scale=app.config["BOT_DELAY_SCALE"])
    app.extensions["tables"] = tables
    app.extensions["classes"] = ClassService(db, tables, tables_max=app.config["CLASS_TABLES_MAX"])
    from app.guard import Guard
    app.extensions["guard"] = Guard(app.extensions["limits"], app.config)
    from app.banks import BankService
    app.extensions["banks"] = BankService(db)
    from app.demo import DemoService
    app.extensions["demos"] = DemoService(tables, app.config)
    from app.online import OnlineService
    app.extensions["online"] = OnlineService(tables, app.extensions["demos"], app.config,
                                             app.extensions["limits"])
    from app.privacy import PrivacyService
    app.extensions["privacy"] = PrivacyService(tables, app.extensions["classes"], app.extensions["limits"], app.config)
    # Periodic clean-ups the timer loop runs (app/realtime.py Scheduler); each decides how often.
    app.extensions["housekeeping"] = [app.extensions["demos"].cleanup_due, app.extensions["privacy"].cleanup_due,
                                      app.extensions["online"].expire_due]

    from app.api import bp as api_bp
    from app.facilitator import bp as facilitator_bp
    from app.player import bp as player_bp

    app.register_blueprint(player_bp)
    app.register_blueprint(facilitator_bp, url_prefix="/facilitator")
    app.register_blueprint(api_bp, url_prefix="/api")

    from app.wire import packet_json, queue_json
    queue = app.config["SOCKETIO_MESSAGE_QUEUE"]
    batching = {}
    if queue and queue.startswith(("redis://", "rediss://")):  # one publish per change (app/fanout.py)
        from app.fanout import BatchingRedisManager
        batching = {"client_manager": BatchingRedisManager(queue, channel="flask-socketio")}
    socketio.init_app(app, async_mode=app.config["ASYNC_MODE"], json=packet_json, message_queue=queue,
                      max_http_buffer_size=64 * 1024, ping_interval=10, ping_timeout=20, **batching)
    from app import outage
    if app.config["SOCKETIO_MESSAGE_QUEUE"]:  # pre-encoded payloads cross the queue intact
        socketio.server.manager.json = queue_json
        app.extensions["queue_health"] = outage.QueueHealth(socketio.server.manager)
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
        titles = {400: "Something was wrong with that request", 404: "Not found", 405: "Not allowed",
                  413: "That was too much to send"}
        message = getattr(error, "description", "") if error.code in (400, 413) else (
            "There is nothing at this address. Check the code on the board." if error.code == 404
            else "That page cannot be used this way.")
        if request.path.startswith("/api/"):
            return {"ok": False, "error": {"code": "bad_request" if error.code != 404 else "unknown_table",
                                           "message": message}}, error.code
        return render_template("error.html", title=titles[error.code], message=message), error.code

    @app.before_request
    def _refuse_nul():
        # PostgreSQL refuses NUL in text: turn it away as bad input at the door, everywhere.
        from flask import abort
        from app.security import has_nul

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
