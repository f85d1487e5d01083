"""A table's board and teacher's views are built only while someone can receive them
(app/service/tables/views.py `changed`, app/realtime/__init__.py `watched`): in one process
most tables have neither page open, and those are a move's two largest views."""
from __future__ import annotations

import pytest

from app import engines
from app.service.tables.views import Views
from phones import seated


@pytest.fixture
def built(monkeypatch):
    """The viewers whose view the service builds, in order."""
    viewers = []
    parts = Views.viewer_parts

    def spy(self, live, viewer, built=None):
        viewers.append(viewer)
        return parts(self, live, viewer, built)

    monkeypatch.setattr(Views, "viewer_parts", spy)
    return viewers


def test_board_and_teacher_views_are_built_only_while_watched(phone, war_table, teacher_token, built,
                                                              monkeypatch):
    game = engines.get("war")
    views = []  # the viewers whose game view is built, alone (`view`) or together (`views`)
    view, together = game.view, game.views
    monkeypatch.setattr(game, "view", lambda state, viewer: views.append(viewer) or view(state, viewer))
    monkeypatch.setattr(game, "views", lambda state, viewers: views.extend(viewers) or together(state, viewers))
    ana, ben = seated(phone, war_table.code, "Ana", "Ben")
    built.clear()
    assert ana.act({"type": "start"})["ok"]
    assert built == [0, 1]  # the two seats; no board, no teacher's page open
    assert views == [0, 1]  # nor the board's view for the timers: no computer seat waits

    board, teacher = phone(), phone(auth={"token": teacher_token})
    assert board.send("watch", {"code": war_table.code})["ok"]
    assert teacher.send("watch", {"code": war_table.code, "role": "facilitator"})["ok"]
    built.clear()
    assert ana.act({"type": "reveal"})["ok"]
    assert built == ["board", "facilitator", 0, 1]
    for page in (board, teacher):  # each page has the move, log included
        page.pump()
        assert page.view["version"] == ana.view["version"]
        assert [e["v"] for e in page.view["log"]][-1] == ana.view["version"]

    board.close()
    built.clear()
    assert ben.act({"type": "reveal"})["ok"]
    assert built == ["facilitator", 0, 1]
    ana.pump()

    again = phone()
    assert again.send("watch", {"code": war_table.code})["ok"]
    assert again.view["version"] == ben.view["version"]  # a board that opens gets the table as it is now
    mover = next(p for p in (ana, ben) if p.can("reveal"))
    built.clear()
    assert mover.act({"type": "reveal"})["ok"]
    assert built == ["board", "facilitator", 0, 1]
    assert again.pump()["version"] == mover.view["version"]


def test_a_board_that_opens_gets_the_next_change_even_one_back_to_what_it_was_last_sent(tables, war_table):
    """The board was sent view A, closed, the table went to B, a board opened on B (`view_for`),
    then the table went back to A: that change must reach it, though A is what was last sent."""
    here = {"ana": True, "board": True}
    tables.connected = lambda _token_hash: here["ana"]
    tables.watched = lambda _code, viewer: here["board"] or viewer != "board"
    tables.join(war_table.code, "Ana")
    tables.refresh(war_table.code)

    def board_sent() -> list:
        return [payload for key, payload in tables.refresh(war_table.code).views if key == "board"]

    here["ana"] = False
    assert board_sent()  # A -> B: Ana's dot went out
    here["ana"] = True
    assert [p["players"][0]["connected"] for p in board_sent()] == [True]  # B -> A, watched

    here["board"] = False
    here["ana"] = False
    assert board_sent() == []  # A -> B with nobody watching: not built, not sent
    here["board"] = True
    assert tables.view_for(war_table.code, "board")["players"][0]["connected"] is False  # opens on B
    here["ana"] = True
    assert [p["players"][0]["connected"] for p in board_sent()] == [True]  # back to A: sent


@pytest.mark.app_config(GAME_MODULES=["testgames.dicerace"])
def test_a_teacher_view_with_game_actions_is_built_though_no_page_is_open(tables, teacher, built):
    """The class overview's queue sends the teacher's game moves without the table's page
    open, and such a move is checked against when the teacher's view last changed: that
    view is built while the game lists the teacher an action (Dice Race's bonus)."""
    table = tables.create_table(teacher.id, "dicerace", {})
    tables.watched = lambda _code, _viewer: False
    for name in ("Ana", "Ben"):
        tables.join(table.code, name)
    built.clear()
    started = tables.act(table.code, 0, tables.live(table.code).version, {"type": "start"})
    live = tables.live(table.code)
    assert live.engine.actions(live.state, "facilitator")  # the teacher's bonus
    assert built == ["facilitator", 0, 1]
    assert [key for key, _payload in started.views] == ["facilitator", ("seat", live.seat(0).token_hash),
                                                        ("seat", live.seat(1).token_hash)]
