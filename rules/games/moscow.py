"""Moscow pyramid (001 2.4; copy B heads it "2.5 ... быстрая" by mistake, see the digest)."""

from __future__ import annotations

from typing import ClassVar

from calibration.contract import games
from rules.game import Game, Spotting


class Moscow(games.Moscow, Game):
    clause = "001 2.4"
    penalty = 1  # 2.4.7: one ball from the shelf, a debt if none
    cue_potted = "counts"  # 2.4.5: the opponent names a ball to be removed; next shot from hand
    spotting: ClassVar[Spotting] = "back_cushion"  # 2.4.6
