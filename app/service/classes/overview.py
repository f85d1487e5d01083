"""The class overviews: `overview`, for the facilitator, and `public_overview`, for the
projected class board, summarise every table: players, progress toward the game's
goal, whose turn it is, time since the last move, and alerts. What a game
contributes (progress, turn, scores, its own alerts) comes from its spec's
`figures`; the generic alerts are the functions in ALERT_RULES.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Callable

from app import engines
from app.engines.contract import join_names
from app.errors import ServiceError
from app.service import seating, student_text
from app.service.classes.common import AWAY_SECONDS, IDLE_SECONDS, LEADERS_ON_BOARD, LINES_MAX, MESSAGE_MAX, \
    STALL_SECONDS, utc
from app.service.classes.rows import ClassRows
from app.service.tables import Live, SeatInfo, TableService, lesson
from app.store.models import ClassSession, GameTable, Seat, utcnow
from app.engines.text import N_, NP_


def _minutes(seconds: float) -> str:
    minutes = int(seconds // 60)
    return "1 minute" if minutes == 1 else f"{minutes} minutes"



def lesson_deadlines(klass: ClassSession) -> dict:
    """The class's lesson clock as the views' deadlines (static/js/countdown.js): {"lesson":
    {"due"}} while it runs, {"lesson": {"left"}} while every table is paused; nothing before
    the class starts, once it has run out, or once the class has ended."""
    if not klass.lesson_minutes or klass.status == "ended":
        return {}
    if klass.lesson_due is not None:
        return {lesson.KEY: {"due": klass.lesson_due}} if klass.lesson_due > time.time() else {}
    if klass.lesson_left is not None:
        return {lesson.KEY: {"left": klass.lesson_left}}
    return {}


# ----------------------------------------------------------- per-game figures
@dataclass
class TableFacts:
    """Everything the overview knows about one table, for figures and alerts."""

    klass: ClassSession
    table: Live | GameTable      # the live copy (a push), or the row (`overview_of` a database read)
    number: int
    seats: list[SeatInfo] | list[Seat]
    players: list[dict]          # {seat, name, computer, connected, away_seconds}
    public: dict | None          # the engine's public view, None before the start
    result: dict | None
    idle_seconds: float | None   # since the last event of any kind
    figures: dict = field(default_factory=dict)
    prompt: dict | None = None   # the board view's prompt: {"waiting_for": [seats], "text"}, None before the start
    # The facilitator's overview only (never the class board): the game's facilitator
    # actions now, and that view's prompt text, when the game waits on the teacher.
    decisions: list = field(default_factory=list)
    decision_prompt: str = ""


def _idle_alert(facts: TableFacts) -> list[dict]:
    t = facts.table
    if t.status == "playing" and not t.paused and facts.idle_seconds is not None \
            and facts.idle_seconds >= IDLE_SECONDS:
        return [{"kind": "idle", "level": "attention", "text": f"No move for {_minutes(facts.idle_seconds)}"}]
    return []


def _seconds(seconds: float) -> str:
    return f"{int(seconds)} s" if seconds < 60 else _minutes(seconds)


def _stalled_alert(facts: TableFacts) -> list[dict]:
    """A playing table whose game waits on particular students, with no event for STALL_SECONDS."""
    t = facts.table
    if t.status != "playing" or t.paused or facts.idle_seconds is None or facts.idle_seconds < STALL_SECONDS:
        return []
    waiting = set((facts.prompt or {}).get("waiting_for") or [])
    people = [p for p in facts.players if p["seat"] in waiting and not p["computer"]]
    if not people:
        return []
    return [{"kind": "stalled", "level": "attention", "seats": [p["seat"] for p in people],
             "text": f"Waiting on {join_names([p['name'] for p in people])} for {_seconds(facts.idle_seconds)}"}]


def _away_alert(facts: TableFacts) -> list[dict]:
    if facts.table.status == "ended":
        return []
    return [{"kind": "disconnected", "level": "attention", "seat": p["seat"],
             "text": f"{p['name']} has been disconnected for {_minutes(p['away_seconds'])}"
             if p["away_seconds"] >= 120 else f"{p['name']} has been disconnected for over a minute"}
            for p in facts.players
            if not p["computer"] and not p["connected"] and (p["away_seconds"] or 0) >= AWAY_SECONDS]


def _finished_alert(facts: TableFacts) -> list[dict]:
    if facts.table.status != "ended":
        return []
    # The seats' names as the table knows them: a game's public view may not list players.
    names = {p["seat"]: p["name"] for p in facts.players}
    winners = [names.get(s, N_("Seat {n}").format(n=s + 1)) for s in facts.result["winners"]] if facts.result else []
    if not winners:
        return [{"kind": "finished", "level": "info", "text": "Finished"}]
    verb = "won" if len(winners) == 1 else "share the win"
    return [{"kind": "finished", "level": "info", "text": f"Finished: {join_names(winners)} {verb}"}]


def _waiting_alert(facts: TableFacts) -> list[dict]:
    # Tables that wait for their own start are normal before the class starts;
    # after it, a lobby table is a late arrival (or a leftover) the teacher should start.
    students = [p for p in facts.players if not p["computer"]]
    if facts.table.status == "lobby" and facts.klass.status == "playing" and students:
        n = len(students)
        return [{"kind": "waiting", "level": "attention",
                 "text": f"{join_names([p['name'] for p in students])} {'is' if n == 1 else 'are'} waiting to start"}]
    return []


# Generic alerts; a game adds its own through its FIGURES entry (through its spec's `figures`).
ALERT_RULES: list[Callable[[TableFacts], list[dict]]] = [_idle_alert, _stalled_alert, _away_alert,
                                                         _finished_alert, _waiting_alert]


class ClassOverviews:
    def __init__(self, rows: ClassRows, tables: TableService, *, shared: bool = False):
        self.rows = rows
        self.tables = tables
        # Whether other processes write these tables too (a message queue joins them): then a
        # push first checks the live copies' versions (one query) and reloads the stale ones.
        self.shared = shared
        # What the overviews keep of each class between pushes, by class id: (the class row's
        # version, its table codes, its moved seat ids). A join, move or start bumps that
        # version, so a push reads these again only after one.
        self._members: dict[int, tuple[int, list[str], set[int]]] = {}
        # When the overview first saw each student's seat disconnected (seat token hash ->
        # time.time()). Presence itself has no clock; the overview is recomputed on every
        # change of a class table, a disconnection included, so this is close enough.
        self.away_since: dict[str, float] = {}
        self._away_lock = threading.Lock()

    def summary(self, code: str) -> dict:
        """The JSON API's description of a class: its tables, each with its code and seats."""
        klass = self.rows.get(code)
        connected = self.tables.connected
        rows = self.rows.visible(self.rows.read(klass))
        tables = []
        for r in rows:
            t = r["table"]
            engine = engines.get(t.game)
            tables.append({
                "code": t.code, "number": r["number"], "status": t.status, "paused": t.paused,
                "locked": t.locked, "version": t.version, "board_url": f"/board/{t.code}",
                "seats": [{"seat": x.seat_index, "name": x.name, "computer": x.computer,
                           "connected": connected(x.token_hash), "moved": x.moved_to is not None}
                          for x in r["seats"]],
                "result": engine.result(t.state) if t.state is not None else None})
        return {"code": klass.code, "game": klass.game, "title": engines.spec(klass.game).title,
                "status": klass.status, "version": klass.version, "options": klass.options,
                "table_size": self.rows.table_size(klass), "fill_with_computer": klass.fill_with_computer,
                "lesson_minutes": klass.lesson_minutes, "deadlines": lesson_deadlines(klass),
                "students": sum(not x["computer"] and not x["moved"] for t in tables for x in t["seats"]),
                "created_at": utc(klass.created_at).isoformat(), "tables": tables}

    def _away_seconds(self, token_hash: str, connected: bool, now: float) -> float | None:
        with self._away_lock:
            if connected:
                self.away_since.pop(token_hash, None)
                return None
            since = self.away_since.setdefault(token_hash, now)
            return now - since

    def live_rows(self, klass: ClassSession) -> tuple[list[dict], set[int]]:
        """The class's tables as `ClassRows.read` gives them ({table, seats, last_at}), from
        the table service's live copies, and the moved seat ids: no table, seat or event row
        is read while the class row's version stays (the moves of a game in play)."""
        known = self._members.get(klass.id)
        if known is None or known[0] != klass.version:
            known = (klass.version, self.rows.codes_of(klass.id), self.rows.moved_seats(klass.id))
            self._members[klass.id] = known
        # Alone, this process makes every write, and a cold one (a join, a move) drops the
        # copies it touched: they are current. Another process's writes show in the versions.
        stale = set()
        if self.shared:
            versions = self.rows.versions(klass.id)
            stale = {code for code in known[1] if code not in self.tables.cache
                     or self.tables.live(code).version != versions.get(code)}
        rows = []
        for code in known[1]:
            try:
                live = self.tables.live(code, fresh=code in stale)
            except ServiceError:  # deleted meanwhile (privacy, clean-up): no longer a table of the class
                continue
            with live.lock:  # a consistent picture of the table, taken between two of its changes
                table = replace(live, seats=list(live.seats))
            rows.append({"table": table, "seats": table.seats, "last_at": table.last_at})
        return rows, known[2]

    def _facts(self, klass: ClassSession, rows: list[dict], moved: set[int], *,
               facilitator: bool = False) -> list[TableFacts]:
        """Every table's facts. With `facilitator`, also what the game asks of the teacher
        (its facilitator actions and view): the projected board never computes those."""
        connected = self.tables.connected
        now_wall = time.time()
        now = datetime.now(timezone.utc)
        out = []
        for r in self.rows.visible(rows):
            t = r["table"]
            engine = engines.get(t.game)
            board = engine.view(t.state, "board") if t.state is not None else None
            # the names the teacher hid, as the table's own board shows them ("Player N")
            names = student_text.hidden_names(t.texts or {}, {x.id: x.seat_index for x in r["seats"]}, "board",
                                              [x.name for x in r["seats"]])
            if board is not None and not facilitator:  # the class board: as the table's own board shows it
                board = student_text.redact(board, student_text.withheld(t.texts or {}, "board"), names)
            public = board["public"] if board is not None else None
            hidden = set(student_text.hidden_names(t.texts or {}, {}, "board"))
            players = []
            for x in r["seats"]:
                online = connected(x.token_hash)
                away = None if x.computer else self._away_seconds(x.token_hash, online, now_wall)
                players.append({"seat": x.seat_index, "computer": x.computer,
                                "name": x.name if facilitator else names.get(x.name, x.name),
                                "name_hidden": x.name in hidden,
                                "connected": online, "away_seconds": away,
                                # re-seated at a new table after this match ended: this row is its record
                                "moved": x.id in moved})
            facts = TableFacts(klass=klass, table=t, number=r["number"], seats=r["seats"], players=players,
                               public=public, result=engine.result(t.state) if t.state is not None else None,
                               idle_seconds=(now - r["last_at"]).total_seconds() if r["last_at"] else None,
                               prompt=board.get("prompt") if board is not None else None)
            teacher_public = None
            if facilitator and t.state is not None and t.status == "playing":
                facts.decisions = engine.actions(t.state, "facilitator")
                if facts.decisions:
                    teacher = engine.view(t.state, "facilitator")
                    teacher_public = teacher["public"]
                    facts.decision_prompt = (teacher.get("prompt") or {}).get("text", "")
            figures = engines.spec(t.game).figures
            facts.figures = figures({"public": public, "players": [dict(p) for p in players],
                                     "result": facts.result, "facilitator": teacher_public}
                                    ) if figures and public is not None else {}
            out.append(facts)
        return out

    @staticmethod
    def _table_view(facts: TableFacts) -> dict:
        """What both overviews show of one table."""
        t = facts.table
        spec = engines.spec(t.game)
        students = [p for p in facts.players if not p["computer"]]
        winners = []
        if facts.result:  # the seats' names as the table knows them (a game's public view may not list players)
            names = {p["seat"]: p["name"] for p in facts.players}
            winners = [names.get(s, N_("Seat {n}").format(n=s + 1)) for s in facts.result["winners"]]
        turn = facts.figures.get("turn")
        if t.status == "lobby":
            need = max(0, spec.seat_range(t.options)[0] - len(facts.players))
            turn = {"text": NP_("Waiting for {n} more player", "Waiting for {n} more players", need).format(n=need) if need
                    else N_("Ready: {name} can start ({button})").format(name=facts.players[0]['name'], button=spec.start_label)
                    if not facts.players[0]["computer"]
                    else N_("Ready to start")}
        return {"number": facts.number, "status": t.status, "paused": t.paused,
                "players": [{"seat": p["seat"], "name": p["name"], "computer": p["computer"],
                             "connected": p["connected"]} for p in facts.players],
                "students": len(students), "connected": sum(p["connected"] for p in students),
                "moved": sum(p.get("moved", False) for p in students),
                "progress": facts.figures.get("progress"), "turn": turn,
                "lines": [str(x) for x in facts.figures.get("lines", [])][:LINES_MAX],
                "result": ({"winners": winners, "reason": facts.result["reason"]} if facts.result else None)}

    @staticmethod
    def _leaders(facts_list: list[TableFacts]) -> list[dict]:
        """Every player with a score, best first, ranked across tables. At the same score a
        table's winner ranks above a player who did not win (a tie-break of the game's, such
        as War's rank total when the teacher ends a match, decided it), so the winner badge
        and the rank never disagree; players equal on both share a rank."""
        entries = []
        for facts in facts_list:
            winners = set(facts.result["winners"]) if facts.result else set()
            for score in facts.figures.get("scores", []):
                player = next((p for p in facts.players if p["seat"] == score["seat"]), None)
                if player is None:
                    continue
                entries.append({"name": player["name"], "computer": player["computer"], "table": facts.number,
                                "score": score["score"], "label": score["label"], "out": score.get("out", False),
                                "winner": score["seat"] in winners})
        entries.sort(key=lambda e: (-e["score"], not e["winner"], e["table"], e["name"]))
        rank, last = 0, None
        for i, e in enumerate(entries):
            if (e["score"], e["winner"]) != last:
                rank, last = i + 1, (e["score"], e["winner"])
            e["rank"] = rank
        return entries

    @staticmethod
    def _standings(facts_list: list[TableFacts]) -> dict:
        """The games' own leader-board rows (figures "standings"), best first across tables:
        {"columns": [labels], "rows": [{rank, name, table, cells: [values], finished}]}
        (ties on rank_key share a rank)."""
        rows, columns = [], []
        for facts in facts_list:
            for item in facts.figures.get("standings", []) or []:
                player = next((p for p in facts.players if p["seat"] == item.get("seat")), None)
                if player is None or not isinstance(item.get("rank_key"), list):
                    continue
                cells = [{"label": str(c.get("label", "")), "value": str(c.get("value", ""))}
                         for c in item.get("columns", []) if isinstance(c, dict)]
                if not columns:
                    columns = [c["label"] for c in cells]
                rows.append({"name": player["name"], "table": facts.number, "key": list(item["rank_key"]),
                             "cells": [c["value"] for c in cells], "finished": facts.table.status == "ended"})
        rows.sort(key=lambda r: ([-x for x in r["key"]], r["table"], r["name"]))
        rank = 0
        for i, r in enumerate(rows):
            if i == 0 or r["key"] != rows[i - 1]["key"]:
                rank = i + 1
            r["rank"] = rank
        for r in rows:
            del r["key"]
        return {"columns": columns, "rows": rows}

    def overview(self, code: str) -> dict:
        """The facilitator's live overview: every table with status, players (connected
        or not), turn, time since the last move and alerts; the class leader board."""
        klass = self.rows.find(code)
        if klass is None:
            return {}
        return self.overview_of(klass, *self.live_rows(klass))

    def overview_of(self, klass: ClassSession, rows: list[dict], moved: set[int]) -> dict:
        """`overview` of these tables (`live_rows`, or `ClassRows.read` with their moved seats)."""
        facts_list = self._facts(klass, rows, moved, facilitator=True)
        tables, alerts, queue = [], [], []
        for facts in facts_list:
            t = facts.table
            view = self._table_view(facts)
            if facts.decisions:
                queue.append(self._queue_item(facts))
            table_alerts = [dict(a, table=t.code, number=facts.number)
                            for rule in ALERT_RULES for a in rule(facts)]
            table_alerts += [dict(a, table=t.code, number=facts.number) for a in facts.figures.get("alerts", [])]
            alerts += table_alerts
            has_students = any(not p["computer"] for p in facts.players)
            view.update({
                "code": t.code, "version": t.version, "locked": t.locked,
                "idle_seconds": int(facts.idle_seconds) if facts.idle_seconds is not None else None,
                "players": [dict(p, away_seconds=int(p["away_seconds"]) if p["away_seconds"] is not None else None)
                            for p in facts.players],
                "alerts": table_alerts,
                # its students' texts, newest first, for the teacher's Hide and Approve buttons
                "texts": [dict(item, name=next((p["name"] for p in facts.players if p["seat"] == item["seat"]), ""))
                          for item in student_text.newest_first(student_text.typed(t.texts or {}))],
                "text_approval": t.text_approval,
                "board_url": f"/board/{t.code}", "moderate_url": f"/facilitator/tables/{t.code}",
                "can": {"start": t.status == "lobby" and has_students,
                        "add_computer": t.status == "lobby" and has_students and len(facts.players)
                        < seating.seats_per_table(self.rows.rule(klass), self.rows.table_size(klass)),
                        # students move from a waiting table, or from a finished match to the next one,
                        # always to a waiting table (`move_here`) or a new one
                        "move": klass.status != "ended" and (t.status == "lobby" or t.status == "ended" and any(
                            not p["computer"] and not p["moved"] for p in facts.players)),
                        "move_here": klass.status != "ended" and t.status == "lobby",
                        # a finished match whose players may play again (its rematch, or a new round)
                        "again": klass.status != "ended" and t.status == "ended" and t.state is not None
                        and not (t.demo and engines.spec(t.game).is_demo(t.options)) and any(
                            not p["computer"] and not p["moved"] for p in facts.players),
                        "pause": t.status == "playing" and not t.paused,
                        "resume": t.status != "ended" and t.paused,
                        "end": t.status != "ended"},
            })
            tables.append(view)
        students = sum(t["students"] - t["moved"] for t in tables)  # a re-seated student counts once
        return {
            "code": klass.code, "game": klass.game, "title": engines.spec(klass.game).title,
            "status": klass.status, "version": klass.version, "table_size": self.rows.table_size(klass),
            "fill_with_computer": klass.fill_with_computer, "phone_notes": klass.phone_notes,
            "lesson_minutes": klass.lesson_minutes, "deadlines": lesson_deadlines(klass),
            "now": utcnow().isoformat(),
            "idle_after": IDLE_SECONDS, "away_after": AWAY_SECONDS, "message_max": MESSAGE_MAX,
            "counts": {"students": students, "connected": sum(t["connected"] for t in tables),
                       "tables": len(tables), "lobby": sum(t["status"] == "lobby" for t in tables),
                       "playing": sum(t["status"] == "playing" for t in tables),
                       "ended": sum(t["status"] == "ended" for t in tables)},
            "tables": tables, "alerts": alerts, "queue": queue, "leaders": self._leaders(facts_list),
            "standings": self._standings(facts_list),
        }

    @staticmethod
    def _queue_item(facts: TableFacts) -> dict:
        """One decision a table's game waits for from the teacher, for the moderation
        queue: what is asked, the details the game's figures give (`queue`), and the
        game's labelled facilitator actions, sent back with the `moderate` event
        (scope "game") and this version."""
        t = facts.table
        details = [{"title": str(d.get("title", "")), "detail": str(d.get("detail", "")),
                    "quote": d.get("quote") if isinstance(d.get("quote"), str) else None}
                   for d in facts.figures.get("queue", []) if isinstance(d, dict)]
        return {"table": t.code, "number": facts.number, "version": t.version, "paused": t.paused,
                "prompt": facts.decision_prompt, "details": details, "actions": list(facts.decisions),
                "moderate_url": f"/facilitator/tables/{t.code}"}

    @staticmethod
    def _moved_on(facts: TableFacts) -> bool:
        students = [p for p in facts.players if not p["computer"]]
        return facts.table.status == "ended" and bool(students) and all(p["moved"] for p in students)

    def public_overview(self, code: str) -> dict:
        """The projected class board: public information only (no alerts, timings or codes)."""
        klass = self.rows.find(code)
        if klass is None:
            return {}
        return self.public_overview_of(klass, *self.live_rows(klass))

    def public_overview_of(self, klass: ClassSession, rows: list[dict], moved: set[int]) -> dict:
        """`public_overview` of these tables (`live_rows`, or `ClassRows.read` with their moved seats).
        A finished match whose students have all moved on (they play again, or a new round
        seated them elsewhere) is the teacher's record: the projected board shows where they play now."""
        facts_list = [f for f in self._facts(klass, rows, moved) if not self._moved_on(f)]
        tables = [self._table_view(f) for f in facts_list]
        # Each table's hidden names are "Player N" in its facts; a name one table hid may also
        # stand in a sentence of another's figures: the class board says "Player N" there too.
        names = {}
        for f in facts_list:
            seats = {x.id: x.seat_index for x in f.seats}
            for name, instead in student_text.hidden_names(f.table.texts or {}, seats, "board",
                                                           [x.name for x in f.seats]).items():
                if instead != name or name not in names:  # hidden at one table: hidden on the class board
                    names[name] = instead
        return {"code": klass.code, "game": klass.game, "title": engines.spec(klass.game).title,
                "status": klass.status, "deadlines": lesson_deadlines(klass),
                "counts": {"students": sum(t["students"] - t["moved"] for t in tables), "tables": len(tables),
                           "ended": sum(t["status"] == "ended" for t in tables)},
                **student_text.redact({"tables": tables, "leaders": self._leaders(facts_list)[:LEADERS_ON_BOARD],
                                       "standings": self._standings(facts_list)}, [], names)}