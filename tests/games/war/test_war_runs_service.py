"""War's solo runs on the platform: a class session where every student plays their
own run (tables of one, no computer seat), the class leader board built from the
game's figures ("standings"), progress kept with the seat's token across a reload,
and the Tournament / Survival quick starts from the home page."""
from __future__ import annotations

import re

from phones import Phone, seated
from test_classes import api, new_class, wait_for  # noqa: F401 (fixtures)
from test_demo import home_csrf, opened

from app.extensions import services

REVEAL = {"type": "reveal"}


def run_of(p) -> dict:
    p.pump()
    return p.view["view"]["public"]["run"]


def enter(p):
    action = next(a for a in p.view["actions"] if a["type"] == "enter")
    ack = p.act({k: v for k, v in action.items() if k != "label"})
    assert ack["ok"], ack


def test_a_class_of_runs_seats_each_student_alone_and_ranks_them_on_the_leader_board(app, api, phone):
    # A table size for a game played in tables of several is ignored: a run is played alone.
    code = new_class(api, options={"mode": "survival"}, table_size=4)
    assert api("get", f"/api/classes/{code}")["table_size"] == "solo"
    ana, ben = seated(phone, code, "Ana", "Ben")
    assert ana.table != ben.table
    for p in (ana, ben):   # no computer seat joins a run: its opponents play inside its matches
        assert [(x["name"], x["computer"]) for x in p.view["players"]] == [(p.name, False)]
        assert p.view["actions"] == [{"type": "start", "label": "Deal cards & start"}]
    started = api("post", f"/api/classes/{code}/start")
    assert sorted(started["started"]) == sorted([ana.table, ben.table])
    for p in (ana, ben):
        wait_for(lambda p=p: p.pump() and p.view["status"] == "playing")
        assert run_of(p)["phase"] == "between"
        assert p.view["view"]["prompt"]["text"] == "Enter Table 1: Warm-up when you are ready"

    # Ana plays her first table until she has won a battle (or the table is over); Ben only enters.
    enter(ana)
    enter(ben)
    wait_for(lambda: ana.can("reveal"))
    while run_of(ana)["phase"] == "match" and run_of(ana)["battles"] < 2:
        assert ana.act(REVEAL)["ok"]
    mine = run_of(ana)
    # First to 30 cards: in about 1 game in 16 the computer takes the first four
    # battles and Ana is out of the run without a battle won.
    assert mine["battles"] >= 1 or mine["cleared"] == 1 or mine["phase"] == "over"
    ahead = mine["battles"] >= 1 or mine["cleared"] == 1

    classes = services(app).classes
    for board in (classes.overview(code), classes.public_overview(code)):
        st = board["standings"]
        assert st["columns"] == ["Stage reached", "Chips", "Battles won"]
        rows = {r["name"]: r for r in st["rows"]}
        if ahead:
            assert [r["name"] for r in st["rows"]] == ["Ana", "Ben"]
            assert [r["rank"] for r in st["rows"]] == [1, 2]
        else:   # level on every count: they share the rank
            assert [r["rank"] for r in st["rows"]] == [1, 1]
        assert rows["Ben"]["cells"] == ["Table 1: Warm-up", "0", "0"]
        assert rows["Ana"]["cells"][2] == str(mine["battles"])
        # The per-table score list stays empty for runs: the standings are the leader board.
        assert board["leaders"] == []
        reached = ("Table 2: Two of a kind" if mine["cleared"] else
                   "Out at Table 1: Warm-up" if mine["phase"] == "over" else "Table 1: Warm-up")
        assert [t["lines"] for t in board["tables"]] == [[f"{reached} · {mine['chips']} chips"],
                                                         ["Table 1: Warm-up · 0 chips"]]   # Ana's table first
        assert board["tables"][1]["progress"]["label"] == "0 of 6 tables cleared"

    # Progress is kept with the seat's token across a reload.
    before = run_of(ana)
    ana.close()
    again = phone()
    ack = again.send("resume", {"token": ana.token})
    assert ack["ok"] and ack["table"] == ana.table
    assert again.view["view"]["public"]["run"] == before


def test_a_run_table_takes_one_player_and_a_classic_table_needs_two(api, phone, tables, teacher):
    run = tables.create_table(teacher.id, "war", {"mode": "tournament"})
    solo = seated(phone, run.code, "Ana")[0]
    assert solo.view["actions"] == [{"type": "start", "label": "Deal cards & start"}]
    full = phone().join(run.code, "Ben")
    assert full["ok"] is False and full["error"]["code"] == "table_full"
    classic = tables.create_table(teacher.id, "war", {"mode": "classic"})
    alone = seated(phone, classic.code, "Cara")[0]
    assert alone.view["actions"] == []          # no start button for one player in Classic
    assert solo.act({"type": "start"})["ok"]
    solo.pump()
    assert solo.view["status"] == "playing" and run_of(solo)["kind"] == "tournament"


def test_tournament_and_survival_quick_starts_open_a_run_without_an_account(app):
    client = app.test_client()
    home = client.get("/").get_data(as_text=True)
    assert 'action="/demo/war/tournament"' in home and 'action="/demo/war/survival"' in home
    for start, kind, name in (("tournament", "tournament", "Challenger"), ("survival", "survival", "Survivor")):
        response = client.post(f"/demo/war/{start}", data={"csrf": home_csrf(client)})
        assert response.status_code == 201
        code, token = opened(response)
        p = Phone(app)
        assert p.send("resume", {"token": token})["ok"]
        assert p.view["status"] == "playing" and [x["name"] for x in p.view["players"]] == [name]
        assert run_of(p)["kind"] == kind
        assert re.match(r"(Enter|Retry) ", p.view["actions"][0]["label"])
        p.close()


def test_seating_for_a_run_is_one_student_per_table_without_computers():
    from app.service import seating

    rule = seating.rule_for("war", {"mode": "survival"})
    assert rule.alone and rule.solo and rule.choices() == [seating.SOLO] and rule.solo_computers == 0
    assert seating.parse_table_size(rule, 4) == seating.parse_table_size(rule, None) == seating.SOLO
    assert seating.seats_per_table(rule, seating.SOLO) == 1
    assert seating.computers_needed(rule, seating.SOLO, True, 1) == 0
    assert rule.choice_labels() == [("solo", "Solo: each student plays alone at their own table")]
    # Every other mode seats as before (tables of 2 to 6, or solo against a computer).
    classic = seating.rule_for("war", {"mode": "classic"})
    assert classic == seating.rule_for("war")
    assert classic.sizes == (2, 3, 4, 5, 6) and classic.solo_computers == 1 and not classic.alone
