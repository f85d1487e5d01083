"""Seeded whole games through the table service, for the report tests and bench/reports.py:
computer logic plays every seat (engine.bot), the teacher decides what waits for them
(alternately accept and reject, hiding one explanation), and a few notes are written."""
from __future__ import annotations

import random

from app import engines
from app.engines.contract import strip_label


def play(tables, facilitator_id: int, game: str, names: list[str], *, options: dict | None = None,
         seed: int = 1, moves: int = 3000, notes: tuple = (), kick: int | None = None,
         until: int | None = None, code: str | None = None) -> str:
    """Create (or take `code`), seat `names`, start and play up to `moves` moves (or until
    the game ends, or until `until` events). Returns the table code."""
    if code is None:
        table = tables.create_table(facilitator_id, game, options or {})
        code = table.code
        for name in names:
            tables.join(code, name)
        tables.moderate(facilitator_id, code, tables.get(code).version, {"type": "start"})
    engine = engines.get(game)
    rng = random.Random(seed)
    decisions = 0
    for i in range(moves):
        live = tables.live(code)
        if live.status != "playing" or (until and live.version >= until):
            break
        if kick is not None and i == 20:
            tables.moderate(facilitator_id, code, live.version, {"type": "kick", "seat": kick})
            continue
        state = live.state
        waiting = engine.view(state, "board")["prompt"]["waiting_for"]
        if not waiting:
            offered = [strip_label(a) for a in engine.actions(state, "facilitator")]
            if not offered:
                break
            wanted = ["hide", "accept"] if decisions % 3 == 0 else ["reject"] if decisions % 3 == 1 else ["accept"]
            pick = next((a for w in wanted for a in offered if a["type"] == w), offered[0])
            if pick["type"] == "reject":
                pick = dict(pick, reason="The cards do not match the Crisis.")
            decisions += 1
            tables.moderate(facilitator_id, code, live.version, pick, scope="game")
            continue
        seat = waiting[rng.randrange(len(waiting))]
        choice = engine.bot(engine.view(state, seat), engine.actions(state, seat), rng)
        if choice is None:
            break
        action = strip_label(choice)
        if action.get("type") == "explain":
            action["text"] = f"Explanation number {i}: the reservoir stores rain for the dry months."
        try:
            tables.act(code, seat, live.version, action)
        except Exception:  # noqa: BLE001 - a refusal (stale etc.): try again with the fresh state
            continue
        if i in (5, 50) and notes:
            for author, text in notes:  # a teacher's note is written by its role, not its name
                role = "teacher" if author.startswith("Facilitator ") else "seat"
                tables.add_note(code, text, role=role, author=author, seat=0 if role == "seat" else None)
            notes = ()
    return code
