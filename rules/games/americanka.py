"""Americanka (001 2.7): sixteen equal balls, any of them may be struck."""

from __future__ import annotations

from typing import ClassVar

from calibration.contract import games
from rules.game import Game, Spotting


class Americanka(games.Americanka, Game):
    clause = "001 2.7"
    penalty = 1  # 2.7.8
    cue_potted = "counts"  # 2.7.5: the struck ball may be potted off an object ball
    cue_off_table = "spot"  # 2.1.13: the struck ball goes frozen to the middle of the back cushion
    safety = "2.7.6"
    pocket_zone = True  # 2.1.12
    spotting: ClassVar[Spotting] = "back_cushion"  # 2.7.7
    spotted_ball_is_cue_foul = True  # 2.1.14 against 2.8.2 (digest A19)
    temporary_house_rule = False  # 2.1.20 names the temporary house only for the other families
