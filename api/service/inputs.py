"""An operator's input checked against the match before the referee sees it: numbers that fit, a shot that
exists (or is the next one), and ball ids that name balls of this table.

The record's own shape (its fields, pocket and cushion names, the id format of a rename) is checked by
``calibration.contract.Event``; this module adds what only the match knows. A refusal is ``InputRefused`` with
an HTTP status (422: the record itself is wrong; 409: it does not fit the match as it stands) and one line.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from api.service.limits import MAX_INT
from calibration.contract import Event, is_ball_id


class InputRefused(ValueError):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass(frozen=True)
class TableView:
    """What the check needs to know of the match at the moment of the input."""

    on_table: frozenset[str]  # ball ids at the table now; empty before the camera has seen a shot
    next_shot: int  # the shot in progress, or the next one to be played
    potted: Callable[[], set[str]]  # ids potted so far in the match, and what they were renamed to (read lazily)


def check_input(ev: Event, view: TableView) -> None:
    """Raise InputRefused when the input cannot apply to this match."""
    if ev.shot is not None:
        if not 0 <= ev.shot <= MAX_INT:
            raise InputRefused(422, f"shot must be a shot index 0..{MAX_INT} (got {ev.shot})")
        if ev.shot > view.next_shot:
            raise InputRefused(409, f"shot {ev.shot} does not exist yet: the next shot is {view.next_shot}")
    if ev.frame is not None and not 0 <= ev.frame <= MAX_INT:
        raise InputRefused(422, f"frame must be a video frame number 0..{MAX_INT} (got {ev.frame})")
    if ev.t is not None and not (math.isfinite(ev.t) and ev.t <= MAX_INT):
        raise InputRefused(422, f"t must be a finite time in seconds (got {ev.t})")
    if not math.isfinite(ev.confidence):
        raise InputRefused(422, "confidence must be a finite number within 0..1")

    if ev.type in ("call", "reorder") and ev.ball is not None:
        _on_table(ev.type, [ev.ball], view)
    elif ev.type == "third_ball":
        balls = list(ev.balls or ())
        if not balls:
            raise InputRefused(422, "a third_ball names at least one ball")
        if len(set(balls)) != len(balls):
            raise InputRefused(422, "a third_ball names each ball once")
        _on_table(ev.type, balls, view)
    elif ev.type == "rename":
        # A ball on the table, or one potted (renaming it re-scores the verdict that counted it).
        ball = str(ev.ball)
        _well_formed(ev.type, [ball])
        if view.on_table and ball not in view.on_table and ball not in view.potted():
            raise InputRefused(409, f"a rename names ball '{ball}', which is neither on the table nor potted")
        if ev.to in view.on_table:
            raise InputRefused(409, f"ball '{ev.to}' is already on the table: rename that one first")
    elif ev.type == "void_pot":
        _well_formed(ev.type, [str(ev.ball)])  # whether that ball was potted is the referee's to say (409)


def _well_formed(kind: str, balls: Iterable[str]) -> None:
    for b in balls:
        if not is_ball_id(b):
            shown = b if len(b) <= 20 else b[:20] + "..."
            raise InputRefused(422, f'a {kind} names ball ids: "cue", "1".."15" or "tN" (got \'{shown}\')')


def _on_table(kind: str, balls: list[str], view: TableView) -> None:
    _well_formed(kind, balls)
    if not view.on_table:
        return  # the camera has not shown the table yet: nothing to check the ids against
    missing = [b for b in balls if b not in view.on_table]
    if missing:
        shown = ", ".join(sorted(view.on_table, key=_ball_order))
        raise InputRefused(409, f"a {kind} names ball '{missing[0]}', which is not on the table (on it: {shown})")


def _ball_order(b: str) -> tuple[int, int]:
    if b == "cue":
        return (0, 0)
    if b.isdigit():
        return (1, int(b))
    return (2, int(b[1:]) if b[1:].isdigit() else 0)
