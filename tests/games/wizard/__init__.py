"""The Wizard duel's tests (app/engines/wizard/, static/games/wizard/)."""
