"""The store: the database and its schema.

    models.py      SQLModel tables (facilitators, tables, seats, events, notes, classes, banks)
    db.py          the engine (SQLite under instance/ or PostgreSQL), migrated at start
    checkpoint.py  SQLite's WAL checkpoints in a real thread, off the event loop (the real server)
    migrations/    Alembic revisions, configured in code (no alembic.ini)

It imports nothing of the services or of realtime (tests/test_structure.py checks).
"""
