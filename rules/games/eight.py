"""8-ball pyramid (001 2.9)."""

from __future__ import annotations

from rules.game import Game


class Eight(Game):
    name = "eight"
    title = "Пирамида 8 шаров"
    clause = "001 2.9"
    target = 8  # 2.9.1
    penalty = 1  # 2.9.7
    cue_potted = "foul"  # 2.9.5
    spotting = "line"  # 2.9.6
