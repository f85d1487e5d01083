"""Storm War's tests (app/engines/storm_war/, static/games/storm_war/)."""
