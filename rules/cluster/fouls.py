"""The Cluster penalties (000 4.1 а-з), each citing its clause; the display text is a lookup.

Every member draws the same single penalty ball (000 4.1; one per shot however many apply). The operator's
``manual_foul`` codes (CONTRACT.md section 3) map onto them in ``MANUAL``; ``interference`` is the
opponent's foul (001 2.1.19, borrowed by digest C14 with the Cluster penalty), as is the frozen cue ball's
45-degree rule (001 2.1.2, 2.1.22(7)), and ``body_over_rail`` has no
counterpart in 000 (the break is played from anywhere in the house, 000 3.4в), so it is not a foul here.
"""

from __future__ import annotations

from calibration.contract import FoulKind, register_texts


class ClusterFoul(FoulKind):
    FEET_OFF_FLOOR = ("feet_off_floor", "000 4.1а")
    TOUCHED_BALL = ("touched_ball", "000 4.1б")
    DOUBLE_HIT = ("double_hit", "000 4.1в")
    NO_CONTACT = ("no_contact", "000 4.1г")
    NO_ATTACK_NO_SAFETY = ("no_attack_no_safety", "000 4.1г")
    UNANNOUNCED_THIRD_BALL = ("unannounced_third_ball", "000 4.1г")
    EARLY_SHOT = ("early_shot", "000 4.1д")
    OFF_TABLE = ("off_table", "000 4.1е")
    NO_GAME_BALL = ("no_game_ball", "000 4.1ж")
    PASSIVE_ATTACK = ("passive_attack", "000 4.1з")
    INTERFERENCE = ("interference", "001 2.1.19")
    FROZEN_CUE_ANGLE = ("frozen_cue_angle", "001 2.1.22(7)")


register_texts(
    {
        ClusterFoul.FEET_OFF_FLOOR: "both feet off the floor at the stroke",
        ClusterFoul.TOUCHED_BALL: "a ball touched other than with the cue tip",
        ClusterFoul.DOUBLE_HIT: "the tip touched the cue ball more than once (push, drag, double hit)",
        ClusterFoul.NO_CONTACT: "the cue ball touched no object ball: neither an attack nor a safety",
        ClusterFoul.NO_ATTACK_NO_SAFETY: "neither the attack rules nor the safety rules were met",
        ClusterFoul.UNANNOUNCED_THIRD_BALL: "a third ball took part in the attack without being announced (3.6е)",
        ClusterFoul.EARLY_SHOT: "stroke before the previous shot was over",
        ClusterFoul.OFF_TABLE: "a ball left the playing field other than by being potted",
        ClusterFoul.NO_GAME_BALL: "a ball potted without the game ball taking part",
        ClusterFoul.PASSIVE_ATTACK: "passive attack",
        ClusterFoul.INTERFERENCE: "interference by the opponent (penalty ball from the opponent)",
        ClusterFoul.FROZEN_CUE_ANGLE: "cue ball frozen to the object ball not played at 45 degrees or more",
    }
)

# Operator ``manual_foul`` codes -> the Cluster penalty they stand for (None: not a foul in Cluster).
MANUAL: dict[str, ClusterFoul | None] = {
    "feet_off_floor": ClusterFoul.FEET_OFF_FLOOR,
    "not_cue_tip": ClusterFoul.TOUCHED_BALL,
    "touched_ball": ClusterFoul.TOUCHED_BALL,
    "double_hit": ClusterFoul.DOUBLE_HIT,
    "push": ClusterFoul.DOUBLE_HIT,
    "press": ClusterFoul.DOUBLE_HIT,
    "early_shot": ClusterFoul.EARLY_SHOT,
    "interference": ClusterFoul.INTERFERENCE,
    "body_over_rail": None,
}
