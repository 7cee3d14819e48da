"""8-ball pyramid, fast called (001 2.11): the fast game with compulsory calls and "с падающим"."""

from __future__ import annotations

from calibration.contract import games
from rules.games.eight_fast import EightFast


class EightFastCalled(games.EightFastCalled, EightFast):
    clause = "001 2.11"
    calls = "ball"  # 2.11.6
    call_any = True  # 2.11.6
