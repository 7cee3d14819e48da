"""Americanka, fast (001 2.8): 2.7 with the fast break, line spotting, spotted balls playable at once."""

from __future__ import annotations

from calibration.contract import games
from rules.games.americanka import Americanka


class AmericankaFast(games.AmericankaFast, Americanka):
    clause = "001 2.8"
    fast = True  # 2.8.1
    # 2.8.1 names only the cue ball leaving the house, not a contact outside it (the digest's A20 would
    # add it; the clause is explicit, so the document wins).
    outside_contact_counts = False
    spotting = "line"  # 2.8.2, and 2.1.13: a struck ball off the table goes on the back spot
    spotted_ball_is_cue_foul = False  # 2.8.2
