"""The services: what the platform does, with no sockets and no HTTP.

    tables.py        the table service: create, join, act, moderate, notes, timers, views, replay
    classes.py       class sessions: one code, many tables; the class overview
    seating.py       how a class's students are spread over tables (pure)
    hotseat.py       one device for every seat (its pages: player/hotseat.py, facilitator/hotseat.py)
    demo.py          tables anyone may open from the home page (player/demo.py, facilitator/demo.py)
    online.py        online matches: invitation and resume links, expiry (player/online.py)
    privacy.py       names removed after the retention period; deleting a table or class
    student_text.py  text students type: the name filter, hiding, approval, "Player N"
    banks.py         teachers' uploaded content (question banks)
    accounts.py      facilitator accounts, login brakes, sessions, API tokens

A service is handed what it uses by create_app() (app/__init__.py) and is reached
through `app.extensions.services()`. It calls the pure engines (app/engines) and
the store (app/store), raises `app.errors.ServiceError`, and returns outcomes for
the notifier (app/realtime) to emit; it imports nothing of realtime/, player/,
facilitator/ or api/ (tests/test_structure.py checks).
"""
