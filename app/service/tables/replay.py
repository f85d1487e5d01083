"""A table from its record: the game rebuilt from the seed and the event log, the
JSON API's summary, and the full log for the reports."""
from __future__ import annotations

from app import engines
from app.errors import ServiceError
from app.service.tables.common import actor_of, start_options
from app.service.tables.views import Views
from app.store.tables import TableStore


class Records:
    def __init__(self, store: TableStore, views: Views):
        self.store = store
        self.views = views  # whose `connected` says whether a seat is connected now

    def replay(self, code: str) -> dict | None:
        """Rebuild the engine state from the seed and the event log alone, under the
        engine and data versions the table was created with."""
        table = self.store.get(code)
        spec, engine = engines.spec(table.game), engines.get(table.game)
        if table.engine_version != spec.version or dict(table.data_versions or {}) != dict(spec.data_versions):
            raise ServiceError("bad_request",
                               f"Table {code} was played with {table.engine_version} "
                               f"(data {table.data_versions or 'none'}); this server runs {spec.version} "
                               f"(data {spec.data_versions or 'none'}), so it cannot be replayed exactly.")
        state = None
        for ev in self.store.events(code):
            kind = ev.action.get("type")
            if ev.kind == "table":
                if kind == "start":
                    options = start_options(spec, table.options, ev.action.get("computers", []))
                    state = engine.new(options, ev.action["seats"], table.seed)
                elif kind == "end" and state is not None and hasattr(engine, "finish"):
                    cause = ev.action.get("cause")  # the lesson clock's end names its cause
                    state, _ = engine.finish(state, cause) if cause else engine.finish(state)
            elif state is not None:
                state, _ = engine.apply(state, actor_of(ev.actor), ev.action)
        return state

    def summary(self, code: str) -> dict:
        """The JSON API's description of a table."""
        table = self.store.get(code)
        engine = engines.get(table.game)
        return {"code": table.code, "game": table.game, "status": table.status, "version": table.version,
                "locked": table.locked, "paused": table.paused, "options": table.options,
                "engine_version": table.engine_version, "data_versions": table.data_versions,
                "seats": [{"seat": x.seat_index, "name": x.name, "computer": x.computer,
                           "connected": self.views.connected(x.token_hash)} for x in self.store.seats_of(code)],
                "result": engine.result(table.state) if table.state is not None else None,
                "created_at": table.created_at.isoformat()}

    def log_json(self, code: str) -> dict:
        """Full game log for the facilitator (reports): events, rulings applied, notes."""
        table = self.store.get(code)
        events = self.store.events(code)
        return {"code": table.code, "game": table.game, "engine_version": table.engine_version,
                "data_versions": table.data_versions, "seed": table.seed, "options": table.options,
                "events": [{"version": e.version, "kind": e.kind, "actor": e.actor, "action": e.action,
                            "log": e.log, "at": e.at.isoformat()} for e in events],
                "rulings": [dict(entry, version=e.version) for e in events for entry in e.log
                            if entry.get("t") == "ruling"],
                "notes": [{"version": n.version, "game_version": n.game_version, "author": n.author,
                           "role": n.role, "seat": n.seat, "audience": n.audience, "hidden": n.hidden,
                           "approved": n.approved, "text": n.text, "at": n.at.isoformat()}
                          for n in self.store.notes(code)],
                "texts": [dict(item, ref=ref) for ref, item in (table.texts or {}).items()]}
