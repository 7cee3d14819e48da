"""The names of CONTRACT.md sections 1-3: table features, ball ids, record types, directions, manual fouls.

Every layer names a cushion, a pocket, a line or a record type by these strings and no other; a record
that names anything else is refused where it is built (:mod:`calibration.contract.events`).
"""

from __future__ import annotations

import re
from typing import Literal

# Section 1: the six cushion segments (pocket mouths excluded), the six pockets, the three lines, the spots.
CUSHIONS = ("house", "pyramid", "left-house", "left-pyramid", "right-house", "right-pyramid")
POCKETS = ("house-left", "house-right", "middle-left", "middle-right", "pyramid-left", "pyramid-right")
LINES = ("house", "center", "long")
LINE_NAMES = LINES  # the ``line`` of a ``line_cross`` event is one of the table's lines
SPOTS = ("pyramid", "center", "front")
DIRECTIONS = ("+x", "-x", "+y", "-y")  # a ``line_cross`` event's ``direction``

# Section 6: a stream's frame rate where its source states none (camera.json's ``fps``, a video's or a live
# source's rate): the rendered scenes' and most table cameras' rate. The tracker and the event extractor read it
# for their first frame only; from the second frame on they measure the interval from the timestamps.
UNSTATED_FPS = 60.0

JAW_PREFIX = "jaw:"  # a cushion event's ``cushion`` for a pocket's jaw: "jaw:<pocket>" (section 3)


def jaw_cushion(pocket: str) -> str:
    """The ``cushion`` name of a touch of ``pocket``'s jaw."""
    return JAW_PREFIX + pocket


def jaw_pocket(cushion: str | None) -> str | None:
    """The pocket whose jaw a ``cushion`` name stands for; None for a cushion segment (or no name)."""
    return cushion[len(JAW_PREFIX) :] if cushion is not None and cushion.startswith(JAW_PREFIX) else None


def is_cushion_name(name: str) -> bool:
    """A cushion segment's name, or ``jaw:<pocket>`` for a real pocket."""
    return name in CUSHIONS or jaw_pocket(name) in POCKETS


# Section 2: "cue", "1".."15" where the number is known, otherwise a stable tracker id "tN".
BALL_ID_RE = re.compile(r"^(cue|[1-9]|1[0-5]|t[1-9][0-9]*)$")


def is_ball_id(value: str) -> bool:
    """A CONTRACT.md section 2 ball id: ``"cue"``, ``"1"``..``"15"`` or a tracker id ``"tN"``."""
    return bool(BALL_ID_RE.match(value))


# Section 3: the camera's event types, then the operator's inputs (the last five are documented extensions).
CameraEventType = Literal["shot_start", "contact", "cushion", "line_cross", "pot", "off_table", "disturbed", "shot_end"]
InputType = Literal[
    "frame_start", "call", "call_any", "reorder", "third_ball", "manual_foul", "play_on", "rerack", "concede",
    "placement_warning", "rename", "void_pot",
]  # fmt: skip

CAMERA_EVENT_TYPES: tuple[str, ...] = CameraEventType.__args__  # type: ignore[attr-defined]
INPUT_TYPES: tuple[str, ...] = InputType.__args__  # type: ignore[attr-defined]

# Section 3: the fouls the camera cannot see, as the operator's ``manual_foul`` codes.
MANUAL_FOUL_CODES = (
    "feet_off_floor",
    "double_hit",
    "push",
    "press",
    "not_cue_tip",
    "touched_ball",
    "early_shot",
    "interference",
    "body_over_rail",
)
PLAYER_NAME_MAX = 40  # characters: a name on a score bar
