"""Fouls as enums that carry the clause they cite; the display text is a lookup.

Every rule set defines one enum subclass of :class:`~calibration.contract.FoulKind` (the verdict record's
foul type, in the contract). A member's value is ``(code, rule)``:
``code`` is the stable key written to ``verdicts.jsonl`` and ``rule`` the clause as the contract wants it
(seed prefix, then the clause as written in that document, e.g. ``"001 2.1.22(1)"`` or ``"000 4.1ж"``).
The human text lives in a separate table registered with :func:`register_texts`, so wording can change
without touching the key. A :class:`~calibration.contract.Verdict` accepts members of any ``FoulKind`` subclass,
which is how the Cluster game (``rules.cluster``) brings its own fouls::

    class ClusterFoul(FoulKind):
        OFF_TABLE = ("off_table", "000 4.1е")

    register_texts({ClusterFoul.OFF_TABLE: "a ball left the playing field"})
"""

from __future__ import annotations

from calibration.contract import FoulKind, register_texts


class Foul(FoulKind):
    """The fifteen fouls of 001 2.1.22 (plus the game-specific clause that a few of them lean on)."""

    NO_CONTACT = ("no_contact", "001 2.1.22(1)")
    CUE_OFF_TABLE = ("cue_off_table", "001 2.1.22(2)")
    EARLY_SHOT = ("early_shot", "001 2.1.22(3)")
    TOUCHED_BALL = ("touched_ball", "001 2.1.22(4)")
    IMPROPER_STROKE = ("improper_stroke", "001 2.1.22(5)")
    FEET_OFF_FLOOR = ("feet_off_floor", "001 2.1.22(6)")
    FROZEN_CUE_ANGLE = ("frozen_cue_angle", "001 2.1.22(7)")
    PUSH_OR_PRESS = ("push_or_press", "001 2.1.22(8)")
    DOUBLE_HIT = ("double_hit", "001 2.1.22(9)")
    HOUSE_BALL_HIT = ("house_ball_hit", "001 2.1.22(10)")
    NOT_CUE_BALL = ("not_cue_ball", "001 2.1.22(11)")
    CUE_POTTED = ("cue_potted", "001 2.1.22(12)")
    BAD_SAFETY = ("bad_safety", "001 2.1.22(13)")
    HAND_OUTSIDE_HOUSE = ("hand_outside_house", "001 2.1.22(14)")
    INTERFERENCE = ("interference", "001 2.1.22(15)")
    # 2.1.14 against 2.8.2: in Americanka a just-spotted ball may not be the cue ball; digest A19 makes it
    # an improper stroke, 2.1.22(5).
    SPOTTED_BALL_AS_CUE = ("spotted_ball_as_cue", "001 2.1.22(5)")


register_texts(
    {
        Foul.NO_CONTACT: "the cue ball touched no object ball",
        Foul.CUE_OFF_TABLE: "the cue ball left the playing surface",
        Foul.EARLY_SHOT: "stroke before the previous shot ended",
        Foul.TOUCHED_BALL: "a ball was touched by the cue, hand, clothing or chalk",
        Foul.IMPROPER_STROKE: "improper stroke (not with the tip along the cue)",
        Foul.FEET_OFF_FLOOR: "no foot on the floor at the stroke",
        Foul.FROZEN_CUE_ANGLE: "frozen cue ball not played at 45 degrees or more",
        Foul.PUSH_OR_PRESS: "push or press stroke",
        Foul.DOUBLE_HIT: "the tip touched the cue ball twice",
        Foul.HOUSE_BALL_HIT: "from hand, the cue ball hit a ball in the house before leaving it",
        Foul.NOT_CUE_BALL: "a ball other than the cue ball was struck",
        Foul.CUE_POTTED: "the cue ball was potted",
        Foul.BAD_SAFETY: "invalid safety",
        Foul.HAND_OUTSIDE_HOUSE: "from hand, the cue ball was played from outside the house",
        Foul.INTERFERENCE: "interference by the opponent",
        Foul.SPOTTED_BALL_AS_CUE: "a just-spotted ball was played as the cue ball (Americanka, 2.1.14)",
    }
)

# Operator ``manual_foul`` codes (CONTRACT.md section 3) -> the 001 foul they stand for.
MANUAL_FOULS: dict[str, Foul] = {
    "feet_off_floor": Foul.FEET_OFF_FLOOR,
    "double_hit": Foul.DOUBLE_HIT,
    "push": Foul.PUSH_OR_PRESS,
    "press": Foul.PUSH_OR_PRESS,
    "not_cue_tip": Foul.IMPROPER_STROKE,
    "touched_ball": Foul.TOUCHED_BALL,
    "early_shot": Foul.EARLY_SHOT,
    "interference": Foul.INTERFERENCE,
    "body_over_rail": Foul.HAND_OUTSIDE_HOUSE,
}
