"""The event records now live in :mod:`calibration.contract`; this module re-exports them for the modules
being rewritten in step with the move (``tracking.extractor``, ``tracking.tracker``, ``tracking.detect``).
New code imports ``calibration.contract``; this module goes once those imports are switched."""

from calibration.contract import (
    BALL_ID_RE,
    CAMERA_EVENT_TYPES,
    DIRECTIONS,
    GAMES,
    INPUT_TYPES,
    JAW_PREFIX,
    LINE_NAMES,
    MANUAL_FOUL_CODES,
    PLAYER_NAME_MAX,
    CameraEventType,
    Event,
    EventLineError,
    InputType,
    is_ball_id,
    iter_jsonl,
    jaw_cushion,
    jaw_pocket,
    parse_line,
    read_jsonl,
    write_jsonl,
)

__all__ = [
    "BALL_ID_RE",
    "CAMERA_EVENT_TYPES",
    "DIRECTIONS",
    "GAMES",
    "INPUT_TYPES",
    "JAW_PREFIX",
    "LINE_NAMES",
    "MANUAL_FOUL_CODES",
    "PLAYER_NAME_MAX",
    "CameraEventType",
    "Event",
    "EventLineError",
    "InputType",
    "is_ball_id",
    "iter_jsonl",
    "jaw_cushion",
    "jaw_pocket",
    "parse_line",
    "read_jsonl",
    "write_jsonl",
]
