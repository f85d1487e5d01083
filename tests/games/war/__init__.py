"""War's tests (app/engines/war/, static/games/war/)."""
