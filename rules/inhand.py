"""The shot from hand, from the house (001 2.1.5) and the balls that leave the table (2.1.13).

The house is x < L/4 (a centre on the house line is outside, 2.1.6). When every object ball lies in the
house, the shot is played from the temporary house instead (2.1.5б): the area between the back line
(x = 3L/4) and the back cushion; everything is then mirrored (the "far corners" become the house corners).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from calibration.contract import Event
from calibration.table import TableModel
from rules.predicates import first_contact_index
from rules.shot import Point, Shot

FAR_CORNERS = ("pyramid-left", "pyramid-right")
HOUSE_CORNERS = ("house-left", "house-right")


def use_temporary_house(table: TableModel, positions: Mapping[str, Point], object_balls: Iterable[str]) -> bool:
    """001 2.1.5б: every object ball on the table lies in the house (and there is at least one)."""
    pts = [positions[b] for b in object_balls if b in positions]
    return bool(pts) and all(table.in_house(p) for p in pts)


def in_hand_area(table: TableModel, p: Point, temporary: bool) -> bool:
    """001 2.1.5в: the centre strictly inside the (temporary) house; on the line counts as outside."""
    return table.in_temporary_house(p) if temporary else table.in_house(p)


def far_corners(temporary: bool) -> tuple[str, str]:
    """001 2.1.5а: the corner pockets opposite the house (mirrored for the temporary house)."""
    return HOUSE_CORNERS if temporary else FAR_CORNERS


@dataclass(frozen=True)
class HandShot:
    """How a shot from hand went (001 2.1.5г-д)."""

    in_play_at: int | None  # event index at which the cue ball came into play, None: re-take (2.1.5г)
    left_house_at: int | None  # event index at which the cue ball left the house
    house_ball_hit: str | None  # 2.1.22(10): the ball in the house hit first, illegally


def hand_shot(shot: Shot, temporary: bool) -> HandShot:
    """001 2.1.5г: the cue ball is in play once it crosses the house line or touches an object ball.
    2.1.5д: before leaving the house, it may hit a ball in the house only after touching an object ball
    outside the house (digest A4), else foul 10."""
    table = shot.table
    cue = shot.struck
    left: int | None = None
    touched_outside = False
    house_hit: str | None = None
    for i, e in enumerate(shot.events):
        names = (e.balls or ()) + ((e.ball,) if e.ball else ())
        if cue not in names:
            continue
        crossed = e.type == "line_cross" and not temporary and e.line == "house" and e.direction == "+x"
        outside = e.type == "cushion" and e.pos is not None and not in_hand_area(table, e.pos, temporary)
        if left is None and (crossed or outside):
            left = i
        if e.type == "contact" and e.balls:
            other = e.balls[1] if e.balls[0] == cue else e.balls[0]
            p = shot.start.get(other)
            inside = p is not None and in_hand_area(table, p, temporary)
            if inside and left is None and not touched_outside and house_hit is None:
                house_hit = other
            if not inside:
                touched_outside = True
    fc = first_contact_index(shot)
    in_play = left if fc is None else (fc if left is None else min(fc, left))
    if in_play is None:
        # Evidence from rest: the cue ball ended outside the house (the camera missed the crossing).
        p1 = shot.end.get(cue)
        if p1 is not None and not in_hand_area(table, p1, temporary):
            in_play = len(shot.events)
    return HandShot(in_play, left, house_hit)


def counted_from_hand(
    shot: Shot,
    candidates: list[str],
    fast: bool,
    temporary: bool,
    outside_contact_counts: bool = True,
    late: Sequence[Event] = (),
) -> tuple[list[str], list[str]]:
    """001 2.1.5а: which pots of a shot from hand count. Non-fast games: only when a ball fell in a far
    corner; then every pot of the shot counts (digest A1). Fast games: pots after the cue ball left the
    house (or, where ``outside_contact_counts``, touched an object ball outside it) count.
    ``late`` are pots after the shot's end that count as part of it (2.1.15). Returns (counted, not counted)."""
    table = shot.table
    stream = [*shot.events, *late]
    pots = [(i, e) for i, e in enumerate(stream) if e.type == "pot" and e.ball in candidates]
    if not fast:
        far = far_corners(temporary)
        if any(e.pocket in far for _, e in pots):
            return [str(e.ball) for _, e in pots], []
        return [], [str(e.ball) for _, e in pots]
    cue = shot.struck
    start_at: int | None = None
    for i, e in enumerate(shot.events):
        names = (e.balls or ()) + ((e.ball,) if e.ball else ())
        if cue not in names:
            continue
        if e.type == "line_cross" and not temporary and e.line == "house" and e.direction == "+x":
            start_at = i
            break
        if e.type == "cushion" and e.pos is not None and not in_hand_area(table, e.pos, temporary):
            start_at = i
            break
        if outside_contact_counts and e.type == "contact" and e.balls:
            other = e.balls[1] if e.balls[0] == cue else e.balls[0]
            p = shot.start.get(other)
            if p is not None and not in_hand_area(table, p, temporary):
                start_at = i
                break
    counted = [str(e.ball) for i, e in pots if start_at is not None and i > start_at]
    return counted, [str(e.ball) for _, e in pots if str(e.ball) not in counted]
