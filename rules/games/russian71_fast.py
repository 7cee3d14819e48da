"""Russian pyramid, fast (001 2.3): 2.2 with the fast break, "заказ с падающим" and safety rules."""

from __future__ import annotations

from calibration.contract import games
from rules.games.russian71 import Russian71


class Russian71Fast(games.Russian71Fast, Russian71):
    clause = "001 2.3"
    fast = True  # 2.3.1
    call_any = True  # 2.3.2
    safety = "2.1.11"  # 2.3.3
    pocket_zone = True  # 2.1.12
