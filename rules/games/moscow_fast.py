"""Moscow pyramid, fast (001 2.5): 2.4 with the fast break, safety rules and spotting on the line."""

from __future__ import annotations

from calibration.contract import games
from rules.games.moscow import Moscow


class MoscowFast(games.MoscowFast, Moscow):
    clause = "001 2.5"
    fast = True  # 2.5.1
    safety = "2.1.11"  # 2.5.2
    pocket_zone = True  # 2.1.12
    spotting = "line"  # 2.5.3
