"""The contract: the records and names every layer exchanges (CONTRACT.md sections 1-4 and 7), in one place.

Why it sits in ``calibration``, the bottom layer: the layers import downward only
(api > rules > tracking > vision > calibration), and ``vision``, ``tracking``, ``rules`` and ``api`` all
build or read these records, so the one place all of them may import is the bottom. It imports nothing of
ours (``.importlinter`` checks that): the names of the table frame are declared here and
``calibration.table`` builds its geometry on them, not the other way round.

- :mod:`calibration.contract.names` - cushions, pockets, lines, spots, directions, ball ids, record types,
  manual foul codes (sections 1-3);
- :mod:`calibration.contract.games` - the games, each declared once as a class: its section 7 name, what a
  viewer calls it, its ball set, rack order and target (the rules engine subclasses them);
- :mod:`calibration.contract.events` - :class:`Event`, one record of ``events.jsonl``, and its JSON-lines
  reading and writing (section 3);
- :mod:`calibration.contract.verdict` - :class:`Verdict`, one record of ``verdicts.jsonl``, with the
  :class:`FoulKind` base its fouls are members of (section 4).

Import from the package: ``from calibration.contract import Event, POCKETS``.
"""

from calibration.contract.events import (
    Event,
    EventLineError,
    iter_jsonl,
    parse_line,
    read_jsonl,
    write_jsonl,
)
from calibration.contract.games import GAMES
from calibration.contract.names import (
    BALL_ID_RE,
    CAMERA_EVENT_TYPES,
    CUSHIONS,
    DIRECTIONS,
    INPUT_TYPES,
    JAW_PREFIX,
    LINE_NAMES,
    LINES,
    MANUAL_FOUL_CODES,
    PLAYER_NAME_MAX,
    POCKETS,
    SPOTS,
    UNSTATED_FPS,
    CameraEventType,
    InputType,
    is_ball_id,
    is_cushion_name,
    jaw_cushion,
    jaw_pocket,
)
from calibration.contract.verdict import FoulKind, Point, SpotPlacement, Verdict, register_texts

__all__ = [
    "BALL_ID_RE",
    "CAMERA_EVENT_TYPES",
    "CUSHIONS",
    "DIRECTIONS",
    "GAMES",
    "INPUT_TYPES",
    "JAW_PREFIX",
    "LINES",
    "LINE_NAMES",
    "MANUAL_FOUL_CODES",
    "PLAYER_NAME_MAX",
    "POCKETS",
    "SPOTS",
    "UNSTATED_FPS",
    "CameraEventType",
    "Event",
    "EventLineError",
    "FoulKind",
    "InputType",
    "Point",
    "SpotPlacement",
    "Verdict",
    "is_ball_id",
    "is_cushion_name",
    "iter_jsonl",
    "jaw_cushion",
    "jaw_pocket",
    "parse_line",
    "read_jsonl",
    "register_texts",
    "write_jsonl",
]
