"""8-ball pyramid (001 2.9)."""

from __future__ import annotations

from calibration.contract import games
from rules.game import Game


class Eight(games.Eight, Game):
    clause = "001 2.9"
    penalty = 1  # 2.9.7
    cue_potted = "foul"  # 2.9.5
    spotting = "line"  # 2.9.6
