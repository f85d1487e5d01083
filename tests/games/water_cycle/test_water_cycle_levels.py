"""The computer levels a teacher chooses mean something: over the same seeded two-seat
games, each level beats the one below it clearly (bench/computer_strength.py prints
the full table, 500 games a pairing)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[3] / "bench" / "computer_strength.py"


@pytest.fixture(scope="module")
def strength():
    spec = importlib.util.spec_from_file_location("computer_strength", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("stronger, weaker", [("standard", "easy"), ("expert", "standard")])
def test_each_level_beats_the_one_below(strength, stronger, weaker):
    from app import engines
    engine = engines.get("water_cycle")
    rate, unfinished = strength.win_rate(engine, {}, stronger, weaker, 80)
    # Seeded games: the same figure every run. 80 games give a 95 % margin of about 11 points.
    assert rate > 0.56 and unfinished == 0, (rate, unfinished)
