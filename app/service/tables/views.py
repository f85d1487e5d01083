"""What each viewer of a table is sent: the board, the teacher, and every seat.

A payload is the table's meta (players, status, deadlines...), the viewer's view
of the game (`engine.view`), its actions, its visible log, and for the teacher the
moderation buttons and the student texts; student text the viewer may not read is
withheld or redacted (app/service/student_text.py). After a change only the viewers
whose view changed are sent one (`changed`), and the board's and the teacher's views
are not built while nobody watches them (`watched`).
"""
from __future__ import annotations

import functools
from typing import Callable

from app import i18n
from app.engines.contract import entry_visible
from app.errors import ServiceError
from app.service import student_text
from app.service.tables import lesson, timers
from app.service.tables.common import Live, Outcome, again_offered, guided_demo, is_int, people
from app.service.tables.live import LiveTables
from app.wire import Built, dumps_compact, encoded_parts, json_bytes
from app.engines.text import N_


class Views:
    def __init__(self, cache: LiveTables, connected: Callable[[str], bool] | None = None):
        self.cache = cache
        # Whether a seat (by token hash) has a live connection: app/realtime/presence.py supplies it.
        self.connected: Callable[[str], bool] = connected or (lambda _token_hash: False)
        # Whether a table's "board" or "facilitator" view can reach anyone (code, viewer):
        # app/realtime supplies it. Until then, and with a message queue, always.
        self.watched: Callable[[str, str], bool] = lambda _code, _viewer: True

    def _meta(self, live: Live) -> dict:
        spec = live.spec
        hidden = {}  # seat row id -> whether the teacher hid that student's name (`name_hidden` when so)
        for ref, item in live.texts.items():
            if student_text.is_name(item) and ref[len(student_text.NAME):].isascii() \
                    and ref[len(student_text.NAME):].isdigit():
                hidden[int(ref[len(student_text.NAME):])] = item["hidden"]
        players = []
        for x in live.seats:
            player = {"seat": x.index, "name": x.name, "connected": self.connected(x.token_hash), "computer": x.computer}
            if hidden.get(x.id):
                player["name_hidden"] = True
            players.append(player)
        return {"code": live.code, "game": live.game, "title": spec.title, "version": live.version,
                "status": live.status, "started": live.state is not None, "locked": live.locked,
                "paused": live.paused, "phone_notes": live.phone_notes, "lesson_minutes": live.lesson_minutes,
                "players": players,
                "min_seats": live.seat_range[0], "max_seats": live.seat_range[1], "start_label": spec.start_label,
                "result": live.engine.result(live.state) if live.state is not None else None,
                "engine_version": live.engine_version, "deadlines": timers.deadlines(live.timers),
                "ui": self._ui(spec.ui),
                **self._after_game(live)}

    @staticmethod
    @functools.cache
    def _ui(ui) -> dict:
        """Where the game's browser modules are (the same for every table of the game:
        one dict, shared; read it, never change it)."""
        return {part: (f"/static/{path}" if path else None) for part, path in vars(ui).items()}

    @staticmethod
    def _after_game(live: Live) -> dict:
        """What comes after a played game (app/service/tables/rematch.py), for its end screens:
        `again` {offered, ready: [seats that asked to play again], players: [the seats asked],
        next: the rematch's table code once it dealt}; `guided` for the guided demo, which
        ends with an invitation to a real game instead."""
        if live.status != "ended" or live.state is None:
            return {}
        if guided_demo(live):
            return {"guided": True}
        return {"again": {"offered": again_offered(live), "ready": sorted(live.again),
                          "players": [x.index for x in people(live)], "next": live.successor}}

    def viewer_parts(self, live: Live, viewer, built: dict | None = None) -> tuple[dict, list, list]:
        """(view, actions, moderation) for one viewer now (`built`: its game view, if
        `built_views` has made it already)."""
        engine, spec = live.engine, live.spec
        if live.state is None:
            view = {"public": {}, "private": {},
                    "prompt": {"waiting_for": [], "text": N_("Waiting for players to join.")}}
            actions = []
            if is_int(viewer) and live.status == "lobby" and live.seats and live.seats[0].index == viewer \
                    and len(live.seats) >= live.seat_range[0]:
                actions = [{"type": "start", "label": spec.start_label}]
        else:
            cached = live.board_view
            view = built if built is not None else \
                cached[1] if viewer == "board" and cached is not None and cached[0] is live.state \
                else engine.view(live.state, viewer)
            if "prompt" not in view:
                view["prompt"] = {"waiting_for": [], "text": ""}
            names = self._hidden_names(live, viewer)
            if live.texts:  # (no student text: nothing to withhold or rename)
                view = student_text.redact(view, student_text.withheld(live.texts, viewer), names)
            actions = [] if live.status != "playing" or live.paused else live.actions(viewer)
            if names:  # "Attack Ana": the label only (the action itself goes back as listed)
                actions = [dict(a, label=student_text.redact(a["label"], [], names))
                           if isinstance(a.get("label"), str) else a for a in actions]
        moderation = self._moderation(live) if viewer == "facilitator" else None
        return view, actions, moderation

    @staticmethod
    def _moderation(live: Live) -> list:
        """The platform's moderation actions, labelled (the game's own are in `actions`)."""
        if live.status == "ended":  # the teacher's Play again deals the rematch at once (rematch.py)
            return [{"type": "again", "label": "Play again"}] if again_offered(live) else []
        out = [{"type": "unlock", "label": "Unlock the table"} if live.locked
               else {"type": "lock", "label": "Lock the table (no one else can join)"}]
        if live.status == "lobby" and len(live.seats) >= live.seat_range[0]:
            out.append({"type": "start", "label": live.spec.start_label})
        if live.status == "playing":
            out.append({"type": "resume", "label": "Resume the game"} if live.paused
                       else {"type": "pause", "label": "Pause the game"})
            if lesson.KEY in live.timers:
                out.append({"type": "lesson_more", "label": f"+{lesson.MORE_MINUTES} min on the lesson clock"})
        out.append({"type": "end", "label": "End the game" if live.status == "playing" else "Close the table"})
        out += [{"type": "kick", "seat": x.index, "label": f"Remove {x.name}"} for x in live.seats if not x.computer]
        return out

    @staticmethod
    def _texts_for_teacher(live: Live) -> list[dict]:
        """The table's student texts for the teacher's Hide and Approve buttons, newest first
        (a hidden name has its Show button on the seat list instead)."""
        names = {x.index: x.name for x in live.seats}
        return [dict(item, name=names.get(item["seat"], ""))
                for item in student_text.newest_first(student_text.typed(live.texts))]

    @staticmethod
    def _hidden_names(live: Live, viewer) -> dict[str, str]:
        """The names the teacher hid that this viewer may not read, each with its "Player N"."""
        if not live.texts or viewer == "facilitator":
            return {}
        return student_text.hidden_names(live.texts, {x.id: x.index for x in live.seats}, viewer,
                                         [x.name for x in live.seats])

    def redact_names(self, code: str, viewer, value):
        """`value` (notes, say) as `viewer` may read it: the hidden names as "Player N"."""
        names = self._hidden_names(self.cache.live(code), viewer)
        return student_text.redact(value, [], names) if names else value

    @staticmethod
    def viewers(live: Live) -> list:
        """Everyone who watches the table: the board, the teacher, each seated person."""
        return ["board", "facilitator"] + [x.index for x in live.seats if not x.computer and not x.kicked]

    @staticmethod
    def _key(live: Live, viewer):
        if is_int(viewer):
            return ("seat", live.seat(viewer).token_hash)
        return viewer

    @staticmethod
    def _entries(live: Live, viewer, since: int | None) -> list:
        """The log entries `viewer` may see: all the live copy holds (`since` None), or
        those after version `since`, walked from the newest (a change looks at its own)."""
        if since is None:
            return [e for e in live.log if entry_visible(e, viewer)]
        entries = []
        for e in reversed(live.log):
            if e["v"] <= since:
                break
            if entry_visible(e, viewer):
                entries.append(e)
        entries.reverse()
        return entries

    def _payload(self, live: Live, viewer, meta: dict, parts, entries: list, *, since: int | None,
                 encoded: list | None = None, head: bytes | None = None) -> dict:
        """`entries`: the log entries it carries (`_entries`: after `since`, or all when None);
        `encoded`: the parts as JSON already (`changed` digests them), spliced into the
        payload's text (app/wire.py `Built`) when they go out as they are (not translated);
        `head`: the meta as JSON, encoded once for every viewer of the change."""
        view, actions, moderation = parts
        names = self._hidden_names(live, viewer)
        if live.texts:
            entries = student_text.redact(entries, student_text.withheld(live.texts, viewer), names)
        if names:  # the seat list and the result name the players too
            meta = dict(meta, players=student_text.redact(meta["players"], [], names),
                        result=student_text.redact(meta["result"], [], names))
            head = None
        own = {"seat": viewer if is_int(viewer) else None, "view": view, "actions": actions,
               "log": entries, "log_reset": since is None}
        if moderation is not None:
            own["moderation"] = moderation
            own["texts"] = self._texts_for_teacher(live)
        lang = self.language(live, viewer)
        if encoded is not None and lang == i18n.DEFAULT:
            spliced = {"view": encoded[0], "actions": encoded[1]}
            if head is not None:
                return Built.sharing(head, meta, own, spliced)
            return Built.splicing(dict(meta, **own), spliced)
        return i18n.localize_payload(dict(meta, **own), lang, live.game)

    @staticmethod
    def language(live: Live, viewer) -> str:
        """What the viewer reads: a seat its phone's language, the board the table's; the
        teacher's page English (app/i18n)."""
        if is_int(viewer):
            seat = live.seat(viewer)
            return (seat.language if seat is not None else "") or i18n.DEFAULT
        return live.language if viewer == "board" else i18n.DEFAULT

    def unseen(self, live: Live, viewer) -> bool:
        """Whether the change need not build this view: a table's board or teacher's view
        that no page can receive (a class's tables mostly have neither open), and that no
        move will be chosen from. The board never moves. A teacher's game move (the class
        overview's queue sends them without the table's page) is checked against when the
        teacher's view last changed (`Moves.seen_current`), which an unbuilt view cannot
        tell: so it is built while the game lists the teacher any action, and otherwise
        counts as changed (a move from an older view of it is stale, never wrongly current)."""
        if is_int(viewer) or self.watched(live.code, viewer):
            return False
        return viewer == "board" or live.status != "playing" or not live.actions(viewer)

    @staticmethod
    def built_views(live: Live, viewers: list) -> dict:
        """The game's views of these viewers, built together when the game can (its
        `views`: a public part built once for all), else none here (each is built alone)."""
        engine = live.engine
        if live.state is None or len(viewers) < 2 or not hasattr(engine, "views"):
            return {}
        cached = live.board_view  # the board's, made for the timers, is already there
        if cached is not None and cached[0] is live.state:
            viewers = [v for v in viewers if v != "board"]
        return engine.views(live.state, viewers)

    def changed(self, live: Live, *, force: tuple = ()) -> list:
        """Every viewer's payload after a change, skipping viewers whose view (and visible
        log) did not change. `force` lists viewers to send in full regardless."""
        meta = self._meta(live)
        # What every viewer shares, encoded once for all the digests below (without the
        # version, which changes every time) and, with it, for every payload's text.
        shared = json_bytes({k: v for k, v in meta.items() if k != "version"})
        head = b'{"version":' + str(live.version).encode() + (b"," + shared[1:] if len(shared) > 2 else b"}")
        out = []
        seen_by = []
        for viewer in self.viewers(live):
            key = self._key(live, viewer)
            if self.unseen(live, viewer):
                # Not built. A page that opens gets its view whole (`view_for`); what was last
                # sent is forgotten, so the next change reaches it whatever it shows.
                live.sent.pop(key, None)
                live.changed_at[viewer] = live.version
                continue
            seen_by.append((viewer, key))
        built = self.built_views(live, [viewer for viewer, _key in seen_by])
        memo: dict = {}  # what the viewers' views share, encoded once (app/wire.py encoded_parts)
        for viewer, key in seen_by:
            parts = self.viewer_parts(live, viewer, built.get(viewer))
            last = live.sent.get(key)
            # A digest, not the objects: keeping every viewer's last view alive cost 12 MB
            # per 1,000 phones (bench/classroom_load.py); the text is cheap with orjson.
            # Python's own hash of the texts (64-bit SipHash, keyed per process, so no one
            # can aim for a collision) at a fifth of blake2b's cost: two different views
            # agree by chance once in 10^19 changes.
            encoded = encoded_parts(parts, memo)  # (view, actions, moderation), encoded once: digested, then spliced
            seen = hash((shared, *encoded) if encoded is not None else (shared, dumps_compact(parts).encode()))
            since = last[0] if last is not None else live.version - 1
            if viewer in force:
                since = None
            entries = self._entries(live, viewer, since)
            if since is not None and last is not None and last[1] == seen and not entries:
                continue
            live.sent[key] = (live.version, seen)
            live.changed_at[viewer] = live.version
            out.append((key, self._payload(live, viewer, meta, parts, entries, since=since, encoded=encoded,
                                           head=head)))
        return out

    def view_for(self, code: str, viewer) -> dict:
        """One viewer's full payload now (on join, resume, watch or a stale move)."""
        live = self.cache.current(code)
        with live.lock:
            if is_int(viewer) and live.seat(viewer) is None:
                raise ServiceError("not_joined", N_("That seat is not at this table."))
            meta = self._meta(live)
            parts = self.viewer_parts(live, viewer)
            return self._payload(live, viewer, meta, parts, self._entries(live, viewer, None), since=None)

    def refresh(self, code: str) -> Outcome:
        """The payloads after a change made elsewhere (a join, a class move, a
        connection coming or going): every viewer whose view changed."""
        live = self.cache.current(code)
        with live.lock:
            return Outcome(code=code, version=live.version, views=self.changed(live), class_code=live.class_code,
                           next_due=timers.next_due(live.timers))
