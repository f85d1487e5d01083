"""Extension objects created once and bound to the app in create_app()."""
from flask_socketio import SocketIO

socketio = SocketIO()
