"""The records of the event stream (CONTRACT.md section 3): camera events and operator inputs.

One frozen pydantic model covers every record type, because the contract gives them one stream shape
(one JSON object per line, a ``type`` and the fields that type needs). Validation checks that each type
carries exactly the fields it needs and names real cushions, pockets and lines, so a malformed line is a
clear error, never a silently wrong record. ``parse_line`` and ``read_jsonl`` name the line that failed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from calibration.contract.games import GAMES
from calibration.contract.names import (
    CAMERA_EVENT_TYPES,
    INPUT_TYPES,
    MANUAL_FOUL_CODES,
    PLAYER_NAME_MAX,
    POCKETS,
    CameraEventType,
    InputType,
    is_ball_id,
    is_cushion_name,
)

# Fields each type must carry (beyond type/t/frame/shot). Anything else must be absent, except the
# optional extras listed in _OPTIONAL.
_REQUIRED: dict[str, tuple[str, ...]] = {
    "shot_start": ("ball", "positions"),
    "contact": ("balls", "pos"),
    "cushion": ("ball", "cushion", "pos"),
    "line_cross": ("ball", "line", "direction"),
    "pot": ("ball", "pocket"),
    "off_table": ("ball", "pos"),
    "disturbed": ("ball", "pos"),
    "shot_end": ("positions",),
    "frame_start": ("game", "breaker"),
    "call": (),  # ball+pocket, or cue_pocket: checked below
    "call_any": (),
    "reorder": ("ball",),
    "third_ball": ("balls",),
    "manual_foul": ("code",),
    "play_on": ("player",),
    # Documented extensions (rules engine): 001 2.1.16 blocked-position re-rack ordered by the referee, and
    # a frame conceded by ``player`` (001 1.5.5).
    "rerack": (),
    "concede": ("player",),
    # 001 2.1.5в: the referee warned the player that the cue ball in hand is placed outside the house.
    "placement_warning": (),
    # Operator corrections (001 2.1.21, 1.5.4): "this ball is number 7" (the ball seen as ``ball`` is
    # ``to`` from now on) and "void the last pot of that ball" (amends the open verdict).
    "rename": ("ball", "to"),
    "void_pot": ("ball",),
}
_OPTIONAL: dict[str, tuple[str, ...]] = {
    "frame_start": ("players",),  # documented extension: the players' names, {"A": ..., "B": ...}
    "call": ("ball", "pocket", "cue_pocket"),
    "pot": ("pos",),
}
_PAYLOAD = (
    "ball", "balls", "pos", "positions", "cushion", "pocket", "line", "direction",
    "game", "breaker", "cue_pocket", "code", "player", "to", "players",
)  # fmt: skip


class Event(BaseModel):
    """One record of ``events.jsonl``: a camera event or an operator input.

    ``confidence`` (0..1) and ``review`` (flagged for a referee's look) are documented extensions that
    camera events carry; operator inputs are certain by definition.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: CameraEventType | InputType
    t: float | None = None
    frame: int | None = None
    shot: int | None = None

    ball: str | None = None
    balls: tuple[str, ...] | None = None
    pos: tuple[float, float] | None = None
    positions: dict[str, tuple[float, float]] | None = None
    cushion: str | None = None
    pocket: str | None = None
    line: Literal["house", "center", "long"] | None = None
    direction: Literal["+x", "-x", "+y", "-y"] | None = None

    game: str | None = None
    breaker: Literal["A", "B"] | None = None
    cue_pocket: str | None = None
    code: str | None = None
    player: Literal["A", "B"] | None = None
    to: str | None = None
    players: dict[Literal["A", "B"], str] | None = None

    confidence: float = 1.0
    review: bool = False

    @model_validator(mode="after")
    def _check_fields(self) -> Event:
        need = _REQUIRED[self.type]
        allowed = set(need) | set(_OPTIONAL.get(self.type, ()))
        for name in _PAYLOAD:
            value = getattr(self, name)
            if name in need and value is None:
                raise ValueError(f"a {self.type} record needs '{name}'")
            if name not in allowed and value is not None:
                raise ValueError(f"a {self.type} record has no field '{name}'")
        if self.is_camera_event and self.t is None:
            raise ValueError(f"a {self.type} event needs 't'")
        if self.t is not None and self.t < 0:
            raise ValueError("'t' must not be negative")
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError("'confidence' must be within 0..1")
        if self.type == "contact" and (len(self.balls or ()) != 2 or self.balls[0] == self.balls[1]):  # type: ignore[index]
            raise ValueError("a contact names two different balls")
        if self.cushion is not None and not is_cushion_name(self.cushion):
            raise ValueError(f"unknown cushion '{self.cushion}'")
        for name in ("pocket", "cue_pocket"):
            v = getattr(self, name)
            if v is not None and v not in POCKETS:
                raise ValueError(f"unknown pocket '{v}'")
        if self.type == "call" and not ((self.ball and self.pocket) or self.cue_pocket):
            raise ValueError("a call names a ball and a pocket, or a cue_pocket")
        if self.game is not None and self.game not in GAMES:
            raise ValueError(f"unknown game '{self.game}' (known: {', '.join(GAMES)})")
        if self.type in ("rename", "void_pot"):
            for name in ("ball", "to"):
                v = getattr(self, name)
                if v is not None and not is_ball_id(v):
                    raise ValueError(f'\'{name}\' must be a ball id: "cue", "1".."15" or "tN" (got \'{v}\')')
            if self.type == "rename" and self.ball == self.to:
                raise ValueError("a rename names two different ids")
        for side, name in (self.players or {}).items():
            if not name.strip() or len(name) > PLAYER_NAME_MAX or not name.isprintable():
                raise ValueError(f"player {side}'s name must be 1..{PLAYER_NAME_MAX} printable characters")
        if self.code is not None and self.code not in MANUAL_FOUL_CODES:
            raise ValueError(f"unknown manual foul '{self.code}'")
        return self

    @property
    def is_camera_event(self) -> bool:
        return self.type in CAMERA_EVENT_TYPES

    @property
    def is_input(self) -> bool:
        return self.type in INPUT_TYPES

    def to_dict(self) -> dict[str, Any]:
        """The contract's JSON object: ``type``, ``t``, ``frame``, ``shot``, then the payload present.
        ``confidence`` and ``review`` appear only where they say something (below 1, or flagged)."""
        out: dict[str, Any] = {"type": self.type}
        if self.is_camera_event or self.t is not None:
            out["t"] = self.t
            out["frame"] = self.frame
        out["shot"] = self.shot
        for name in _PAYLOAD:
            v = getattr(self, name)
            if v is None:
                continue
            if isinstance(v, tuple):
                v = list(v)
            elif isinstance(v, dict):
                v = {k: p if isinstance(p, str) else list(p) for k, p in v.items()}
            out[name] = v
        if self.confidence < 1.0:
            out["confidence"] = self.confidence
        if self.review:
            out["review"] = True
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)


class EventLineError(ValueError):
    """A line of an events file that is not a valid record; says which line and why."""

    def __init__(self, line_no: int, reason: str) -> None:
        super().__init__(f"line {line_no}: {reason}")
        self.line_no = line_no
        self.reason = reason


def parse_line(text: str, line_no: int = 0) -> Event:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise EventLineError(line_no, f"not JSON ({exc.msg})") from None
    if not isinstance(obj, dict):
        raise EventLineError(line_no, "not a JSON object")
    try:
        return Event.model_validate(obj)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        msg = first.get("msg", "invalid").removeprefix("Value error, ")
        raise EventLineError(line_no, f"{where + ': ' if where else ''}{msg}") from None


def iter_jsonl(lines: Iterable[str]) -> Iterator[Event]:
    """Events of a JSON-lines text, blank lines skipped; raises EventLineError at the first bad line."""
    for i, text in enumerate(lines, start=1):
        if text.strip():
            yield parse_line(text, i)


def read_jsonl(path: str | Path) -> list[Event]:
    with open(path, encoding="utf-8") as f:
        return list(iter_jsonl(f))


def write_jsonl(path: str | Path, events: Iterable[Event]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for ev in events:
            f.write(ev.to_json() + "\n")
