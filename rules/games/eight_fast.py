"""8-ball pyramid, fast (001 2.10): 2.9 with the fast break and safety rules."""

from __future__ import annotations

from calibration.contract import games
from rules.games.eight import Eight


class EightFast(games.EightFast, Eight):
    clause = "001 2.10"
    fast = True  # 2.10.1
    safety = "2.1.11"  # 2.10.2
    pocket_zone = True  # 2.1.12
