"""Resolves the game names of CONTRACT.md section 7 to game classes.

The ten federation games live in :mod:`rules.games`. ``cluster`` resolves lazily to the package
:mod:`rules.cluster` (built separately), which must expose a ``Game`` subclass named ``ClusterGame``.
"""

from __future__ import annotations

import importlib

from calibration.contract.games import GAMES
from rules.errors import GameNotAvailableError, UnknownGameError
from rules.game import Game
from rules.games.americanka import Americanka
from rules.games.americanka_fast import AmericankaFast
from rules.games.eight import Eight
from rules.games.eight_fast import EightFast
from rules.games.eight_fast_called import EightFastCalled
from rules.games.moscow import Moscow
from rules.games.moscow_fast import MoscowFast
from rules.games.moscow_fast_called import MoscowFastCalled
from rules.games.russian71 import Russian71
from rules.games.russian71_fast import Russian71Fast

FEDERATION_GAMES: dict[str, type[Game]] = {
    g.name: g
    for g in (
        Russian71, Russian71Fast, Moscow, MoscowFast, MoscowFastCalled,
        Americanka, AmericankaFast, Eight, EightFast, EightFastCalled,
    )
}  # fmt: skip
GAME_NAMES: tuple[str, ...] = GAMES  # declared in calibration.contract.games, cluster first


def game_class(name: str) -> type[Game]:
    if name in FEDERATION_GAMES:
        return FEDERATION_GAMES[name]
    if name == "cluster":
        try:
            module = importlib.import_module("rules.cluster")
        except ModuleNotFoundError as exc:
            if exc.name in ("rules.cluster", "rules"):
                raise GameNotAvailableError("game 'cluster' is not available in this build") from None
            raise
        cls = getattr(module, "ClusterGame", None)
        if cls is None:
            raise GameNotAvailableError("game 'cluster' is not available: rules.cluster has no ClusterGame")
        return cls
    raise UnknownGameError(f"unknown game '{name}' (known: {', '.join(GAME_NAMES)})")


def get_game(name: str, **kwargs: object) -> Game:
    """An instance of the named game; ``kwargs`` go to its constructor (``table``, ``hanging_grace_s``)."""
    return game_class(name)(**kwargs)  # type: ignore[arg-type]
