"""The teacher's say over a table (lock, pause, remove a player, end, start, five more
minutes on the lesson clock, hide or approve student text, play again once the game has
ended, the game's own facilitator actions), and the system's brakes on tables without a
teacher (app/service/demo.py, app/service/online.py). Each is one live change through
the move path's `write` (play again: app/service/tables/rematch.py).
"""
from __future__ import annotations

import time

from app.engines.contract import strip_label
from app.errors import ServiceError
from app.service import student_text
from app.service.tables import lesson, timers
from app.service.tables.common import (NOTES_MODERATION, TEXT_MODERATION, VERSION_FREE_MODERATION, Live, Lost,
                                       Outcome, is_int)
from app.service.tables.live import LiveTables
from app.service.tables.moves import Moves
from app.service.tables.rematch import Rematch
from app.service.tables.views import Views
from app.engines.text import NP_, N_


class Moderation:
    def __init__(self, cache: LiveTables, moves: Moves, views: Views, rematch: Rematch):
        self.cache = cache
        self.moves = moves
        self.views = views
        self.rematch = rematch

    def close_unstarted(self, code: str, text: str) -> Outcome | None:
        """Close a table whose game never started (an online match nobody accepted
        within its deadline): a system table event, so the table says why it ended."""
        def change(live: Live) -> Outcome | None:
            if live.status != "lobby":
                return None
            return self.moves.write(live, actor="system", kind="table", action={"type": "expire"},
                                    log=[{"t": "expired", "text": text}], status="ended")
        return self.cache.with_live(code, change)

    def moderate(self, facilitator_id: int, code: str, version, action, *, scope: str = "table") -> Outcome:
        """The facilitator's change: the platform's (lock, pause, remove a player, end,
        start) or, with scope "game", one of the game's own facilitator actions."""
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise ServiceError("bad_request", N_("A moderation action is an object with a type."))
        if not is_int(version):
            raise ServiceError("bad_request", N_("A moderation action needs the table version."))
        if scope not in ("table", "game"):
            raise ServiceError("bad_request", N_("scope is 'table' (the platform's moderation) or 'game'."))
        action = strip_label(action)

        def change(live: Live) -> Outcome:
            if live.facilitator_id != facilitator_id:  # before anything that reads the table
                raise ServiceError("forbidden", N_("This table belongs to another facilitator."))
            self.moves.catch_up(live, version)
            if live.status == "ended" and not (scope == "table"
                                               and action["type"] in TEXT_MODERATION | NOTES_MODERATION | {"again"}):
                raise ServiceError("game_over", N_("This game has ended."))
            if scope == "game":
                if live.status != "playing":
                    raise ServiceError("illegal", N_("The game has not started yet."))
                if not self.moves.seen_current(live, "facilitator", version) and not (
                        action["type"] in live.spec.order_free
                        and action in [strip_label(a) for a in live.actions("facilitator")]):
                    raise ServiceError("stale", N_("The table changed meanwhile. Here it is now."))
                return self.moves.game_move(live, "facilitator", action, actor_label="facilitator")
            # Pausing, locking and ending mean the same whatever the teacher's screen showed,
            # so a move that got in first (auto-play runs several a second) must not refuse
            # them; removing a player or starting depends on the seats seen, so it must be current.
            if version != live.version and action["type"] not in VERSION_FREE_MODERATION:
                raise ServiceError("stale", N_("The table changed meanwhile. Here it is now."))
            return self._platform_moderation(live, action)

        return self.cache.with_live(code, change)

    def _platform_moderation(self, live: Live, action: dict) -> Outcome:
        kind = action["type"]
        say = lambda t, text: [{"t": t, "text": text}]  # noqa: E731
        if kind in ("lock", "unlock"):
            locked = kind == "lock"
            return self.moves.write(live, actor="facilitator", kind="table", action={"type": kind},
                                    log=say(kind, N_("The teacher locked the table.") if locked
                                            else N_("The teacher unlocked the table.")), fields={"locked": locked})
        if kind in ("pause", "resume"):
            if live.status != "playing":
                raise ServiceError("illegal", N_("Only a game in progress can be paused."))
            paused = kind == "pause"
            if paused == live.paused:
                raise ServiceError("illegal", N_("The game is already paused.") if paused else N_("The game is not paused."))
            return self._set_paused(live, paused, actor="facilitator",
                                    text=N_("The teacher paused the game.") if paused else N_("The game goes on."))
        if kind in NOTES_MODERATION:
            return self._set_phone_notes(live, kind == "notes_on")
        if kind == "again":  # the teacher's Play again: the rematch deals at once (rematch.py)
            return self.rematch.deal(live, by="facilitator")
        if kind == "kick":
            return self._kick(live, action.get("seat"))
        if kind in TEXT_MODERATION:
            return self._text_moderation(live, kind, action.get("ref"))
        if kind == "end":
            if live.status == "lobby":
                return self.moves.write(live, actor="facilitator", kind="table", action={"type": "end"},
                                        log=say("end", N_("The teacher closed the table.")), status="ended")
            return self._end(live, actor="facilitator", text=N_("The teacher ended the game."))
        if kind == "lesson_more":
            return self._lesson_more(live)
        if kind == "start" and live.status == "lobby":
            if len(live.seats) < live.seat_range[0]:
                raise ServiceError("illegal", N_("Not enough players have joined yet."))
            return self.moves.start(live, actor="facilitator")
        raise ServiceError("illegal", f"Unknown moderation action {kind!r}.")

    def _set_phone_notes(self, live: Live, on: bool) -> Outcome:
        """Let the players' phones write playtest notes, or stop them: their note box shows or
        hides with the new view (`phone_notes` in its meta)."""
        if live.phone_notes == on:
            raise ServiceError("illegal", N_("Playtest notes from phones are already on.") if on
                               else N_("Playtest notes from phones are already off."))
        text = N_("The teacher opened playtest notes on the phones.") if on \
            else N_("The teacher closed playtest notes on the phones.")
        return self.moves.write(live, actor="facilitator", kind="table",
                                action={"type": "notes_on" if on else "notes_off"},
                                log=[{"t": "notes", "text": text}], fields={"phone_notes": on})

    def _set_paused(self, live: Live, paused: bool, *, actor: str, text: str) -> Outcome:
        """Pause or resume play: every timer stops, keeping the time it had left (a timed
        match's clock does not run out while paused), and runs on from there."""
        live.timers = timers.paused_timers(live.timers, paused, time.time())
        kind = "pause" if paused else "resume"
        return self.moves.write(live, actor=actor, kind="table", action={"type": kind},
                                log=[{"t": kind, "text": text}], fields={"paused": paused})

    def _end(self, live: Live, *, actor: str, text: str) -> Outcome:
        """End a game in progress (the engine's `finish` scores it, if it has one)."""
        return self.moves.finish(live, actor=actor, text=text)

    def _lesson_more(self, live: Live) -> Outcome:
        """The teacher's "+5 min": the lesson clock's due moves five minutes later (or, while
        the table is paused, it keeps five minutes more), on every screen with the new view."""
        if live.status != "playing":
            raise ServiceError("illegal", N_("The lesson clock starts at the deal: add time once the game is on."))
        clock = live.timers.get(lesson.KEY)
        if clock is None or not lesson.is_lesson(clock):
            raise ServiceError("illegal", N_("This table has no lesson clock."))
        seconds = lesson.MORE_MINUTES * self.moves.lesson_minute
        text = NP_("The teacher added {n} minutes to the lesson.", "The teacher added {n} minutes to the lesson.",
                   lesson.MORE_MINUTES).format(n=lesson.MORE_MINUTES)
        return self.moves.write(live, actor="facilitator", kind="table",
                                action={"type": "lesson_more", "seconds": seconds}, log=[{"t": "lesson", "text": text}],
                                timers_set={lesson.KEY: lesson.moved(clock, seconds)})

    # ------------------------------------------------- tables without a teacher
    # The brakes of app/service/demo.py: nobody stands behind these tables to pause or end them.
    def pause_teacherless(self, code: str, paused: bool, text: str) -> Outcome | None:
        """Pause (or resume) a game in progress at a table without a facilitator, as the
        system: a table event, as the teacher's pause is. None if there is nothing to change."""
        def change(live: Live) -> Outcome | None:
            if live.facilitator_id is not None or live.status != "playing" or live.paused == paused:
                return self._nothing_to_do(live)
            return self._set_paused(live, paused, actor="system", text=text)
        return self.cache.with_live(code, change)

    def end_teacherless(self, code: str, text: str, cause: str = "time_limit") -> Outcome | None:
        """End a game in progress at a table without a facilitator, as the system: the
        engine's `finish(state, cause)` (the platform's time limit: the game says it ran too
        long, not that a teacher ended it) and the table event names the cause for replay.
        `text` is the log line of a game without `finish`."""
        def change(live: Live) -> Outcome | None:
            if live.facilitator_id is not None or live.status != "playing":
                return self._nothing_to_do(live)
            return self.moves.finish(live, actor="system", text=text, cause=cause)
        return self.cache.with_live(code, change)

    def _nothing_to_do(self, live: Live) -> None:
        """Nothing to change, as this copy knows the table: unless it is the database's
        (another process may have paused or ended it), read it again and look once more."""
        if not live.reloaded and not self.cache.in_step(live):
            raise Lost()
        return None

    def _kick(self, live: Live, seat_index) -> Outcome:
        target = live.seat(seat_index) if is_int(seat_index) else None
        if target is None or target.computer:
            raise ServiceError("bad_request", N_("There is no player in that seat."))
        updates = {target.id: {"kicked": True}}
        if live.status == "lobby":
            # Seats stay contiguous for the engine: everyone after moves up one.
            updates[target.id]["seat_index"] = None
            for other in live.seats:
                if other is not target and other.index > seat_index:
                    updates[other.id] = {"seat_index": other.index - 1}
            text = f"{target.name} was removed by the teacher."
        else:
            updates[target.id]["computer"] = True
            text = f"{target.name} was removed by the teacher; the computer plays that seat now."
        self.cache.forget_seat(target.token_hash)
        return self.moves.write(live, actor="facilitator", kind="table", action={"type": "kick", "seat": seat_index},
                                log=[{"t": "kick", "seat": seat_index, "text": text}], seat_updates=updates)

    def _text_moderation(self, live: Live, kind: str, ref) -> Outcome:
        """Hide a student's text from the board and the phones, show it again, or approve
        it: a table event (replay of the game is untouched; the table's `texts`, or the
        note, records the teacher's choice in the same transaction). `ref` names a text
        of a game action ("e12", as the teacher's view lists them), a note ("n7") or the
        name of the student in a seat ("s2": hidden or shown, never waiting)."""
        change = {"hide_text": {"hidden": True}, "show_text": {"hidden": False},
                  "approve_text": {"approved": True}}[kind]
        sentence = {"hide_text": N_("The teacher hid a student's text."),
                    "show_text": N_("The teacher showed a student's text again."),
                    "approve_text": N_("The teacher approved a student's text.")}[kind]
        action, log = {"type": kind, "ref": ref}, [{"t": "moderation", "text": sentence}]
        everyone = tuple(self.views.viewers(live))  # what they were sent must be replaced, log included
        if isinstance(ref, str) and ref[:1] == "s":  # a student's name, by seat
            digits = ref[1:]
            seat = live.seat(int(digits)) if digits.isascii() and digits.isdigit() and len(digits) < 6 else None
            if seat is None or kind == "approve_text":
                raise ServiceError("bad_request", N_("There is no student in that seat whose name could be hidden.")
                                   if seat is None else N_("A name is not waiting for approval: hide or show it."))
            texts = dict(live.texts)
            texts[student_text.name_ref(seat.id)] = student_text.name_entry(seat.index, seat.name,
                                                                            hidden=kind == "hide_text")
            log = [{"t": "moderation", "text": N_("The teacher hid a student's name.") if kind == "hide_text"
                    else N_("The teacher showed a student's name again.")}]
            return self.moves.write(live, actor="facilitator", kind="table", action=action, log=log,
                                    fields={"texts": texts}, force=everyone)
        if isinstance(ref, str) and ref in live.texts:
            texts = dict(live.texts)
            texts[ref] = dict(texts[ref], **change)
            return self.moves.write(live, actor="facilitator", kind="table", action=action, log=log,
                                    fields={"texts": texts}, force=everyone)
        digits = ref[1:] if isinstance(ref, str) and ref[:1] == "n" else ""
        note_id = int(digits) if digits.isascii() and digits.isdigit() else None  # not "²": int() refuses it
        if note_id is not None and note_id <= 2**31 - 1:
            note = self.cache.store.note(note_id)
            if note is not None and note.table_id == live.id:
                return self.moves.write(live, actor="facilitator", kind="table", action=action, log=log,
                                        note_updates={note_id: change}, force=everyone)
        raise ServiceError("bad_request", N_("There is no student text with that ref at this table."))
