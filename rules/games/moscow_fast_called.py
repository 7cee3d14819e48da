"""Moscow pyramid, fast called (001 2.6): 2.4 with the fast break, safety rules, line spotting and calls
of either an object ball or the cue ball into a pocket (2.6.3)."""

from __future__ import annotations

from calibration.contract import games
from rules.games.moscow import Moscow


class MoscowFastCalled(games.MoscowFastCalled, Moscow):
    clause = "001 2.6"
    fast = True  # 2.6.1
    safety = "2.1.11"  # 2.6.2
    pocket_zone = True  # 2.1.12
    calls = "ball_or_cue"  # 2.6.3
    call_any = True  # 2.6.3: object balls and the cue ball count
    spotting = "line"  # 2.6.4
