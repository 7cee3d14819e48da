"""Labels of real clips, written by eye (``tests/data/real/clips/<set>--<clip>.json``; the format is the one
``tableref bench real`` documents): what is on the table at the first and last frame, the pots with their
frame windows, the shots' first hits, balls leaving the table, and the spans covered or cut away.

Frame numbers are 0-based indices of the frames as OpenCV decodes them (for an image sequence, frame 0 is
the image numbered ``first_image``). Pockets are named by where they appear in the IMAGE (``top-left``,
..., or ``left-top``, ... for a table standing upright in the picture), because a person labelling the
footage cannot know which end the observer will call the house end.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SPLITS = ("tuning", "heldout")
IMAGE_POCKETS = (
    "top-left", "top-middle", "top-right", "bottom-left", "bottom-middle", "bottom-right",
    "left-top", "left-middle", "left-bottom", "right-top", "right-middle", "right-bottom",
)  # fmt: skip


class LabelError(ValueError):
    """A label file that cannot be read as a clip label."""


@dataclass(frozen=True)
class LabelledBall:
    ball: str  # "cue", a number, a colour ("red", "white", ...) or "ball"
    px: tuple[float, float]


@dataclass(frozen=True)
class LabelledPot:
    ball: str
    pocket: str  # image position (IMAGE_POCKETS)
    frames: tuple[int, int]  # first touch of the jaws .. gone from view


@dataclass(frozen=True)
class LabelledShot:
    strike_frame: int
    striker: str
    first_hit: str | None  # None: the struck ball touched no other ball


@dataclass(frozen=True)
class ClipLabel:
    name: str  # the label file's stem, e.g. "pool-overhead--2019_PoolChamp_Clip1"
    source: str  # relative to the realdata folder; "carom-frames/%05d.jpg" for an image sequence
    first_image: int
    split: str
    game: str
    table_mm: tuple[float, float]
    ball_mm: float
    fps: float
    frames: int
    image_size: tuple[int, int]
    balls_first: tuple[LabelledBall, ...]
    balls_last: tuple[LabelledBall, ...]
    pots: tuple[LabelledPot, ...]
    shots: tuple[LabelledShot, ...]
    off_table: tuple[tuple[str, int], ...]
    covered: tuple[tuple[int, int], ...]
    cuts: tuple[tuple[int, int], ...]
    notes: str

    @property
    def is_sequence(self) -> bool:
        return "%" in self.source


def _ball_name(v: Any) -> str:
    return str(v).strip().lower()


def _balls(v: Any, where: str) -> tuple[LabelledBall, ...]:
    out = []
    for i, b in enumerate(v):
        try:
            out.append(LabelledBall(_ball_name(b["ball"]), (float(b["px"][0]), float(b["px"][1]))))
        except (KeyError, IndexError, TypeError, ValueError):
            raise LabelError(f"{where}[{i}]: needs 'ball' and 'px': [u, v]") from None
    return tuple(out)


def _spans(v: Any, where: str) -> tuple[tuple[int, int], ...]:
    try:
        spans = tuple((int(a), int(b)) for a, b in (v or []))
    except (TypeError, ValueError):
        raise LabelError(f"{where}: needs [[first, last], ...] frame spans") from None
    if any(b < a for a, b in spans):
        raise LabelError(f"{where}: a span ends before it starts")
    return spans


def parse_label(obj: Any, name: str) -> ClipLabel:
    if not isinstance(obj, dict):
        raise LabelError("not a JSON object")
    for key in ("source", "split", "table_mm", "ball_mm", "fps", "frames", "balls_first", "balls_last"):
        if key not in obj:
            raise LabelError(f"missing '{key}'")
    split = str(obj["split"])
    if split not in SPLITS:
        raise LabelError(f"split {split!r} is neither 'tuning' nor 'heldout'")
    pots = []
    for i, p in enumerate(obj.get("pots") or []):
        try:
            pocket = str(p["pocket"]).strip().lower()
            a, b = (int(f) for f in p["frames"])
            pots.append(LabelledPot(_ball_name(p["ball"]), pocket, (min(a, b), max(a, b))))
        except (KeyError, TypeError, ValueError):
            raise LabelError(f"pots[{i}]: needs 'ball', 'pocket' and 'frames': [first, last]") from None
        if pocket not in IMAGE_POCKETS:
            raise LabelError(f"pots[{i}]: pocket {pocket!r} is not an image position ({', '.join(IMAGE_POCKETS)})")
    shots = []
    for i, s in enumerate(obj.get("shots") or []):
        try:
            hit = s.get("first_hit")
            shots.append(LabelledShot(int(s["strike_frame"]), _ball_name(s.get("striker", "cue")),
                                      None if hit is None else _ball_name(hit)))  # fmt: skip
        except (KeyError, TypeError, ValueError, AttributeError):
            raise LabelError(f"shots[{i}]: needs 'strike_frame' and 'first_hit'") from None
    try:
        off = tuple((_ball_name(o["ball"]), int(o["frame"])) for o in (obj.get("off_table") or []))
        table = (float(obj["table_mm"][0]), float(obj["table_mm"][1]))
        size = tuple(int(v) for v in obj.get("image_size") or (0, 0))
        fps, frames, ball = float(obj["fps"]), int(obj["frames"]), float(obj["ball_mm"])
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise LabelError(f"malformed field ({type(exc).__name__}: {exc})") from None
    if fps <= 0 or frames <= 0 or ball <= 0:
        raise LabelError("fps, frames and ball_mm must be positive")
    return ClipLabel(
        name=name, source=str(obj["source"]), first_image=int(obj.get("first_image", 0)), split=split,
        game=str(obj.get("game", "eight")), table_mm=table, ball_mm=ball, fps=fps, frames=frames,
        image_size=(size[0], size[1]) if len(size) == 2 else (0, 0),
        balls_first=_balls(obj["balls_first"], "balls_first"), balls_last=_balls(obj["balls_last"], "balls_last"),
        pots=tuple(pots), shots=tuple(shots), off_table=off, covered=_spans(obj.get("covered"), "covered"),
        cuts=_spans(obj.get("cuts"), "cuts"), notes=str(obj.get("notes", "")),
    )  # fmt: skip


def load_label(path: Path) -> ClipLabel:
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LabelError(f"{path.name}: cannot read ({exc})") from None
    try:
        return parse_label(obj, path.stem)
    except LabelError as exc:
        raise LabelError(f"{path.name}: {exc}") from None


def is_cue_name(name: str) -> bool:
    return name == "cue"


def is_numbered(name: str) -> bool:
    """A ball id our observer could give the same ball: the cue ball or a number."""
    return name == "cue" or name.isdigit()


def labelled_cue(balls: tuple[LabelledBall, ...]) -> LabelledBall | None:
    """The cue ball among labelled balls: the one named ``cue``; else a lone ``white``."""
    cue = [b for b in balls if b.ball == "cue"]
    if len(cue) == 1:
        return cue[0]
    white = [b for b in balls if b.ball == "white"]
    return white[0] if not cue and len(white) == 1 else None
