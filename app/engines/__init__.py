"""The game registry: every package that follows the contract in contract.py.

Games are discovered, not listed: each package under app/engines/ that
exposes a `GAME` spec is a game. Another importable package (a game that
lives under tests/, say) joins with `register("dotted.module")`, which the
app factory calls for each name in its `GAME_MODULES` setting.
"""
from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

from app.engines.contract import REQUIRED_FUNCTIONS, GameSpec, IllegalAction, resolve_options

_GAMES: dict[str, ModuleType] = {}
_discovered = False


def _check(module: ModuleType) -> GameSpec:
    spec = getattr(module, "GAME", None)
    if not isinstance(spec, GameSpec):
        raise TypeError(f"{module.__name__} has no GAME spec")
    missing = [name for name in REQUIRED_FUNCTIONS if not callable(getattr(module, name, None))]
    if missing:
        raise TypeError(f"{module.__name__} lacks {', '.join(missing)}")
    return spec


def register(module_name: str) -> GameSpec:
    """Add one game package by its dotted name (idempotent)."""
    module = importlib.import_module(module_name)
    spec = _check(module)
    known = _GAMES.get(spec.key)
    if known is not None and known is not module:
        raise ValueError(f"two games use the key {spec.key!r}: {known.__name__} and {module_name}")
    _GAMES[spec.key] = module
    return spec


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    for info in pkgutil.iter_modules(__path__):
        if info.ispkg:
            module = importlib.import_module(f"{__name__}.{info.name}")
            if isinstance(getattr(module, "GAME", None), GameSpec):
                register(module.__name__)
    _discovered = True


def keys() -> list[str]:
    _discover()
    return sorted(_GAMES, key=lambda k: _GAMES[k].GAME.title)


def get(key: str) -> ModuleType:
    """The game's package (its functions and its GAME spec)."""
    _discover()
    if not isinstance(key, str) or key not in _GAMES:
        raise IllegalAction("bad_request", f"Unknown game: {key!r}.")
    return _GAMES[key]


def spec(key: str) -> GameSpec:
    return get(key).GAME


def games() -> list[dict]:
    """What GET /api/games and the dashboard show: every game, its options and defaults."""
    return [dict(spec(k).to_json(), playable=True) for k in keys()]


def options_for(key: str, given: dict | None) -> dict:
    """The table options: a preset's name under "preset" fills its values first."""
    game = spec(key)
    given = dict(given or {}) if isinstance(given, dict) else given
    if isinstance(given, dict) and "preset" in given:
        name = given.pop("preset")
        if name not in game.presets:
            raise IllegalAction("bad_request", f"Unknown preset {name!r}; choose one of {sorted(game.presets)}.")
        given = {**game.presets[name], **given}
    return resolve_options(list(game.options), given)


def report_hook(key: str):
    """The game's report hook: GameSpec.report, else a `report` function in the
    package's own `report` module (so a game adds its debrief section in one new
    file), else None."""
    module = get(key)
    if module.GAME.report is not None:
        return module.GAME.report
    try:
        sub = importlib.import_module(f"{module.__name__}.report")
    except ModuleNotFoundError as exc:
        if exc.name != f"{module.__name__}.report":
            raise
        return None
    hook = getattr(sub, "report", None)
    return hook if callable(hook) else None
