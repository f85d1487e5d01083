"""Players can read a game's ruling catalogue (GET /api/games/<key>/rulings) and
their table's playtest notes (the `notes` socket event): a game's Table tab
shows both, since neither travels with every view."""
from __future__ import annotations

from app import engines


def test_every_game_serves_its_ruling_catalogue(app):
    client = app.test_client()
    for key in engines.keys():
        body = client.get(f"/api/games/{key}/rulings").get_json()
        spec = engines.spec(key)
        assert body["game"] == key and body["rulings"] == list(spec.rulings)
        assert body["version"] == spec.data_versions.get("rulings.json", "")
    missing = client.get("/api/games/chess/rulings")
    assert missing.status_code == 404 and missing.get_json()["error"]["code"] == "bad_request"


def test_players_and_watchers_read_their_tables_notes(app, phone, war_table, teacher_token):
    ana = phone()
    assert ana.join(war_table.code, "Ana")["ok"]
    assert ana.send("note", {"text": "The war rule confused us"})["ok"]
    got = ana.send("notes", {})
    assert got["ok"] and [(n["author"], n["text"]) for n in got["notes"]] == [("Ana", "The war rule confused us")]
    board = phone()
    assert board.send("watch", {"code": war_table.code, "role": "board"})["ok"]
    assert board.send("notes", {})["notes"][0]["text"] == "The war rule confused us"
    stranger = phone()
    refused = stranger.send("notes", {})
    assert not refused["ok"] and refused["error"]["code"] == "not_joined"
    assert not stranger.send("notes", [])["ok"]
