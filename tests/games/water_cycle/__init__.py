"""Water Cycle Challenge's tests (app/engines/water_cycle/, static/games/water_cycle/)."""
